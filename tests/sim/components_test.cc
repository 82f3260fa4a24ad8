#include <vector>

#include "gtest/gtest.h"
#include "sim/cpu.h"
#include "sim/engine.h"
#include "sim/load.h"
#include "sim/measure.h"
#include "sim/resource.h"
#include "sim/task.h"

namespace perflab::sim {
namespace {

Process Holder(Simulation& sim, Resource& r, Time arrive, Time hold,
               Time timeout, std::vector<int>& order, int id,
               std::vector<bool>& got) {
  co_await sim.Delay(arrive);
  const bool ok = co_await r.Acquire(timeout);
  got[id] = ok;
  if (!ok) co_return;
  order.push_back(id);
  co_await sim.Delay(hold);
  r.Release();
}

TEST(ResourceTest, GrantsInFifoOrder) {
  Simulation sim;
  Resource r(sim, "pool", 1);
  std::vector<int> order;
  std::vector<bool> got(4);
  for (int i = 0; i < 4; ++i) {
    sim.Spawn(Holder(sim, r, i, 10, Resource::kNoTimeout, order, i, got));
  }
  ASSERT_TRUE(sim.Run(1000).ok());
  EXPECT_EQ(order, (std::vector<int>{0, 1, 2, 3}));
  const ResourceStats s = r.Stats();
  EXPECT_EQ(s.grants, 4);
  EXPECT_EQ(s.timeouts, 0);
  // Waits 0, 9, 18, 27 ns: mean 13.5 ns.
  EXPECT_NEAR(s.mean_wait_s * 1e9, 13.5, 1e-9);
  EXPECT_NEAR(s.utilisation, 40.0 / 1000, 1e-12);
}

TEST(ResourceTest, TimedOutAcquireIsCountedWithItsWait) {
  Simulation sim;
  Resource r(sim, "pool", 1);
  std::vector<int> order;
  std::vector<bool> got(3);
  sim.Spawn(Holder(sim, r, 0, 100, 50, order, 0, got));  // holds 0..100
  sim.Spawn(Holder(sim, r, 10, 5, 50, order, 1, got));   // gives up at 60
  sim.Spawn(Holder(sim, r, 20, 5, 200, order, 2, got));  // gets it at 100
  ASSERT_TRUE(sim.Run(1000).ok());
  EXPECT_EQ(got, (std::vector<bool>{true, false, true}));
  EXPECT_EQ(order, (std::vector<int>{0, 2}));
  const ResourceStats s = r.Stats();
  EXPECT_EQ(s.timeouts, 1);
  EXPECT_EQ(s.first_timeout, 60);
  EXPECT_NEAR(s.timed_out_wait_s * 1e9, 50, 1e-9);
  EXPECT_EQ(s.max_queue_length, 2);
  // Queue: one waiter 10..20, two 20..60, one 60..100 over 1000 ns.
  EXPECT_NEAR(s.mean_queue_length, (10 + 80 + 40) / 1000.0, 1e-12);
}

Process CpuJob(Simulation& sim, Cpu& cpu, Time at, Time work, Time& done) {
  co_await sim.Delay(at);
  co_await cpu.Run(work);
  done = sim.now();
}

TEST(CpuTest, ProcessorSharingSlowsJobsOnceCoresAreSaturated) {
  Simulation sim;
  Cpu cpu(sim, 2);
  Time done[4] = {};
  // Four 100 ns jobs on two cores: each gets half a core, all end at 200.
  for (int i = 0; i < 4; ++i) sim.Spawn(CpuJob(sim, cpu, 0, 100, done[i]));
  ASSERT_TRUE(sim.Run(1000).ok());
  for (Time d : done) EXPECT_EQ(d, 200);
  EXPECT_NEAR(cpu.CoresUsed(), 2.0 * 200 / 1000, 1e-9);
}

TEST(CpuTest, LateArrivalSharesTheRemainingWork) {
  Simulation sim;
  Cpu cpu(sim, 1);
  Time a = 0, b = 0;
  sim.Spawn(CpuJob(sim, cpu, 0, 100, a));  // alone for 50, then half speed
  sim.Spawn(CpuJob(sim, cpu, 50, 100, b));
  ASSERT_TRUE(sim.Run(1000).ok());
  EXPECT_EQ(a, 150);  // 50 alone + 50 remaining at half speed
  EXPECT_EQ(b, 200);  // 50 at half speed by 150, then 50 alone
}

TEST(FreezesTest, WorkSkipsFrozenTime) {
  Freezes f;
  f.Add(100, 200);
  EXPECT_EQ(f.Finish(0, 50), 50);
  EXPECT_EQ(f.Finish(90, 20), 210);  // 10 before, 10 after the freeze
  EXPECT_EQ(f.Finish(100, 5), 205);  // arrives as it starts
  EXPECT_EQ(f.Finish(150, 5), 205);
  EXPECT_EQ(f.Finish(200, 5), 205);
  EXPECT_EQ(f.Thaw(150), 200);
  EXPECT_EQ(f.Thaw(250), 250);
}

TEST(LatencyRecorderTest, ExactNearestRankThenHistogramPastTheLimit) {
  LatencyRecorder exact(1000);
  for (int i = 1; i <= 1000; ++i) exact.Record(i * kMs);
  EXPECT_TRUE(exact.Exact());
  EXPECT_DOUBLE_EQ(exact.PercentileMs(99), 990);
  EXPECT_DOUBLE_EQ(exact.PercentileMs(99.9), 999);
  EXPECT_DOUBLE_EQ(exact.PercentileMs(50), 500);
  EXPECT_DOUBLE_EQ(exact.MeanMs(), 500.5);
  LatencyRecorder small(10);
  for (int i = 1; i <= 1000; ++i) small.Record(i * kMs);
  EXPECT_FALSE(small.Exact());
  EXPECT_NEAR(small.PercentileMs(99), 990, 990 * 1e-3);
  EXPECT_DOUBLE_EQ(small.MeanMs(), 500.5);
}

Process Visitor(Simulation& sim, Meter& m, Time at, Time stay) {
  co_await sim.Delay(at);
  const Time start = sim.now();
  m.Begin();
  co_await sim.Delay(stay);
  m.End(start);
}

TEST(MeterTest, WindowAndSampledInFlight) {
  Simulation sim;
  MeterOptions o;
  o.warmup = 20 * kMs;
  o.window = 100 * kMs;
  o.sample_period = 5 * kMs;
  Meter m(sim, o);
  // One visitor arriving every 5 ms (on the sample instants) staying 20 ms:
  // 4 in flight at every instant once started; arrivals and departures that
  // coincide with a sample must not change what it sees.
  for (int i = 0; i < 40; ++i)
    sim.Spawn(Visitor(sim, m, Time{i} * 5 * kMs, 20 * kMs));
  ASSERT_TRUE(sim.Run(200 * kMs).ok());
  const Summary s = m.Summarise();
  EXPECT_DOUBLE_EQ(s.l_sampled, 4);
  EXPECT_DOUBLE_EQ(s.mean_ms, 20);
  EXPECT_EQ(s.completed, 20);  // completions at 20, 25, ..., 115 ms
  EXPECT_DOUBLE_EQ(s.throughput_per_s, 200);
}

// The steady check's L is the exact time average, not the periodic samples:
// one visitor every 25 ms staying 6 ms is in flight 6 / 25 = 0.24 of the
// time, while a 5 ms sampler sees only the phases 0, 5, 10, 15 and 20 ms of
// each period: at 0 an arrival coincides (counted as a half), at 5 the
// visitor is in, at 10-20 nobody: (1/2 + 1) / 5 = 0.3.
TEST(MeterTest, SteadyWindowLIsTheTimeAverageNotTheAliasedSamples) {
  Simulation sim;
  MeterOptions o;
  o.warmup = 100 * kMs;
  o.window = 1000 * kMs;
  o.sample_period = 5 * kMs;
  Meter m(sim, o);
  for (int i = 0; i < 60; ++i)
    sim.Spawn(Visitor(sim, m, Time{i} * 25 * kMs, 6 * kMs));
  ASSERT_TRUE(sim.Run(1200 * kMs).ok());
  EXPECT_NEAR(m.SteadyWindow().l_mean, 0.24, 1e-12);
  EXPECT_NEAR(m.Summarise().l_sampled, 0.3, 1e-12);  // aliased samples
}

Task<bool> Work(Simulation& sim, Time t) {
  co_await sim.Delay(t);
  co_return true;
}

TEST(LoadTest, ClosedLoopThroughputIsClientsOverCycleTime) {
  Simulation sim;
  MeterOptions o;
  o.warmup = kSec;
  o.window = 10 * kSec;
  Meter m(sim, o);
  LoadOptions load;
  load.clients = 8;
  load.think = 30 * kMs;
  StartLoad(
      sim, m, load, [&sim] { return Work(sim, 20 * kMs); }, 1);
  ASSERT_TRUE(sim.Run(m.window_end()).ok());
  const Summary s = m.Summarise();
  EXPECT_NEAR(s.throughput_per_s, 8 / 0.050, 1);  // N / (R + Z)
  EXPECT_DOUBLE_EQ(s.mean_ms, 20);
  EXPECT_NEAR(s.l_sampled, 8 * 20.0 / 50, 0.01);  // clients in the handler
}

TEST(LoadTest, OpenLoopArrivalsKeepTheirRate) {
  for (auto kind :
       {LoadOptions::Kind::kConstant, LoadOptions::Kind::kPoisson}) {
    Simulation sim;
    MeterOptions o;
    o.window = 20 * kSec;
    Meter m(sim, o);
    LoadOptions load;
    load.kind = kind;
    load.rate_per_s = 500;
    StartLoad(
        sim, m, load, [&sim] { return Work(sim, 100 * kMs); }, 2);
    ASSERT_TRUE(sim.Run(m.window_end()).ok());
    const Summary s = m.Summarise();
    EXPECT_NEAR(s.arrival_rate_per_s, 500, 500 * 0.02);
    EXPECT_NEAR(s.l_sampled, s.l_little, 0.01 * s.l_little);
  }
}

}  // namespace
}  // namespace perflab::sim
