#include "sim/engine.h"

#include <algorithm>
#include <cmath>
#include <coroutine>
#include <cstdint>
#include <limits>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "core/random.h"
#include "gtest/gtest.h"
#include "tests/sim/rounding_helpers.h"

namespace perflab::sim {
namespace {

Process Log(Simulation& sim, std::vector<std::string>& log, std::string name,
            Time first, Time second) {
  co_await sim.Delay(first);
  log.push_back(name + "@" + std::to_string(sim.now()));
  co_await sim.Delay(second);
  log.push_back(name + "@" + std::to_string(sim.now()));
}

// CeilNs is std::ceil, as a wait: around every power of two to 2^64,
// around every k + 0.5 and whole k of each binade, the smallest positive
// doubles, and a million values from a fixed generator spread over
// [0, 2^64); 0 at and below zero, kForever from 2^63 on and for NaN.
TEST(CeilNsTest, IsCeilForEveryKindOfValue) {
  std::vector<double> values = {0.0,
                                -0.0,
                                -1.5,
                                std::numeric_limits<double>::denorm_min(),
                                std::numeric_limits<double>::min(),
                                std::numeric_limits<double>::quiet_NaN(),
                                std::numeric_limits<double>::infinity()};
  testing_helpers::AddValuesNearPowersOfTwo(-3, 64, {0, 0.5, -0.5, 1.0, -1.0},
                                            values);
  uint64_t state = 12345;
  for (int i = 0; i < 1'000'000; ++i) {
    state = state * 6364136223846793005u + 1442695040888963407u;
    const double u = static_cast<double>(state >> 11) * 0x1.0p-53;
    values.push_back(std::ldexp(u, static_cast<int>(i % 66) - 2));
  }
  for (const double x : values) {
    Time want;
    if (std::isnan(x) || x >= 0x1.0p63) {
      want = kForever;
    } else if (x <= 0) {
      want = 0;
    } else {
      want = static_cast<Time>(std::ceil(x));
    }
    ASSERT_EQ(CeilNs(x), want) << x;
  }
}

TEST(EngineTest, EventsRunInTimeThenInsertionOrder) {
  Simulation sim;
  std::vector<std::string> log;
  sim.Spawn(Log(sim, log, "a", 10, 5));
  sim.Spawn(Log(sim, log, "b", 10, 0));
  sim.Spawn(Log(sim, log, "c", 3, 12));
  ASSERT_TRUE(sim.Run(100).ok());
  // At 15, c's wake-up was scheduled (at 3) before a's (at 10), so c runs
  // first.
  EXPECT_EQ(log, (std::vector<std::string>{"c@3", "a@10", "b@10", "b@10",
                                           "c@15", "a@15"}));
  EXPECT_EQ(sim.now(), 100);
  EXPECT_EQ(sim.live_processes(), 0);
}

TEST(EngineTest, RunStopsAtTheHorizonAndResumesLater) {
  Simulation sim;
  std::vector<std::string> log;
  sim.Spawn(Log(sim, log, "a", 10, 10));
  ASSERT_TRUE(sim.Run(15).ok());
  EXPECT_EQ(log.size(), 1u);
  EXPECT_EQ(sim.now(), 15);
  ASSERT_TRUE(sim.Run(20).ok());
  EXPECT_EQ(log.size(), 2u);
}

TEST(EngineTest, RunForeverStopsAtTheLastEvent) {
  Simulation sim;
  std::vector<std::string> log;
  sim.Spawn(Log(sim, log, "a", 10, 5));
  ASSERT_TRUE(sim.Run(kForever).ok());
  EXPECT_EQ(sim.now(), 15);
  EXPECT_EQ(log.size(), 2u);
}

Process Forever(Simulation& sim, int64_t& ticks) {
  while (true) {
    co_await sim.Delay(1);
    ++ticks;
  }
}

TEST(EngineTest, SuspendedProcessesAreFreedWithTheSimulation) {
  int64_t ticks = 0;
  {
    Simulation sim;
    for (int i = 0; i < 1000; ++i) sim.Spawn(Forever(sim, ticks));
    ASSERT_TRUE(sim.Run(10).ok());
    EXPECT_EQ(sim.live_processes(), 1000);
  }  // ASan reports a leak here if the frames are not destroyed
  EXPECT_EQ(ticks, 10 * 1000);
}

// The conversions at the clock's ends, with products a double holds exactly
// (so the expected values are exact): 9223372036 s = 2^2 x 2305843009 s, and
// times 10^9 = 2^9 x 5^9 it is a multiple of 2^11, which every double below
// 2^63 (spaced 2^10 there) represents. 9223372036848 ms = 2^4 x
// 576460752303 ms, times 10^6 a multiple of 2^10 likewise. One more second
// or millisecond is past INT64_MAX = 9223372036854775807 ns.
TEST(TimeConversionTest, SecondsAndMillisecondsSaturateAtTheClocksEnds) {
  EXPECT_EQ(SecToNs(9223372036.0), 9223372036000000000);
  EXPECT_EQ(SecToNs(-9223372036.0), -9223372036000000000);
  EXPECT_EQ(SecToNs(9223372037.0), kForever);
  EXPECT_EQ(SecToNs(-9223372037.0), INT64_MIN);
  EXPECT_EQ(MsToNs(9223372036848.0), 9223372036848000000);
  EXPECT_EQ(MsToNs(-9223372036848.0), -9223372036848000000);
  EXPECT_EQ(MsToNs(9223372036855.0), kForever);
  EXPECT_EQ(MsToNs(-9223372036855.0), INT64_MIN);
  // Far past the ends, and a product that overflows the double itself.
  EXPECT_EQ(SecToNs(1e300), kForever);
  EXPECT_EQ(MsToNs(-1e300), INT64_MIN);
  EXPECT_EQ(MsToNs(std::numeric_limits<double>::max()), kForever);
  EXPECT_EQ(SecToNs(std::numeric_limits<double>::infinity()), kForever);
  EXPECT_EQ(SecToNs(-std::numeric_limits<double>::infinity()), INT64_MIN);
  EXPECT_EQ(MsToNs(std::numeric_limits<double>::quiet_NaN()), 0);
  // Inside: 0.25 s and 1 ms, exact in binary.
  EXPECT_EQ(MsToNs(1.0), 1000000);
  EXPECT_EQ(SecToNs(0.25), 250000000);
}

TEST(EngineTest, EventBudgetStopsTheRunWithAClearError) {
  Budget b;
  b.max_events = 1000;
  Simulation sim(b);
  int64_t ticks = 0;
  sim.Spawn(Forever(sim, ticks));
  absl::Status s = sim.Run(1'000'000);
  EXPECT_EQ(s.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_NE(s.message().find("event budget"), std::string::npos);
  EXPECT_LE(ticks, 1001);
}

Process Spawner(Simulation& sim, int64_t& ticks) {
  while (true) {
    co_await sim.Delay(1);
    sim.Spawn(Forever(sim, ticks));
  }
}

TEST(EngineTest, PendingBudgetStopsRunawayGrowth) {
  Budget b;
  b.max_pending = 5000;
  Simulation sim(b);
  int64_t ticks = 0;
  sim.Spawn(Spawner(sim, ticks));
  absl::Status s = sim.Run(1'000'000);
  EXPECT_EQ(s.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_NE(s.message().find("max_pending"), std::string::npos);
  EXPECT_LE(sim.live_processes(), 5001);
}

Process Parked(Latch& latch) { co_await latch.Wait(); }

Process ParkOnePerNs(Simulation& sim, Latch& latch) {
  while (true) {
    co_await sim.Delay(1);
    sim.Spawn(Parked(latch));
  }
}

// Processes parked on a latch hold no event, so only the live count grows:
// after the event at t = k ns, k parked + the spawner + its next delay make
// k + 2, which first exceeds 100 at k = 99.
TEST(EngineTest, PendingBudgetCountsLiveProcessesAtTheEventThatCrossesIt) {
  Budget b;
  b.max_pending = 100;
  Simulation sim(b);
  Latch latch(sim, 1);
  sim.Spawn(ParkOnePerNs(sim, latch));
  absl::Status s = sim.Run(1'000'000);
  EXPECT_EQ(s.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(sim.now(), 99);
  EXPECT_EQ(sim.live_processes(), 100);
  EXPECT_NE(s.message().find("1 pending events + 100 live"), std::string::npos)
      << s.message();
}

Process Waiter(Simulation& sim, Latch& latch, Time& woke) {
  co_await latch.Wait();
  woke = sim.now();
}
Process Finisher(Simulation& sim, Latch& latch, Time at) {
  co_await sim.Delay(at);
  latch.Done();
}

TEST(EngineTest, LatchResumesWhenTheLastPartyIsDone) {
  Simulation sim;
  Latch latch(sim, 3);
  Time woke = -1;
  sim.Spawn(Waiter(sim, latch, woke));
  for (Time t : {5, 9, 7}) sim.Spawn(Finisher(sim, latch, t));
  ASSERT_TRUE(sim.Run(100).ok());
  EXPECT_EQ(woke, 9);
}

TEST(EngineTest, HeapOrdersManyEventsLikeASortedList) {
  // Pseudo-random times with many ties: the callbacks must fire sorted by
  // (time, insertion order).
  Simulation sim;
  std::vector<std::pair<Time, int>> fired;
  struct Ctx {
    Simulation* sim;
    std::vector<std::pair<Time, int>>* fired;
  } ctx{&sim, &fired};
  std::vector<std::pair<Time, int>> expected;
  core::SplitMix64 rng(12345);
  for (int i = 0; i < 5000; ++i) {
    const Time t = static_cast<Time>(rng.Below(200));
    expected.emplace_back(t, i);
    sim.Schedule(
        t,
        [](void* c, uint64_t arg) {
          auto* cx = static_cast<Ctx*>(c);
          cx->fired->push_back({cx->sim->now(), static_cast<int>(arg)});
        },
        &ctx, static_cast<uint64_t>(i));
  }
  std::stable_sort(expected.begin(), expected.end(),
                   [](auto& a, auto& b) { return a.first < b.first; });
  ASSERT_TRUE(sim.Run(1000).ok());
  EXPECT_EQ(fired, expected);
}

// An event for now queued after a run ended is still due at now: a run to
// an earlier horizon leaves it, the next run to now or later fires it.
TEST(EngineTest, AnEventForNowWaitsForARunThatReachesNow) {
  Simulation sim;
  int fired = 0;
  ASSERT_TRUE(sim.Run(100).ok());
  sim.Schedule(
      sim.now(), [](void* c, uint64_t) { ++*static_cast<int*>(c); }, &fired);
  EXPECT_EQ(sim.pending_events(), 1u);
  ASSERT_TRUE(sim.Run(50).ok());
  EXPECT_EQ(fired, 0);
  ASSERT_TRUE(sim.Run(100).ok());
  EXPECT_EQ(fired, 1);
  EXPECT_EQ(sim.pending_events(), 0u);
}

// Two timers: the first one moved past the other, then cleared and set
// again; each fires at its own latest time, earliest first.
TEST(EngineTest, TimersFireAtTheirLatestTimesEarliestFirst) {
  struct Log {
    Simulation* sim;
    std::vector<std::pair<Time, int>> fired;
  };
  Simulation sim;
  Log log{&sim, {}};
  const Simulation::TimerId a = sim.AddTimer(
      [](void* c, uint64_t) {
        auto* l = static_cast<Log*>(c);
        l->fired.emplace_back(l->sim->now(), 0);
      },
      &log);
  const Simulation::TimerId b = sim.AddTimer(
      [](void* c, uint64_t) {
        auto* l = static_cast<Log*>(c);
        l->fired.emplace_back(l->sim->now(), 1);
      },
      &log);
  sim.SetTimer(a, 10, sim.TakeSeq());
  sim.SetTimer(b, 20, sim.TakeSeq());
  sim.SetTimer(a, 30, sim.TakeSeq());  // a was first; b is now
  EXPECT_EQ(sim.pending_events(), 2u);
  ASSERT_TRUE(sim.Run(25).ok());
  sim.SetTimer(b, 40, sim.TakeSeq());
  sim.ClearTimer(a);  // a was first again; b is now
  sim.SetTimer(a, 35, sim.TakeSeq());
  ASSERT_TRUE(sim.Run(kForever).ok());
  EXPECT_EQ(log.fired,
            (std::vector<std::pair<Time, int>>{{20, 1}, {35, 0}, {40, 1}}));
  EXPECT_EQ(sim.pending_events(), 0u);
}

// The only timer set, moved later twice (SetTimer skips the search for the
// first timer when no other is set): it fires once, at its last time, after
// a plain event that its first time preceded.
TEST(EngineTest, LoneTimerMovedLaterFiresAtItsLastTime) {
  struct Log {
    Simulation* sim;
    std::vector<std::pair<Time, int>> fired;
  };
  Simulation sim;
  Log log{&sim, {}};
  const Simulation::TimerId t = sim.AddTimer(
      [](void* c, uint64_t) {
        auto* l = static_cast<Log*>(c);
        l->fired.emplace_back(l->sim->now(), 0);
      },
      &log);
  sim.AddTimer([](void*, uint64_t) {}, nullptr);  // never set
  sim.SetTimer(t, 10, sim.TakeSeq());
  sim.Schedule(
      20,
      [](void* c, uint64_t) {
        auto* l = static_cast<Log*>(c);
        l->fired.emplace_back(l->sim->now(), 1);
      },
      &log);
  sim.SetTimer(t, 25, sim.TakeSeq());
  sim.SetTimer(t, 30, sim.TakeSeq());
  ASSERT_TRUE(sim.Run(kForever).ok());
  EXPECT_EQ(log.fired, (std::vector<std::pair<Time, int>>{{20, 1}, {30, 0}}));
  EXPECT_EQ(sim.pending_events(), 0u);
}

// A timer and a plain event at the same time run in seq order, whichever
// was set first (the timer marks 0 in the log, the event 1).
std::vector<int> TieAtTen(bool timer_first) {
  std::vector<int> order;
  Simulation sim;
  const Simulation::TimerId t = sim.AddTimer(
      [](void* c, uint64_t) {
        static_cast<std::vector<int>*>(c)->push_back(0);
      },
      &order);
  const EventFn event = [](void* c, uint64_t) {
    static_cast<std::vector<int>*>(c)->push_back(1);
  };
  if (timer_first) sim.SetTimer(t, 10, sim.TakeSeq());
  sim.Schedule(10, event, &order);
  if (!timer_first) sim.SetTimer(t, 10, sim.TakeSeq());
  EXPECT_TRUE(sim.Run(kForever).ok());
  return order;
}

TEST(EngineTest, ATimerAndAnEventAtTheSameTimeRunInSeqOrder) {
  EXPECT_EQ(TieAtTen(true), (std::vector<int>{0, 1}));
  EXPECT_EQ(TieAtTen(false), (std::vector<int>{1, 0}));
}

// Events that schedule events while the run is under way, some for now in
// the newest position (the engine's fast path), some for later, some in a
// position reserved earlier with TakeSeq, and two timers moved or cleared
// at random (a CPU's next finish): each event that fires must be the first
// of a plain ordered set of (time, seq) kept in lockstep.
TEST(EngineTest, EventsScheduledWhileRunningKeepTimeThenSeqOrder) {
  struct World {
    Simulation sim;
    std::set<std::tuple<Time, uint64_t, int>> ref;   // pending, by (time, seq)
    std::vector<std::pair<uint64_t, int>> reserved;  // (seq, id) not yet used
    int fired = 0;
    int out_of_order = 0;
    int next_id = 0;
    // Timer k fires as id -1 - k (its own callback says which).
    Simulation::TimerId timer[2] = {
        sim.AddTimer([](void* c, uint64_t) { Fire(c, AsArg(-1)); }, this),
        sim.AddTimer([](void* c, uint64_t) { Fire(c, AsArg(-2)); }, this)};
    // Each timer's entry in ref while it is set.
    std::optional<std::tuple<Time, uint64_t, int>> timer_ref[2];
    core::SplitMix64 rng{99};
    uint64_t Draw(uint64_t n) { return rng.Below(n); }
    static uint64_t AsArg(int id) {
      return static_cast<uint64_t>(static_cast<int64_t>(id));
    }
    void Add(Time at, uint64_t seq, int id) {
      sim.ScheduleAs(at, seq, &Fire, this, AsArg(id));
      ref.insert({at, seq, id});
    }
    static void Fire(void* ctx, uint64_t arg) {
      auto* w = static_cast<World*>(ctx);
      const auto first = *w->ref.begin();
      w->ref.erase(w->ref.begin());
      const int id = std::get<2>(first);
      if (id < 0) w->timer_ref[-1 - id].reset();
      if (std::get<0>(first) != w->sim.now() || AsArg(id) != arg) {
        ++w->out_of_order;
      }
      if (w->next_id >= 20000) return;
      const int k = static_cast<int>(w->Draw(2));
      switch (w->Draw(3)) {
        case 0:  // move timer k, maybe to now
          if (w->timer_ref[k]) w->ref.erase(*w->timer_ref[k]);
          w->timer_ref[k] = {w->sim.now() + static_cast<Time>(w->Draw(3)),
                             w->sim.TakeSeq(), -1 - k};
          w->sim.SetTimer(w->timer[k], std::get<0>(*w->timer_ref[k]),
                          std::get<1>(*w->timer_ref[k]));
          w->ref.insert(*w->timer_ref[k]);
          break;
        case 1:  // clear it
          if (w->timer_ref[k]) w->ref.erase(*w->timer_ref[k]);
          w->timer_ref[k].reset();
          w->sim.ClearTimer(w->timer[k]);
          break;
        default:
          break;
      }
      ++w->fired;
      for (uint64_t k = 1 + w->Draw(2); k > 0; --k) {
        const int id = w->next_id++;
        switch (w->Draw(4)) {
          case 0:
          case 1:  // now, newest position
            w->Add(w->sim.now(), w->sim.TakeSeq(), id);
            break;
          case 2:  // later
            w->Add(w->sim.now() + 1 + static_cast<Time>(w->Draw(5)),
                   w->sim.TakeSeq(), id);
            break;
          default:  // reserve a position now, use it at a later event
            w->reserved.emplace_back(w->sim.TakeSeq(), id);
        }
      }
      if (!w->reserved.empty() && w->Draw(2) == 0) {
        const auto [seq, id] = w->reserved.front();
        w->reserved.erase(w->reserved.begin());
        w->Add(w->sim.now() + static_cast<Time>(w->Draw(2)), seq, id);
      }
    }
  };
  World w;
  for (int i = 0; i < 4; ++i) w.Add(0, w.sim.TakeSeq(), w.next_id++);
  ASSERT_TRUE(w.sim.Run(kForever).ok());
  // Each counted firing hands out one or two of the 20,000 ids, so reaching
  // them all takes more than 10,000 firings (unless every one drew two); a
  // run that died out early, with nothing left pending, counts fewer.
  EXPECT_GT(w.fired, 10000);
  EXPECT_EQ(w.out_of_order, 0);
  EXPECT_TRUE(w.ref.empty());
}

// A resumption for now, asked for the way Gc::Safepoint asks: go on at
// once if ContinueNow() allows it (recorded), else schedule it like
// Delay(0), after every event already due now.
struct YieldNow {
  Simulation* sim;
  std::vector<bool>* answers;
  bool await_ready() {
    const bool now = sim->ContinueNow();
    answers->push_back(now);
    return now;
  }
  void await_suspend(std::coroutine_handle<> h) {
    sim->Delay(0).await_suspend(h);
  }
  void await_resume() {}
};

Process Yielder(Simulation& sim, std::vector<std::string>& log,
                std::vector<bool>& answers, std::string name, Time at,
                bool stop = false) {
  co_await sim.Delay(at);
  log.push_back(name + "1");
  if (stop) sim.Stop();
  co_await YieldNow{&sim, &answers};
  log.push_back(name + "2");
}

// By hand: A's and B's events are both due at 10, A's first. A's
// continuation must wait for B's event (due now), and B's for A's
// continuation, as Delay(0) would order them; only a resumption with
// nothing else due now goes on at once.
TEST(EngineTest, ContinueNowKeepsTheOrderOfEventsDueNow) {
  Simulation sim;
  std::vector<std::string> log;
  std::vector<bool> answers;
  sim.Spawn(Yielder(sim, log, answers, "A", 10));
  sim.Spawn(Yielder(sim, log, answers, "B", 10));
  sim.Spawn(Yielder(sim, log, answers, "C", 20));
  ASSERT_TRUE(sim.Run(100).ok());
  EXPECT_EQ(log,
            (std::vector<std::string>{"A1", "B1", "A2", "B2", "C1", "C2"}));
  // A: B due; B: A's continuation due; C: nothing else due at 20.
  EXPECT_EQ(answers, (std::vector<bool>{false, false, true}));
  // Events: A, B, A2, B2 at 10, C and its inline continuation at 20.
  EXPECT_EQ(sim.events_executed(), 6);
}

Process Child(Simulation& sim, std::vector<std::string>& log,
              std::vector<bool>& answers) {
  log.emplace_back("C1");
  co_await YieldNow{&sim, &answers};
  log.emplace_back("C2");
}

Process Spawner(Simulation& sim, std::vector<std::string>& log,
                std::vector<bool>& answers) {
  co_await sim.Delay(10);
  sim.Spawn(Child(sim, log, answers));
  log.emplace_back("P");
}

// A process spawned inside an event runs to its first suspension within
// Spawn; its resumption for now must come after the rest of the spawner's
// event (P), which a continuation at once would overtake.
TEST(EngineTest, ContinueNowRefusesInsideSpawnAndOutsideRun) {
  Simulation sim;
  std::vector<std::string> log;
  std::vector<bool> answers;
  sim.Spawn(Spawner(sim, log, answers));
  ASSERT_TRUE(sim.Run(100).ok());
  EXPECT_EQ(log, (std::vector<std::string>{"C1", "P", "C2"}));
  EXPECT_EQ(answers, (std::vector<bool>{false}));
  EXPECT_FALSE(sim.ContinueNow());  // not inside Run
}

// A stop asked for in the event ends the run before the next event, so the
// continuation waits for the next Run.
TEST(EngineTest, ContinueNowRefusesOnceTheRunIsStopping) {
  Simulation sim;
  std::vector<std::string> log;
  std::vector<bool> answers;
  sim.Spawn(Yielder(sim, log, answers, "A", 10, /*stop=*/true));
  ASSERT_TRUE(sim.Run(100).ok());
  EXPECT_EQ(log, (std::vector<std::string>{"A1"}));
  ASSERT_TRUE(sim.Run(100).ok());
  EXPECT_EQ(log, (std::vector<std::string>{"A1", "A2"}));
  EXPECT_EQ(answers, (std::vector<bool>{false}));
}

Process FarAway(Simulation& sim, std::vector<Time>& at) {
  co_await sim.Delay(10);
  at.push_back(sim.now());
  co_await sim.Delay(kForever - 5);  // now + this passes INT64_MAX
  at.push_back(sim.now());
}

Process LongAgo(Simulation& sim, std::vector<Time>& at) {
  co_await sim.Delay(10);
  co_await sim.Until(INT64_MIN);  // the past: runs now
  at.push_back(sim.now());
}

// A delay past the clock's end is never reached, not wrapped into the past
// (which would run it at once); a time far in the past runs now, not
// wrapped into the far future.
TEST(EngineTest, DelaysSaturateAtTheEndsOfTheClock) {
  Simulation sim;
  std::vector<Time> far, ago;
  sim.Spawn(FarAway(sim, far));
  sim.Spawn(LongAgo(sim, ago));
  ASSERT_TRUE(sim.Run(1'000'000).ok());
  EXPECT_EQ(far, (std::vector<Time>{10}));
  EXPECT_EQ(ago, (std::vector<Time>{10}));
  EXPECT_EQ(SaturatingAdd(kForever - 5, 10), kForever);
  EXPECT_EQ(SaturatingAdd(INT64_MIN + 5, -10), INT64_MIN);
  EXPECT_EQ(SaturatingAdd(40, -50), -10);
}

}  // namespace
}  // namespace perflab::sim
