#include "sim/engine.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace perflab::sim {
namespace {

Process Log(Simulation& sim, std::vector<std::string>& log, std::string name,
            Time first, Time second) {
  co_await sim.Delay(first);
  log.push_back(name + "@" + std::to_string(sim.now()));
  co_await sim.Delay(second);
  log.push_back(name + "@" + std::to_string(sim.now()));
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
  uint64_t x = 12345;
  for (int i = 0; i < 5000; ++i) {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    const Time t = static_cast<Time>((x >> 33) % 200);
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

}  // namespace
}  // namespace perflab::sim
