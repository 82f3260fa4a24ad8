// The generational GC model: collection counts and pauses from the heap
// and live set, pauses that freeze the CPU, hold safepoints and blocking
// waits and cost CPU, and concurrent marking above the initiating occupancy.
// Expected values are worked out by hand in the comments.
#include "sim/gc.h"

#include "gtest/gtest.h"
#include "sim/cpu.h"
#include "sim/engine.h"
#include "tests/sim/process_helpers.h"

namespace perflab::sim {
namespace {

TEST(GcTest, TightHeapCollectsMoreOftenWithShorterPauses) {
  Simulation sim;
  GcOptions small;  // the case study's 256 MiB heap, 206 MiB live
  GcOptions big = small;
  big.heap_mib = 768;
  absl::StatusOr<Gc> a = Gc::Create(sim, nullptr, small);
  absl::StatusOr<Gc> b = Gc::Create(sim, nullptr, big);
  ASSERT_TRUE(a.ok() && b.ok());
  for (int i = 0; i < 100000; ++i) {
    a->Allocate(0.2);
    b->Allocate(0.2);
  }
  // 20,000 MiB allocated: 50 MiB young -> 400 collections, 562 MiB -> 35.
  EXPECT_EQ(a->stats().collections, 400);
  EXPECT_EQ(b->stats().collections, 35);
  EXPECT_NEAR(a->stats().mean_pause_ms(), 3.9, 0.05);
  EXPECT_NEAR(b->stats().mean_pause_ms(), 2.5 + 0.028 * 562, 0.05);
  EXPECT_GT(ToMs(a->stats().total_pause), 2 * ToMs(b->stats().total_pause));
}

TEST(GcTest, LiveSetLargerThanTheHeapIsRejected) {
  Simulation sim;
  GcOptions o;
  o.live_set_mib = 300;
  EXPECT_FALSE(Gc::Create(sim, nullptr, o).ok());
}

using testing_helpers::CpuJob;

Process Allocator(Simulation& sim, Gc& gc, Time& after_safepoint) {
  gc.Allocate(60);  // fills the 50 MiB young generation: one pause now
  co_await gc.Safepoint();
  after_safepoint = sim.now();
}

TEST(GcTest, PauseFreezesTheCpuAndHoldsSafepoints) {
  Simulation sim;
  Cpu cpu(sim, 2);
  absl::StatusOr<Gc> gc = Gc::Create(sim, &cpu, GcOptions{});
  ASSERT_TRUE(gc.ok());
  Time job = 0, safepoint = 0;
  sim.Spawn(CpuJob(sim, cpu, kMs, job));
  sim.Spawn(Allocator(sim, *gc, safepoint));
  ASSERT_TRUE(sim.Run(kSec).ok());
  EXPECT_EQ(safepoint, gc->young_pause());
  EXPECT_EQ(job, kMs + gc->young_pause());
}

Process Sleeper(Gc& gc, Time d, Time& woke, Simulation& sim) {
  co_await gc.Sleep(d);
  woke = sim.now();
}

using testing_helpers::AllocateAt;

TEST(GcTest, PauseCostsParallelCpuAndHoldsAWaitEndingInIt) {
  Simulation sim;
  Cpu cpu(sim, 8);
  GcOptions o;  // 256 MiB heap, 206 MiB live: 50 MiB young, 3.9 ms pauses
  absl::StatusOr<Gc> gc = Gc::Create(sim, &cpu, o);
  ASSERT_TRUE(gc.ok());
  Time woke = 0, woke_early = 0;
  sim.Spawn(Sleeper(*gc, 2 * kMs, woke, sim));        // ends inside the pause
  sim.Spawn(Sleeper(*gc, kMs / 2, woke_early, sim));  // ends before it
  sim.Spawn(AllocateAt(sim, *gc, kMs, 50));           // pause [1, 4.9) ms
  ASSERT_TRUE(sim.Run(kSec).ok());
  EXPECT_EQ(woke_early, kMs / 2);
  EXPECT_EQ(woke, kMs + 3'900'000);
  // 8 parallel GC threads for 3.9 ms = 31.2 core-ms over 1 s.
  EXPECT_EQ(gc->stats().pause_cpu, 8 * 3'900'000);
  EXPECT_NEAR(cpu.CoresUsedFor(CpuUse::kGc), 0.0312, 1e-9);
}

TEST(GcTest, ConcurrentMarkingOnlyAboveTheInitiatingOccupancy) {
  for (double heap : {256.0, 768.0}) {
    Simulation sim;
    Cpu cpu(sim, 8);
    GcOptions o;
    o.heap_mib = heap;
    o.concurrent_cpu_per_mib_us = 1000;  // 1 ms of CPU per MiB
    absl::StatusOr<Gc> gc = Gc::Create(sim, &cpu, o);
    ASSERT_TRUE(gc.ok());
    gc->Allocate(600);  // one or more collections either way
    ASSERT_TRUE(sim.Run(10 * kSec).ok());
    const GcStats& s = gc->stats();
    if (heap == 256) {
      // 206 > 0.45 x 256: 12 collections of 50 MiB -> 600 ms of marking,
      // split over (8 + 2) / 4 = 2 threads.
      EXPECT_EQ(s.collections, 12);
      EXPECT_EQ(s.concurrent_cpu, 600 * kMs);
      // It ran on the cores as GC work: 600 ms of marking plus 12 pauses of
      // 3.9 ms on 8 threads (374.4 ms), over 10 s.
      EXPECT_NEAR(cpu.CoresUsedFor(CpuUse::kGc), (600 + 374.4) / 1e4, 1e-6);
    } else {
      EXPECT_EQ(s.collections, 1);  // 206 < 0.45 x 768: no marking
      EXPECT_EQ(s.concurrent_cpu, 0);
    }
  }
}

}  // namespace
}  // namespace perflab::sim
