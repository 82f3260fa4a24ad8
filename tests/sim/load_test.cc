// The load generators: closed loop (clients, think times), open loop
// (constant or Poisson), and the generator's own CPU.
#include "sim/load.h"

#include <cmath>
#include <vector>

#include "gtest/gtest.h"
#include "sim/cpu.h"
#include "sim/engine.h"
#include "sim/measure.h"
#include "sim/task.h"

namespace perflab::sim {
namespace {

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

Task<bool> Stamp(Simulation& sim, std::vector<Time>& at) {
  at.push_back(sim.now());
  co_return true;
}

// Closed-loop think times are exponential, as load tools draw them, so the
// clients do not move in bursts.
TEST(ThinkTimeTest, ExponentialThinkHasMeanAndCvOfTheExponential) {
  // One client, a handler that takes no time: the gaps between its requests
  // are exactly its think times.
  Simulation sim;
  MeterOptions mo;
  mo.window = 2200 * kSec;
  Meter meter(sim, mo);
  LoadOptions load;
  load.clients = 1;
  load.think = 1000 * kMs;
  load.exponential_think = true;
  std::vector<Time> at;
  StartLoad(
      sim, meter, load, [&] { return Stamp(sim, at); }, 7);
  ASSERT_TRUE(sim.Run(meter.window_end()).ok());
  ASSERT_GT(at.size(), 2000u);
  const double n = static_cast<double>(at.size() - 1);
  double sum = 0, sum2 = 0;
  for (size_t i = 1; i < at.size(); ++i) {
    const double gap = ToMs(at[i] - at[i - 1]);
    sum += gap;
    sum2 += gap * gap;
  }
  const double mean = sum / n;
  const double sd = std::sqrt((sum2 - n * mean * mean) / (n - 1));
  // Exp(1000 ms): sd = mean = 1000, so the sample mean's standard error is
  // 1000 / sqrt(n) ~ 22 ms at n ~ 2,100: 4 SE = 90 ms. The sample CV's
  // standard error is about sqrt((kurtosis - 1) / (4 n)) = sqrt(8 / (4 n))
  // ~ 0.031: 4 SE = 0.125. Fixed think times give CV 0.
  EXPECT_NEAR(mean, 1000, 90);
  EXPECT_NEAR(sd / mean, 1, 0.125);
}

}  // namespace
}  // namespace perflab::sim
