// The database behind a connection pool: the network round trip is paid
// while holding the connection, and its CPU is attributed to the database.
#include "sim/database.h"

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "sim/cpu.h"
#include "sim/engine.h"

namespace perflab::sim {
namespace {

// Every process's steps in the order they ran: (time, who).
using StepLog = std::vector<std::pair<Time, int>>;

Process Statement(Database& db, Time work, Time& done, Simulation& sim,
                  Time hold = 0) {
  const bool ok = co_await db.Statement(work, hold);
  if (ok) done = sim.now();
}

TEST(DatabaseTest, RoundTripHeldWithTheConnection) {
  Simulation sim;
  Cpu cpu(sim, 4);
  DatabaseOptions o;
  o.pool = 1;
  o.round_trip = 2 * kMs;
  Database db(sim, cpu, o);
  Time a = 0, b = 0;
  sim.Spawn(Statement(db, kMs, a, sim));
  sim.Spawn(Statement(db, kMs, b, sim));
  ASSERT_TRUE(sim.Run(kSec).ok());
  EXPECT_EQ(a, 3 * kMs);  // 2 ms round trip + 1 ms CPU
  EXPECT_EQ(b, 6 * kMs);  // waits for the one connection
  EXPECT_EQ(db.stats().statements, 2);
  EXPECT_NEAR(cpu.CoresUsedFor(CpuUse::kDatabase), 2.0 * kMs / kSec, 1e-12);
}

// A hold beyond the CPU keeps the connection without using a core: with one
// connection the second statement starts at 1 + 3 = 4 ms and ends at 8 ms,
// and the database's CPU is the two 1 ms pieces only.
TEST(DatabaseTest, HoldKeepsTheConnectionWithoutCpu) {
  Simulation sim;
  Cpu cpu(sim, 4);
  DatabaseOptions o;
  o.pool = 1;
  Database db(sim, cpu, o);
  Time a = 0, b = 0;
  sim.Spawn(Statement(db, kMs, a, sim, 3 * kMs));
  sim.Spawn(Statement(db, kMs, b, sim, 3 * kMs));
  ASSERT_TRUE(sim.Run(kSec).ok());
  EXPECT_EQ(a, 4 * kMs);
  EXPECT_EQ(b, 8 * kMs);
  EXPECT_NEAR(cpu.CoresUsedFor(CpuUse::kDatabase), 2.0 * kMs / kSec, 1e-12);
}

// No CPU and a free connection: the statement takes the connection and
// gives it back at once, at time 0, without suspending on the CPU (a work
// of 0 is ready), and a second one finds the connection free again.
TEST(DatabaseTest, AStatementWithoutCpuReturnsItsConnectionAtOnce) {
  Simulation sim;
  Cpu cpu(sim, 1);
  DatabaseOptions o;
  o.pool = 1;
  Database db(sim, cpu, o);
  Time a = -1, b = -1;
  sim.Spawn(Statement(db, 0, a, sim));
  EXPECT_EQ(a, 0);  // done inside Spawn: nothing suspended
  EXPECT_EQ(db.pool().in_use(), 0);
  sim.Spawn(Statement(db, 0, b, sim));
  ASSERT_TRUE(sim.Run(kSec).ok());
  EXPECT_EQ(b, 0);
  EXPECT_EQ(db.stats().statements, 2);
  EXPECT_EQ(db.pool().Stats().grants, 2);
  EXPECT_EQ(db.pool().in_use(), 0);
}

Process Page(Database& db, bool one_borrow, Time& done, Simulation& sim) {
  if (one_borrow) {
    // Named first: GCC 12 cannot take a braced list in a co_await's call.
    std::vector<Time> works(3, kMs);
    const bool ok = co_await db.Statements(works);
    if (!ok) co_return;
  } else {
    for (int i = 0; i < 3; ++i) {
      const bool ok = co_await db.Statement(kMs);
      if (!ok) co_return;
    }
  }
  done = sim.now();
}

// Two pages of three 1 ms statements on one connection and four cores. Borrowed
// once a page, the first page holds the connection to 3 ms and the second
// runs 3 to 6 ms. Borrowed a statement at a time, the two pages take turns
// on the connection: A at 1, B at 2, A at 3, ... A ends at 5, B at 6.
TEST(DatabaseTest, APageOnOneBorrowHoldsTheConnectionForAllItsStatements) {
  for (bool one_borrow : {true, false}) {
    Simulation sim;
    Cpu cpu(sim, 4);
    DatabaseOptions o;
    o.pool = 1;
    Database db(sim, cpu, o);
    Time a = 0, b = 0;
    sim.Spawn(Page(db, one_borrow, a, sim));
    sim.Spawn(Page(db, one_borrow, b, sim));
    ASSERT_TRUE(sim.Run(kSec).ok());
    EXPECT_EQ(a, (one_borrow ? 3 : 5) * kMs) << one_borrow;
    EXPECT_EQ(b, 6 * kMs) << one_borrow;
    EXPECT_EQ(db.stats().statements, 6);
    EXPECT_EQ(db.pool().Stats().grants, one_borrow ? 2 : 6);
  }
}

// A CPU piece, then statements one after another, each resumed by the
// CPU's tick: `done` gets each one's end.
Process Statements(Simulation& sim, Cpu& cpu, Database& db, Time first,
                   std::vector<Time> works, std::vector<Time>& done) {
  co_await cpu.Run(first);
  for (const Time w : works) {
    const bool ok = co_await db.Statement(w);
    if (!ok) co_return;
    done.push_back(sim.now());
  }
}

Process WakeAndWork(Simulation& sim, Cpu& cpu, Time wake, Time work,
                    Time& done) {
  co_await sim.Delay(wake);
  co_await cpu.Run(work);
  done = sim.now();
}

// The two tests below: on two cores and two connections, a request of a
// 10 us piece and statements of 5, 7 and 3 us, beside another process that
// wakes at 20 us for a 1 us job.
struct PieceAndStatements {
  explicit PieceAndStatements(bool in_place) {
    if (!in_place) cpu.DisableFinishNowForTesting();
    sim.Spawn(
        Statements(sim, cpu, db, 10 * kUs, {5 * kUs, 7 * kUs, 3 * kUs}, done));
    sim.Spawn(WakeAndWork(sim, cpu, 20 * kUs, kUs, other));
  }
  static DatabaseOptions TwoConnections() {
    DatabaseOptions o;
    o.pool = 2;
    return o;
  }
  Simulation sim;
  Cpu cpu{sim, 2};
  Database db{sim, cpu, TwoConnections()};
  std::vector<Time> done;  // each statement's end
  Time other = 0;          // the other job's
};

// Nothing saturates: a statement ends its work after it starts. The
// statements end at 15, 22 and 25 us. The one from 15 to 22 us spans the
// other process's wake at 20 us, so it goes through the CPU's timer; the
// other two are each the very next event and run in place. Either way
// each CPU finish counts as two events, the tick and the resumption it
// continues inline (the piece's, the three statements' and the other
// process's 1 us job, ending at 21 us): 10 in all, plus the wake: 11. The
// database's CPU is 15 us of the 1 ms run.
TEST(DatabaseTest, AStatementThatIsTheNextEventRunsInPlaceWithTheSameResult) {
  for (const bool in_place : {true, false}) {
    PieceAndStatements r(in_place);
    ASSERT_TRUE(r.sim.Run(kMs).ok());
    EXPECT_EQ(r.done, (std::vector<Time>{15 * kUs, 22 * kUs, 25 * kUs}));
    EXPECT_EQ(r.other, 21 * kUs);
    EXPECT_EQ(r.cpu.finished_in_place(), in_place ? 2 : 0);
    EXPECT_EQ(r.sim.events_executed(), 11) << in_place;
    EXPECT_DOUBLE_EQ(r.cpu.CoresUsedFor(CpuUse::kDatabase), 15e3 / 1e6);
    EXPECT_EQ(r.db.stats().statements, 3);
  }
}

// The same with the run stopping at 24 us: the last statement (22 to 25
// us) would end past the horizon, so it waits on the timer, and the clock
// stops at 24 us with two statements done. Run on, it ends at 25 us.
TEST(DatabaseTest, AStatementEndingPastTheRunsHorizonDoesNotRunInPlace) {
  PieceAndStatements r(true);
  ASSERT_TRUE(r.sim.Run(24 * kUs).ok());
  EXPECT_EQ(r.sim.now(), 24 * kUs);
  EXPECT_EQ(r.done, (std::vector<Time>{15 * kUs, 22 * kUs}));
  EXPECT_EQ(r.cpu.finished_in_place(), 1);
  ASSERT_TRUE(r.sim.Run(kMs).ok());
  EXPECT_EQ(r.done, (std::vector<Time>{15 * kUs, 22 * kUs, 25 * kUs}));
  EXPECT_EQ(r.cpu.finished_in_place(), 1);
}

// The same request as a series: the 10 us piece, then StatementSeries of
// the 5 us statement with two more (7 and 3 us) to draw. The first ends at
// 15 us in place and the series draws the 7 us one there; it would span
// the wake at 20 us, so it goes through the timer and the step ends with
// it at 22 us: two statements. The caller's next step is the 3 us one,
// alone, in place from 22 to 25 us. As before: 11 events, 2 in place.
Process Series(Simulation& sim, Cpu& cpu, Database& db, Time first,
               std::vector<Time> works, std::vector<int64_t>& ran,
               std::vector<Time>& ends, std::vector<Time>& drawn) {
  co_await cpu.Run(first);
  size_t next = 0;
  auto draw = [&] {
    drawn.push_back(sim.now());
    return works[next++];
  };
  while (next < works.size()) {
    const Time w = works[next++];
    const auto more = static_cast<int64_t>(works.size() - next);
    const Database::SeriesStep step =
        co_await db.StatementSeries(w, more, draw);
    if (!step.ok) co_return;
    ran.push_back(step.ran);
    ends.push_back(sim.now());
  }
}

TEST(DatabaseTest, ASeriesRunsStatementsInPlaceUntilOneIsNotTheNextEvent) {
  for (const bool in_place : {true, false}) {
    Simulation sim;
    Cpu cpu(sim, 2);
    if (!in_place) cpu.DisableFinishNowForTesting();
    Database db(sim, cpu, PieceAndStatements::TwoConnections());
    std::vector<int64_t> ran;
    std::vector<Time> ends, drawn;
    Time other = 0;
    sim.Spawn(Series(sim, cpu, db, 10 * kUs, {5 * kUs, 7 * kUs, 3 * kUs}, ran,
                     ends, drawn));
    sim.Spawn(WakeAndWork(sim, cpu, 20 * kUs, kUs, other));
    ASSERT_TRUE(sim.Run(kMs).ok());
    if (in_place) {
      EXPECT_EQ(ran, (std::vector<int64_t>{2, 1}));
      EXPECT_EQ(ends, (std::vector<Time>{22 * kUs, 25 * kUs}));
      EXPECT_EQ(drawn, (std::vector<Time>{15 * kUs}));
    } else {  // nothing runs in place: each step is one statement
      EXPECT_EQ(ran, (std::vector<int64_t>{1, 1, 1}));
      EXPECT_EQ(ends, (std::vector<Time>{15 * kUs, 22 * kUs, 25 * kUs}));
      EXPECT_TRUE(drawn.empty());
    }
    EXPECT_EQ(other, 21 * kUs);
    EXPECT_EQ(cpu.finished_in_place(), in_place ? 2 : 0);
    EXPECT_EQ(sim.events_executed(), 11) << in_place;
    EXPECT_DOUBLE_EQ(cpu.CoresUsedFor(CpuUse::kDatabase), 15e3 / 1e6);
    EXPECT_EQ(db.stats().statements, 3);
  }
}

Process PieceThenStatement(Simulation& sim, Cpu& cpu, Database& db,
                           StepLog& log) {
  co_await cpu.Run(10 * kUs);
  const bool ok = co_await db.Statement(5 * kUs);
  if (ok) log.emplace_back(sim.now(), 1);
}

Process JobOn(Simulation& sim, Cpu& cpu, Time work, StepLog& log) {
  co_await cpu.Run(work);
  log.emplace_back(sim.now(), 2);
}

// A tie: the statement would end at 15 us, the very time another CPU's
// 15 us job ends. That finish was set at 0, before the statement started,
// so it comes first, and the statement waits on its CPU's timer after it
// rather than running in place ahead of it.
TEST(DatabaseTest, AStatementEndingWithAnotherCpusTimerWaitsBehindIt) {
  Simulation sim;
  Cpu cpu(sim, 2);
  Cpu other(sim, 1);
  Database db(sim, cpu, DatabaseOptions{});
  StepLog log;
  sim.Spawn(JobOn(sim, other, 15 * kUs, log));
  sim.Spawn(PieceThenStatement(sim, cpu, db, log));
  ASSERT_TRUE(sim.Run(kMs).ok());
  EXPECT_EQ(log, (StepLog{{15 * kUs, 2}, {15 * kUs, 1}}));
  EXPECT_EQ(cpu.finished_in_place(), 0);
}

// Saturated: on one core, a request's 10 us piece beside a 100 us job
// that wakes at 0. Two jobs share the core at half speed, so the piece
// ends at 20 us (10 us of work each by then). Its statement of 2 us, with
// the long job still running, also goes at half speed: it ends at 24 us,
// before the long job, and nothing else is due, so it runs in place. The
// long job has 100 - 12 = 88 us left at 24 us and runs alone: it ends at
// 112 us. The core is busy from 0 to 112 us of the 1 ms run; the database
// gets half of it for 4 us: 2 us. Events: the wake, then the piece's, the
// statement's and the long job's finishes, two each: 7.
TEST(DatabaseTest, AStatementRunsInPlaceWhileTheCoresAreSaturated) {
  for (const bool in_place : {true, false}) {
    Simulation sim;
    Cpu cpu(sim, 1);
    if (!in_place) cpu.DisableFinishNowForTesting();
    Database db(sim, cpu, DatabaseOptions{});
    std::vector<Time> done;
    Time long_done = 0;
    sim.Spawn(Statements(sim, cpu, db, 10 * kUs, {2 * kUs}, done));
    sim.Spawn(WakeAndWork(sim, cpu, 0, 100 * kUs, long_done));
    ASSERT_TRUE(sim.Run(kMs).ok());
    EXPECT_EQ(done, (std::vector<Time>{24 * kUs})) << in_place;
    EXPECT_EQ(long_done, 112 * kUs);
    EXPECT_EQ(cpu.finished_in_place(), in_place ? 1 : 0);
    EXPECT_EQ(sim.events_executed(), 7) << in_place;
    EXPECT_DOUBLE_EQ(cpu.CoresUsed(), 112e3 / 1e6);
    EXPECT_DOUBLE_EQ(cpu.CoresUsedFor(CpuUse::kDatabase), 2e3 / 1e6);
  }
}

Process OneStatement(Simulation& sim, Database& db, Time work, int who,
                     StepLog& log) {
  const bool ok = co_await db.Statement(work);
  if (ok) log.emplace_back(sim.now(), who);
}

// Requests of a CPU piece, one statement of a process of its own (started
// from the piece's resumption, which goes on after it), 20 short
// statements and a wait.
// With `series`, the 20 statements go as StatementSeries steps, which log
// each statement's end as the next is drawn (the last at the step's end).
Process Thread(Simulation& sim, Cpu& cpu, Database& db, int who, int requests,
               bool series, StepLog& log) {
  std::mt19937_64 rng(1000 + static_cast<uint64_t>(who));
  auto draw = [&rng](Time mean) {
    return static_cast<Time>(rng() % static_cast<uint64_t>(2 * mean)) + 1;
  };
  auto next = [&] {
    log.emplace_back(sim.now(), who);
    return draw(kUs);
  };
  for (int r = 0; r < requests; ++r) {
    co_await cpu.Run(draw(40 * kUs));
    sim.Spawn(OneStatement(sim, db, draw(kUs), -who, log));
    log.emplace_back(sim.now(), who);
    for (int i = 0; i < 20;) {
      if (series) {
        const Database::SeriesStep step =
            co_await db.StatementSeries(draw(kUs), 19 - i, next);
        if (!step.ok) co_return;
        i += static_cast<int>(step.ran);
      } else {
        const bool ok = co_await db.Statement(draw(kUs));
        if (!ok) co_return;
        ++i;
      }
      log.emplace_back(sim.now(), who);
    }
    co_await sim.Delay(draw(30 * kUs));
  }
}

// Another CPU's jobs (a load generator's), whose finishes are that CPU's
// timer: a statement must not run in place past one.
Process Generator(Simulation& sim, Cpu& cpu, int jobs, StepLog& log) {
  std::mt19937_64 rng(7);
  for (int j = 0; j < jobs; ++j) {
    co_await cpu.Run(static_cast<Time>(rng() % (4 * kUs)) + 1);
    log.emplace_back(sim.now(), 100);
    co_await sim.Delay(static_cast<Time>(rng() % (40 * kUs)));
  }
}

// What a run shows, to compare two runs bit for bit.
struct Seen {
  StepLog log;
  std::string status;  // of the second part
  Time now = 0;
  int64_t events = 0;
  double cores = 0, database = 0, other = 0, pool_busy = 0, pool_wait = 0;
  int64_t grants = 0, statements = 0;
  bool operator==(const Seen&) const = default;
};

struct Observed {
  Seen half, end;
  int64_t placed = 0;  // statements run in place
};

// Six threads on three cores and a pool of two, beside the generator: the
// cores saturate at times and the pool queues, so some statements run in
// place and others go through the timer or the pool's queue. Run to a
// horizon that falls between events, then on.
Observed RunThreads(bool in_place, Budget budget, bool series = false) {
  Observed o;
  Simulation sim(budget);
  Cpu cpu(sim, 3);
  if (!in_place) cpu.DisableFinishNowForTesting();
  DatabaseOptions options;
  options.pool = 2;
  Database db(sim, cpu, options);
  Cpu generator(sim, 1);
  StepLog log;
  for (int t = 1; t <= 6; ++t) {
    sim.Spawn(Thread(sim, cpu, db, t, 200, series, log));
  }
  sim.Spawn(Generator(sim, generator, 5000, log));
  auto seen = [&](const absl::Status& status) {
    Seen s;
    s.log = log;
    s.status = status.ToString();
    s.now = sim.now();
    s.events = sim.events_executed();
    s.cores = cpu.CoresUsed();
    s.database = cpu.CoresUsedFor(CpuUse::kDatabase);
    s.other = cpu.CoresUsedFor(CpuUse::kOther);
    const ResourceStats pool = db.pool().Stats();
    s.pool_busy = pool.utilisation;
    s.pool_wait = pool.mean_wait_s;
    s.grants = pool.grants;
    s.statements = db.stats().statements;
    return s;
  };
  o.half = seen(sim.Run(7 * kMs + 1));
  o.end = seen(sim.Run(kSec));
  o.placed = cpu.finished_in_place();
  return o;
}

// In place and not, everything observed is the same to the bit: the order
// of every step, the clock, the counts and the statistics.
TEST(DatabaseTest, RunningStatementsInPlaceChangesNothingObservable) {
  const Observed a = RunThreads(true, {});
  const Observed b = RunThreads(false, {});
  EXPECT_EQ(a.end.statements, 6 * 200 * 21);  // every thread ran to its end
  EXPECT_GT(a.placed, 1000);                  // of the 25,200 statements
  EXPECT_LT(a.placed, a.end.statements);
  EXPECT_EQ(b.placed, 0);
  EXPECT_TRUE(a.half == b.half);
  EXPECT_TRUE(a.end == b.end);
  EXPECT_EQ(a.end.events, b.end.events);
  EXPECT_TRUE(std::is_sorted(
      a.end.log.begin(), a.end.log.end(),
      [](const auto& x, const auto& y) { return x.first < y.first; }));
}

// The same threads with their statements as series: in place, where
// each runs on from the one before, and not, everything is the same.
TEST(DatabaseTest, ASeriesOfStatementsChangesNothingObservable) {
  const Observed a = RunThreads(true, {}, /*series=*/true);
  const Observed b = RunThreads(false, {});
  EXPECT_EQ(a.end.statements, 6 * 200 * 21);
  EXPECT_GT(a.placed, 1000);
  EXPECT_TRUE(a.half == b.half);
  EXPECT_TRUE(a.end == b.end);
}

// A run that breaks its event budget stops at the same event, with the
// same error, whether statements ran in place or not. (Near the pending
// budget nothing runs in place: the check leaves the small array's slack.)
TEST(DatabaseTest, RunningStatementsInPlaceStopsAtTheSameEventBudget) {
  // Budgets ending at each event of a stretch of the second part's 60,000
  // or so, so that some end inside a run of statements in place.
  for (int64_t max = 30'000; max < 30'040; ++max) {
    Budget budget;
    budget.max_events = max;
    const Observed a = RunThreads(true, budget);
    const Observed b = RunThreads(false, budget);
    const Observed c = RunThreads(true, budget, /*series=*/true);
    EXPECT_GT(a.placed, 0);
    EXPECT_TRUE(a.end == b.end) << a.end.status << "\n" << b.end.status;
    EXPECT_TRUE(c.end == b.end) << c.end.status << "\n" << b.end.status;
    EXPECT_NE(a.end.status.find("event budget exceeded"), std::string::npos)
        << a.end.status;
  }
}

}  // namespace
}  // namespace perflab::sim
