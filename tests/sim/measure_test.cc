// LatencyRecorder's percentiles and the Meter's window, throughput and
// in-flight count.
#include "sim/measure.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "gtest/gtest.h"
#include "sim/engine.h"
#include "sim/random.h"

namespace perflab::sim {
namespace {

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

// Percentiles asked in any order, some twice, and again after more samples,
// against the nearest rank of a sorted copy (by hand: ceil(p/100 n)).
TEST(LatencyRecorderTest, PercentilesInAnyOrderAreThoseOfTheSortedSamples) {
  Rng rng(5, "latency");
  LatencyRecorder rec;
  std::vector<Time> all;
  for (int round = 0; round < 3; ++round) {
    for (int i = 0; i < 997; ++i) {
      const auto v = static_cast<Time>(rng.Below(5000));  // many ties
      rec.Record(v);
      all.push_back(v);
    }
    std::vector<Time> sorted = all;
    std::sort(sorted.begin(), sorted.end());
    const double n = static_cast<double>(sorted.size());
    for (const double p :
         {99.0, 50.0, 99.9, 1.0, 95.0, 50.0, 100.0, 75.0, 99.9, 99.0, 1.0}) {
      const auto rank = static_cast<size_t>(std::ceil(p / 100 * n - 1e-9));
      EXPECT_EQ(rec.PercentileMs(p), ToMs(sorted[rank - 1]))
          << "p" << p << " of " << sorted.size();
    }
  }
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

}  // namespace
}  // namespace perflab::sim
