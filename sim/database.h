// A database reached through a connection pool (Hikari in front of an
// embedded H2 or a networked server): each statement takes a pooled
// connection (waiting up to the pool's timeout), pays the network round trip
// if the database is across a network, runs its CPU on the application's
// cores while holding the connection (an embedded database executes inside
// the application's process), and gives the connection back. Counts
// statements and timeouts; waits respect a Gc's stop-the-world pauses.
// Single-threaded, like the Simulation it belongs to.
#ifndef PERFLAB_SIM_DATABASE_H_
#define PERFLAB_SIM_DATABASE_H_

#include <coroutine>
#include <cstdint>
#include <vector>

#include "core/case_study.h"
#include "sim/cpu.h"
#include "sim/engine.h"
#include "sim/gc.h"
#include "sim/pooled_client.h"
#include "sim/task.h"

namespace perflab::sim {

struct DatabaseOptions {
  int64_t pool = 4;  // pooled connections
  // Longest wait for a connection (Hikari's connectionTimeout).
  Time acquire_timeout = static_cast<Time>(case_study::kDbTimeoutMs * kMs);
  Time round_trip = 0;  // network per statement (0: an embedded database)
};

struct DatabaseStats {
  int64_t statements = 0;  // statements run to completion
  int64_t timeouts = 0;    // statements that got no connection in time
};

class Database : public PooledClient<DatabaseOptions, DatabaseStats> {
 public:
  // `cpu` runs the statements' CPU; `gc` (optional) holds waits that end
  // during a pause until it is over.
  Database(Simulation& sim, Cpu& cpu, DatabaseOptions options, Gc* gc = nullptr)
      : PooledClient(sim, options, "db connections", options.pool, &cpu, gc) {}

  // co_await db.Statement(cpu_work, hold, thread) -> bool: one statement of
  // `cpu_work` ns of CPU and `hold` ns more of holding its connection
  // without CPU (waits inside the database); false if no connection came in
  // time. The CPU is a job of `thread` (Cpu::Run).
  class StatementAwaiter;
  StatementAwaiter Statement(Time cpu_work, Time hold = 0, uint64_t thread = 0);
  // Statements of `cpu_works` ns each on one connection borrowed once, held
  // `hold` ns more after the last; false if no connection came in time.
  Task<bool> Statements(std::vector<Time> cpu_works, Time hold = 0,
                        uint64_t thread = 0);
  // co_await db.StatementSeries(cpu_work, more, next, hold, thread) ->
  // SeriesStep: Statement(cpu_work, hold, thread), then, while each would
  // run in place (the very next event, see StatementAwaiter), up to `more`
  // further statements of `next()` ns each, drawn as each starts, exactly
  // as a loop of Statement() would run them. A caller's loop over a page
  // of statements goes on after the `ran` it reports; the one statement
  // that could not run in place, if any, ran the usual way and is among
  // them. `next` must not touch the simulation (a draw of a work time).
  struct SeriesStep {
    int64_t ran = 0;  // statements run, the last the one that failed if !ok
    bool ok = true;   // false: the last one got no connection in time
  };
  template <typename Next>
  class SeriesAwaiter;
  template <typename Next>
  SeriesAwaiter<Next> StatementSeries(Time cpu_work, int64_t more, Next next,
                                      Time hold = 0, uint64_t thread = 0);

 private:
  // The whole story as a coroutine: a wait for the pool or the safepoint,
  // a round trip, a hold.
  Task<bool> StatementTask(Time cpu_work, Time hold, uint64_t thread);
};

// Most statements of an embedded database find a free connection and no
// pause: they take it, run their CPU as a job that resumes the caller, and
// give it back as the caller resumes, which is what StatementTask does step
// for step, without a coroutine frame of its own. Anything else runs
// StatementTask. The checks come before the first change of state, so the
// task, when it runs, finds everything as it would have. A statement
// started from a resumption by the CPU's tick (the next of a page's N+1)
// whose CPU would be the very next event does not even suspend: the CPU
// runs it in place (Cpu::FinishNow) and the caller goes on at its end.
class Database::StatementAwaiter {
 public:
  StatementAwaiter(Database* db, Time cpu_work, Time hold, uint64_t thread)
      : db_(db), work_(cpu_work), hold_(hold), thread_(thread) {}
  // With a free connection, the CPU job may be the very next event (a
  // statement after a statement, resumed by the CPU's tick): then it runs
  // in place (Cpu::FinishNow) and the caller goes on without suspending.
  [[gnu::always_inline]] bool await_ready() {
    Database& db = *db_;
    const Resource& pool = db.pool_;
    // Not under the time-sliced CPU: a thread's finished job holds its core
    // until a tick due now, so the safepoint never goes on at once there
    // and the checks would only cost (correct either way).
    free_ = db.cpu_->discipline() == CpuDiscipline::kProcessorSharing &&
            hold_ == 0 && db.options_.round_trip <= 0 &&
            pool.in_use() < pool.capacity() && pool.queued() == 0 &&
            db.SafepointReady();
    if (!free_) return false;
    horizon_ = db.cpu_->FinishNowHorizon();
    return RunInPlace();
  }
  // After this statement ran in place, the next of a series: the checks
  // above still hold (nothing but it ran), so only the next one's finish
  // is checked. If it runs in place too, this one's connection goes
  // straight to it: a release and a grant at the same instant with no one
  // waiting, which leave the pool's busy units as they were. Otherwise
  // this one ends as await_resume ends it, and the next goes the usual
  // way (await_suspend).
  [[gnu::always_inline]] bool ContinueWith(Time cpu_work) {
    work_ = cpu_work;
    Database& db = *db_;
    const Time at = db.cpu_->FinishNowAt(work_, horizon_);
    if (at < 0) {
      await_resume();
      return false;
    }
    ++db.stats_.statements;
    db.pool_.Regrant();
    db.cpu_->FinishNow(CpuUse::kDatabase, at);
    return true;
  }
  [[gnu::always_inline]] std::coroutine_handle<> await_suspend(
      std::coroutine_handle<> h) {
    Database& db = *db_;
    if (free_) {
      db.pool_.Acquire().await_ready();  // grants: a connection is free
      Cpu::JobAwaiter run = db.cpu_->Run(work_, CpuUse::kDatabase,
                                         Cpu::kDefaultWorkingSet, thread_);
      if (run.await_ready()) return h;
      run.await_suspend(h);
      return std::noop_coroutine();
    }
    task_ = db.StatementTask(work_, hold_, thread_);
    return task_.await_suspend(h);
  }
  [[gnu::always_inline]] bool await_resume() {
    if (task_.has_coroutine()) return task_.await_resume();
    ++db_->stats_.statements;
    db_->pool_.Release();
    return true;
  }

 private:
  Database* db_;
  Time work_;
  Time hold_;
  uint64_t thread_;
  bool free_ = false;  // a connection free at once, no pause, no waits
  Time horizon_ = 0;   // with free_: Cpu::FinishNowHorizon() then
  Task<bool> task_;    // holds StatementTask only off the fast path

  [[gnu::always_inline]] bool RunInPlace() {
    Database& db = *db_;
    const Time at = db.cpu_->FinishNowAt(work_, horizon_);
    if (at < 0) return false;
    db.pool_.Acquire().await_ready();  // grants: a connection is free
    db.cpu_->FinishNow(CpuUse::kDatabase, at);
    return true;
  }
};

// StatementAwaiter's in-place path in a loop: each statement that runs in
// place is followed by the next of the series, drawn there and then, so a
// page of N+1 statements mostly costs one suspension of its caller. The
// first that cannot run in place goes through StatementAwaiter's other
// paths, and the series' step ends with it.
template <typename Next>
class Database::SeriesAwaiter {
 public:
  SeriesAwaiter(Database* db, Time cpu_work, int64_t more, Next next, Time hold,
                uint64_t thread)
      : statement_(db, cpu_work, hold, thread), more_(more), next_(next) {}
  bool await_ready() {
    if (!statement_.await_ready()) return false;
    for (;;) {
      ++ran_;
      if (more_ == 0) break;
      --more_;
      if (!statement_.ContinueWith(next_())) return false;
    }
    statement_.await_resume();
    return true;
  }
  std::coroutine_handle<> await_suspend(std::coroutine_handle<> h) {
    suspended_ = true;
    return statement_.await_suspend(h);
  }
  SeriesStep await_resume() {
    // The ones run in place were resumed as they ended (counted, their
    // connections returned); the one that suspended is resumed here.
    if (!suspended_) return {ran_, true};
    return {ran_ + 1, statement_.await_resume()};
  }

 private:
  StatementAwaiter statement_;
  int64_t more_;
  Next next_;
  int64_t ran_ = 0;  // run in place
  bool suspended_ = false;
};

inline Database::StatementAwaiter Database::Statement(Time cpu_work, Time hold,
                                                      uint64_t thread) {
  return {this, cpu_work, hold, thread};
}

template <typename Next>
Database::SeriesAwaiter<Next> Database::StatementSeries(Time cpu_work,
                                                        int64_t more, Next next,
                                                        Time hold,
                                                        uint64_t thread) {
  return {this, cpu_work, more, next, hold, thread};
}

}  // namespace perflab::sim

#endif  // PERFLAB_SIM_DATABASE_H_
