// The engine additions the order-service model needs: CPU attributed by use,
// GC pauses that cost CPU and hold blocking waits, statistics resets, the
// database's per-statement round trip, and the load generator's own CPU.
// Expected values are worked out by hand in the comments.
#include "gtest/gtest.h"
#include "sim/cpu.h"
#include "sim/database.h"
#include "sim/downstream.h"
#include "sim/gc.h"
#include "sim/http.h"
#include "sim/load.h"
#include "sim/measure.h"

namespace perflab::sim {
namespace {

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

Process Sleeper(Gc& gc, Time d, Time& woke, Simulation& sim) {
  co_await gc.Sleep(d);
  woke = sim.now();
}
Process AllocateAt(Simulation& sim, Gc& gc, Time at, double mib) {
  co_await sim.Delay(at);
  gc.Allocate(mib);
}

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

Process Call(HttpClient& http, Time server) { co_await http.Call(server); }

TEST(ResetTest, HttpClientAndDownstreamStartCountingAgain) {
  Simulation sim;
  HttpClient http(sim, HttpOptions{});
  sim.Spawn(Call(http, kMs));
  ASSERT_TRUE(sim.Run(kSec).ok());
  EXPECT_EQ(http.stats().calls, 1);
  http.ResetStats();
  EXPECT_EQ(http.stats().calls, 0);
  EXPECT_EQ(http.stats().connects, 0);
  Downstream d(sim, Dist::Constant(1e6), 1, "inventory");
  (void)d.Call();
  EXPECT_EQ(d.calls(), 1);
  d.ResetStats();
  EXPECT_EQ(d.calls(), 0);
  EXPECT_EQ(d.mean_ms(), 0);
}

Process Statement(Database& db, Time work, Time& done, Simulation& sim) {
  const bool ok = co_await db.Statement(work);
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

TEST(LoadTest, GeneratorCpuIsInsideTheLatencyAndCanSaturate) {
  Simulation sim;
  Cpu generator(sim, 1);
  MeterOptions mo;
  mo.warmup = kSec;
  mo.window = 10 * kSec;
  Meter meter(sim, mo);
  LoadOptions lo;
  lo.clients = 4;
  lo.generator = &generator;
  lo.generator_cpu = 2 * kMs;
  StartLoad(
      sim, meter, lo,
      [&sim]() -> Task<bool> {
        co_await sim.Delay(kMs);
        co_return true;
      },
      1);
  ASSERT_TRUE(sim.Run(meter.window_end()).ok());
  // Without a stagger the 4 clients move together: their sends share the
  // core (4 x 1 ms = 4 ms), the 1 ms service leaves it idle, the receives
  // take 4 ms: 4 requests per 9 ms = 444.4 req/s, the core busy 8 ms of 9
  // (a service with no generator cost would give 4,000 req/s).
  EXPECT_NEAR(meter.Summarise().throughput_per_s, 4000.0 / 9, 0.5);
  EXPECT_NEAR(generator.CoresUsed(), 8.0 / 9, 0.001);
}

}  // namespace
}  // namespace perflab::sim
