// Cpu under processor sharing, its freezes (and Freezes, the intervals a
// frozen service skips), and CPU time attributed by use.
#include "sim/cpu.h"

#include "gtest/gtest.h"
#include "sim/engine.h"

namespace perflab::sim {
namespace {

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

Process CpuJob(Simulation& sim, Cpu& cpu, Time work, Time& done) {
  co_await cpu.Run(work);
  done = sim.now();
}

Process FreezeAt(Simulation& sim, Cpu& cpu, Time at, Time length) {
  co_await sim.Delay(at);
  cpu.Freeze(length);
}

TEST(CpuTest, FreezeDelaysRunningWorkByItsLength) {
  Simulation sim;
  Cpu cpu(sim, 1);
  Time done = 0;
  sim.Spawn(CpuJob(sim, cpu, 100, done));
  sim.Spawn(FreezeAt(sim, cpu, 30, 50));
  ASSERT_TRUE(sim.Run(1000).ok());
  EXPECT_EQ(done, 150);
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

Process Job(Cpu& cpu, Time work, CpuUse use) { co_await cpu.Run(work, use); }

TEST(CpuUseTest, TimeIsAttributedToEachJobsUse) {
  Simulation sim;
  Cpu cpu(sim, 1);
  sim.Spawn(Job(cpu, 300, CpuUse::kDatabase));
  sim.Spawn(Job(cpu, 100, CpuUse::kHttp));
  ASSERT_TRUE(sim.Run(1000).ok());
  // One core shared: both progress at 1/2 until the HTTP job is done at 200
  // (100 each), then the database job runs alone to 400. Over 1000 ns:
  // database 300, http 100 core-ns.
  EXPECT_NEAR(cpu.CoresUsedFor(CpuUse::kDatabase), 0.3, 1e-9);
  EXPECT_NEAR(cpu.CoresUsedFor(CpuUse::kHttp), 0.1, 1e-9);
  EXPECT_NEAR(cpu.CoresUsed(), 0.4, 1e-9);
  cpu.Charge(CpuUse::kGc, 500);
  EXPECT_NEAR(cpu.CoresUsedFor(CpuUse::kGc), 0.5, 1e-9);
  EXPECT_NEAR(cpu.CoresUsed(), 0.9, 1e-9);
  cpu.ResetStats();
  ASSERT_TRUE(sim.Run(2000).ok());
  EXPECT_EQ(cpu.CoresUsed(), 0);
}

TEST(CpuUseTest, FrozenCoresDoNoJobWork) {
  Simulation sim;
  Cpu cpu(sim, 2);
  sim.Spawn(Job(cpu, 1000, CpuUse::kOther));
  cpu.Freeze(400);
  ASSERT_TRUE(sim.Run(2000).ok());
  // The job did 1000 ns of work on one core: 1000 core-ns in 2000 ns.
  EXPECT_NEAR(cpu.CoresUsed(), 0.5, 1e-9);
}

}  // namespace
}  // namespace perflab::sim
