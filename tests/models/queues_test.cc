// Queueing formulas against values known independently of this code.
#include "models/queues.h"

#include <cmath>

#include "gtest/gtest.h"

namespace perflab::models {
namespace {

TEST(ErlangC, KnownValue) {
  // c = 8, lambda = 7.2/s, mu = 1/s (rho = 0.9): P(wait) ~ 0.7015, Wq ~ 0.877
  // s.
  auto m = MMc(8, 7.2, 1.0);
  ASSERT_TRUE(m.ok());
  EXPECT_NEAR(m->p_wait, 0.7015, 5e-5);
  EXPECT_NEAR(m->mean_wait_s, 0.877, 5e-4);
  EXPECT_NEAR(m->utilisation, 0.9, 1e-12);
  EXPECT_NEAR(m->mean_response_s, m->mean_wait_s + 1.0, 1e-12);
  // Little's Law holds inside the formulas.
  EXPECT_NEAR(m->mean_in_system, 7.2 * m->mean_response_s, 1e-9);
}

TEST(ErlangC, SingleServerIsMM1) {
  // M/M/1: P(wait) = rho, Wq = rho / (mu - lambda), W = 1 / (mu - lambda).
  for (double rho : {0.1, 0.5, 0.9, 0.99}) {
    auto m = MM1(rho * 10, 10);
    ASSERT_TRUE(m.ok());
    EXPECT_NEAR(m->p_wait, rho, 1e-12);
    EXPECT_NEAR(m->mean_wait_s, rho / (10 - rho * 10), 1e-12);
    EXPECT_NEAR(m->mean_response_s, 1 / (10 - rho * 10), 1e-12);
    EXPECT_NEAR(m->mean_queue_length, rho * rho / (1 - rho), 1e-9);
  }
}

TEST(ErlangC, LargeServerCountIsStable) {
  // Factorial-based formulas overflow here; the recurrence does not.
  auto m = MMc(500, 490, 1.0);
  ASSERT_TRUE(m.ok());
  EXPECT_GT(m->p_wait, 0);
  EXPECT_LT(m->p_wait, 1);
}

TEST(Queues, UnstableSaysSoAndGivesRho) {
  auto m = MMc(4, 8, 2);
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.status().message().find("unstable"), std::string::npos);
  EXPECT_NE(m.status().message().find("rho = 1"), std::string::npos);
  auto g = MG1(120, 0.01, 1);
  ASSERT_FALSE(g.ok());
  EXPECT_NE(g.status().message().find("rho = 1.2"), std::string::npos);
}

TEST(Queues, RejectsBadInput) {
  EXPECT_FALSE(MMc(0, 1, 2).ok());
  EXPECT_FALSE(MMc(1, -1, 2).ok());
  EXPECT_FALSE(MMc(1, 1, std::nan("")).ok());
  EXPECT_FALSE(MG1(1, 0.1, -1).ok());
}

TEST(PollaczekKhinchine, DeterministicHalvesExponentialWait) {
  auto md1 = MG1(8, 0.1, 0);
  auto mm1 = MG1(8, 0.1, 1);
  ASSERT_TRUE(md1.ok());
  ASSERT_TRUE(mm1.ok());
  // M/D/1: Wq = rho S / (2 (1 - rho)) = 0.8 * 0.1 / 0.4 = 0.2 s.
  EXPECT_NEAR(md1->mean_wait_s, 0.2, 1e-12);
  EXPECT_NEAR(mm1->mean_wait_s, 2 * md1->mean_wait_s, 1e-12);
  // With cv = 1, M/G/1 must agree with M/M/1.
  auto exact = MM1(8, 10);
  ASSERT_TRUE(exact.ok());
  EXPECT_NEAR(mm1->mean_wait_s, exact->mean_wait_s, 1e-12);
}

TEST(ClosedLoop, Bound) {
  // 400 clients, no think time, 2 s response: at most 200 req/s.
  EXPECT_NEAR(ClosedLoopThroughputBound(400, 0, 2.0), 200, 1e-12);
}

}  // namespace
}  // namespace perflab::models
