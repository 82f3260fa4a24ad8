// The simulator against exact Mean Value Analysis (models/mva.h) on a
// product-form closed network: N clients with exponential think times, a
// CPU of c cores under processor sharing (sim::Cpu) with exponential work,
// and one FCFS server (a sim::Resource of 1) with exponential holds. For a
// sweep of populations below, at and past the knee, the exact throughput
// and response time lie inside the 95 % Student-t intervals of the
// simulated means over replications with fixed seeds.
#include <cmath>
#include <cstdint>
#include <vector>

#include "gtest/gtest.h"
#include "models/mva.h"
#include "models/student_t.h"
#include "sim/cpu.h"
#include "sim/engine.h"
#include "sim/load.h"
#include "sim/measure.h"
#include "sim/random.h"
#include "sim/resource.h"
#include "sim/task.h"

namespace perflab::sim {
namespace {

constexpr double kThinkMs = 100;
constexpr int64_t kCores = 2;
constexpr double kCpuMs = 20;  // D / c = 10 ms: the bottleneck
constexpr double kDiskMs = 8;  // one server
constexpr int kReplications = 6;

Task<bool> Request(Simulation& sim, Cpu& cpu, Resource& disk, Rng& rng) {
  co_await cpu.Run(SampleNs(Dist::Exp(kCpuMs * kMs), rng));
  co_await disk.Acquire();
  co_await sim.Delay(SampleNs(Dist::Exp(kDiskMs * kMs), rng));
  disk.Release();
  co_return true;
}

struct Replication {
  double throughput_per_s;
  double response_ms;
};

Replication Simulate(int64_t clients, uint64_t seed) {
  Simulation sim;
  Cpu cpu(sim, kCores);
  Resource disk(sim, "disk", 1);
  Rng rng(seed, "service");
  MeterOptions mo;
  mo.warmup = 20 * kSec;
  mo.window = 300 * kSec;
  Meter meter(sim, mo);
  LoadOptions load;
  load.clients = clients;
  load.think = static_cast<Time>(kThinkMs * kMs);
  load.exponential_think = true;
  StartLoad(
      sim, meter, load, [&] { return Request(sim, cpu, disk, rng); }, seed);
  EXPECT_TRUE(sim.Run(meter.window_end()).ok());
  const Summary s = meter.Summarise();
  return {s.throughput_per_s, s.mean_ms};
}

struct Interval {
  double mean, half_width;
};

Interval Of(const std::vector<double>& xs) {
  double sum = 0;
  for (double x : xs) sum += x;
  const double n = static_cast<double>(xs.size());
  const double mean = sum / n;
  double ss = 0;
  for (double x : xs) ss += (x - mean) * (x - mean);
  const double sd = std::sqrt(ss / (n - 1));
  return {mean, models::ConfidenceHalfWidth95(sd, static_cast<int>(n))};
}

TEST(MvaAgreementTest, ClosedLoopThroughPsCoresAndAnFcfsServer) {
  models::SingleClassNetwork net;
  net.think_s = kThinkMs / 1000;
  net.stations = {{"cpu", models::StationKind::kQueue, kCpuMs / 1000, kCores},
                  {"disk", models::StationKind::kQueue, kDiskMs / 1000, 1}};
  // N* = (D + Z) / D_max = (28 + 100) / 10 = 12.8 clients.
  const std::vector<int64_t> sweep = {2, 8, 13, 24};
  absl::StatusOr<std::vector<models::MvaPoint>> mva =
      models::SolveExactMva(net, sweep.back());
  ASSERT_TRUE(mva.ok()) << mva.status();
  for (int64_t n : sweep) {
    std::vector<double> x, r;
    for (int rep = 0; rep < kReplications; ++rep) {
      const Replication run =
          Simulate(n, 2600 + 17 * static_cast<uint64_t>(rep));
      x.push_back(run.throughput_per_s);
      r.push_back(run.response_ms);
    }
    const models::MvaPoint& exact = (*mva)[static_cast<size_t>(n - 1)];
    const Interval ix = Of(x), ir = Of(r);
    SCOPED_TRACE(::testing::Message() << "N = " << n);
    EXPECT_NEAR(ix.mean, exact.throughput_per_s, ix.half_width)
        << "simulated X " << ix.mean << " +- " << ix.half_width;
    EXPECT_NEAR(ir.mean, exact.response_s * 1000, ir.half_width)
        << "simulated R " << ir.mean << " +- " << ir.half_width;
    // The intervals are narrow enough to tell: a few per cent of the value.
    EXPECT_LT(ix.half_width, 0.05 * exact.throughput_per_s);
    EXPECT_LT(ir.half_width, 0.08 * exact.response_s * 1000);
  }
}

}  // namespace
}  // namespace perflab::sim
