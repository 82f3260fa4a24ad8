// The shared steady-state check on hand-made windows, and the Meter feeding
// it from a tiny simulation whose answer is known by arithmetic.
#include "sim/steady_state.h"

#include <string>

#include "gtest/gtest.h"
#include "sim/engine.h"
#include "sim/measure.h"

namespace perflab::sim {
namespace {

// A window that passes every check: W = 0.1 s, 10 s of warm-up, L = lambda W.
SteadyInputs Level() {
  SteadyInputs in;
  in.warmup_s = 10;
  in.window_s = 60;
  in.mean_response_s = 0.1;
  in.l_mean = 40;
  in.l_little = 40;
  in.half_completed[0] = 12000;
  in.half_completed[1] = 12000;
  in.half_mean_s[0] = in.half_mean_s[1] = 0.1;
  in.half_se_s[0] = in.half_se_s[1] = 0.001;
  return in;
}

bool Mentions(const SteadyVerdict& v, const std::string& word) {
  for (const std::string& r : v.reasons) {
    if (r.find(word) != std::string::npos) return true;
  }
  return false;
}

TEST(SteadyStateTest, ALevelWindowIsSteady) {
  const SteadyVerdict v = CheckSteady(Level());
  EXPECT_TRUE(v.steady);
  EXPECT_TRUE(v.reasons.empty());
  EXPECT_EQ(SteadyText(v), "steady");
}

TEST(SteadyStateTest, OfferedAtOrPastCapacityNamesTheLoadKnob) {
  SteadyInputs in = Level();
  in.offered_per_s = 5000;
  in.capacity_per_s = 4000;
  in.load_knob = "rate_per_s";
  const SteadyVerdict v = CheckSteady(in);
  EXPECT_FALSE(v.steady);
  EXPECT_TRUE(Mentions(v, "rate_per_s"));
  in.offered_per_s = 3999;  // just below: fine
  EXPECT_TRUE(CheckSteady(in).steady);
}

TEST(SteadyStateTest, WarmupShorterThanThreeResponsesNamesWarmup) {
  SteadyInputs in = Level();
  in.mean_response_s = 20;  // 3 W = 60 s, the warm-up is 10 s
  const SteadyVerdict v = CheckSteady(in);
  EXPECT_FALSE(v.steady);
  EXPECT_TRUE(Mentions(v, "warmup_s"));
  // A transient under 1 % of the window does not matter: 3 x 0.1 s < 0.6 s.
  in = Level();
  in.warmup_s = 0;
  EXPECT_TRUE(CheckSteady(in).steady);
}

TEST(SteadyStateTest, LittleDisagreementBeyondEdgesAndTolerance) {
  SteadyInputs in = Level();
  // Allowed: 5 % + 2 W / window = 5 % + 0.33 %. 44 against 40 is 10 %.
  in.l_mean = 44;
  EXPECT_FALSE(CheckSteady(in).steady);
  in.l_mean = 41.6;  // 4 %: within
  EXPECT_TRUE(CheckSteady(in).steady);
}

TEST(SteadyStateTest, TrendBetweenHalvesOnlyBeyondSamplingError) {
  SteadyInputs in = Level();
  in.half_mean_s[1] = 0.13;  // +30 %, 21 standard errors
  EXPECT_FALSE(CheckSteady(in).steady);
  in = Level();
  in.half_mean_s[0] = 0.10;
  in.half_mean_s[1] = 0.12;
  in.half_se_s[0] = in.half_se_s[1] = 0.01;  // 20 % but only 1.4 SE
  EXPECT_TRUE(CheckSteady(in).steady);
  in = Level();
  in.half_completed[1] = 9000;  // 25 % fewer, sqrt(21000) = 145 << 3000
  EXPECT_FALSE(CheckSteady(in).steady);
}

Process Request(Simulation& sim, Meter& meter, Time at, Time service) {
  co_await sim.Until(at);
  const Time start = sim.now();
  meter.Begin();
  co_await sim.Delay(service);
  meter.End(start);
}

TEST(SteadyStateTest, MeterReportsTheHalvesOfItsWindow) {
  // One request every 10 ms from t = 0; service 5 ms in the window's first
  // half (1..2 s) and 15 ms in its second (2..3 s).
  Simulation sim;
  MeterOptions mo;
  mo.warmup = kSec;
  mo.window = 2 * kSec;
  Meter meter(sim, mo);
  for (int i = 0; i < 300; ++i) {
    const Time at = 10 * kMs * i;
    sim.Spawn(Request(sim, meter, at, at < 2 * kSec ? 5 * kMs : 15 * kMs));
  }
  ASSERT_TRUE(sim.Run(4 * kSec).ok());
  const SteadyInputs in = meter.SteadyWindow();
  EXPECT_DOUBLE_EQ(in.warmup_s, 1);
  EXPECT_DOUBLE_EQ(in.window_s, 2);
  // Completions at 1.005 .. 1.995 s: 100; at 2.015 .. 2.995 s: 99 (the
  // request sent at 1.99 s finishes at 1.995 s, the one at 2.99 s at 3.005 s).
  EXPECT_EQ(in.half_completed[0], 100);
  EXPECT_EQ(in.half_completed[1], 99);
  EXPECT_NEAR(in.half_mean_s[0], 0.005, 1e-12);
  EXPECT_NEAR(in.half_mean_s[1], 0.015, 1e-12);
  EXPECT_NEAR(in.half_se_s[0], 0, 1e-9);
  // 15 ms against 5 ms with no spread: a trend.
  EXPECT_FALSE(CheckSteady(in).steady);
}

}  // namespace
}  // namespace perflab::sim
