// A downstream dependency: latency from its distribution, its freezes, and
// statistics resets.
#include "sim/downstream.h"

#include <vector>

#include "gtest/gtest.h"
#include "sim/engine.h"
#include "sim/random.h"

namespace perflab::sim {
namespace {

Process CallDownstream(Simulation& sim, Downstream& d, int n,
                       std::vector<Time>& at) {
  for (int i = 0; i < n; ++i) {
    co_await d.Call();
    at.push_back(sim.now());
  }
}

TEST(DownstreamTest, LatencyFromItsDistributionAndFreezes) {
  Simulation sim;
  Downstream d(sim, Dist::Constant(5 * kMs), 1, "inventory");
  d.freezes().Add(12 * kMs, 20 * kMs);
  std::vector<Time> at;
  sim.Spawn(CallDownstream(sim, d, 4, at));
  ASSERT_TRUE(sim.Run(kForever).ok());
  // 0-5, 5-10, 10-12 + frozen to 20 + 3 = 23, 23-28.
  EXPECT_EQ(at, (std::vector<Time>{5 * kMs, 10 * kMs, 23 * kMs, 28 * kMs}));
  EXPECT_EQ(d.calls(), 4);
  EXPECT_DOUBLE_EQ(d.mean_ms(), 7);

  Simulation sim2;
  Downstream e(sim2, Dist::Exp(5 * kMs), 1, "inventory");
  std::vector<Time> at2;
  sim2.Spawn(CallDownstream(sim2, e, 20000, at2));
  ASSERT_TRUE(sim2.Run(kForever).ok());
  EXPECT_NEAR(e.mean_ms(), 5, 0.15);
}

TEST(DownstreamTest, ResetStatsStartsCountingAgain) {
  Simulation sim;
  Downstream d(sim, Dist::Constant(1e6), 1, "inventory");
  (void)d.Call();
  EXPECT_EQ(d.calls(), 1);
  d.ResetStats();
  EXPECT_EQ(d.calls(), 0);
  EXPECT_EQ(d.mean_ms(), 0);
}

}  // namespace
}  // namespace perflab::sim
