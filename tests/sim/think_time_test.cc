// Issue 13 item 5: closed-loop think times are drawn from an exponential
// distribution (as load tools do), so clients do not move in bursts. With
// fixed think times this test fails: the coefficient of variation is 0.
#include <cmath>
#include <vector>

#include "gtest/gtest.h"
#include "sim/load.h"
#include "sim/measure.h"
#include "sim/scenarios/scenario.h"

namespace perflab::sim {
namespace {

Task<bool> Stamp(Simulation& sim, std::vector<Time>& at) {
  at.push_back(sim.now());
  co_return true;
}

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

TEST(ThinkTimeTest, ThreadPoolDrawsExponentialThinkByDefault) {
  const Scenario* s = FindScenario("thread-pool");
  ASSERT_NE(s, nullptr);
  bool found = false;
  for (const KeySpec& k : s->keys) {
    if (k.name != "think") continue;
    found = true;
    EXPECT_EQ(k.fallback, "exp");
  }
  EXPECT_TRUE(found);
}

}  // namespace
}  // namespace perflab::sim
