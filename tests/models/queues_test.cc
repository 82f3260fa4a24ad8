// Queueing formulas against values known independently of this code.
#include "models/queues.h"

#include <algorithm>
#include <cmath>
#include <vector>

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

TEST(PollaczekKhinchine, VariabilityEntersSquared) {
  // At cv = 0 and cv = 1, cv^2 = cv, so only other values tell 1 + cv^2 from
  // 1 + cv. By hand, lambda = 8/s, E[S] = 0.1 s (rho = 0.8), so
  // rho E[S] / (2 (1 - rho)) = 0.08 / 0.4 = 0.2 s, times (1 + cv^2):
  //   cv = 0.5 -> 0.2 * 1.25 = 0.25 s;  cv = 2 -> 0.2 * 5 = 1.0 s;
  //   cv = 3   -> 0.2 * 10   = 2.0 s.
  struct Row {
    double cv, wait_s;
  };
  for (Row row : {Row{0.5, 0.25}, Row{2, 1.0}, Row{3, 2.0}}) {
    auto m = MG1(8, 0.1, row.cv);
    ASSERT_TRUE(m.ok());
    EXPECT_NEAR(m->mean_wait_s, row.wait_s, 1e-12) << "cv " << row.cv;
    EXPECT_NEAR(m->mean_response_s, row.wait_s + 0.1, 1e-12) << "cv " << row.cv;
    // Little's Law on the queue: Lq = lambda Wq.
    EXPECT_NEAR(m->mean_queue_length, 8 * row.wait_s, 1e-12) << "cv " << row.cv;
  }
}

TEST(PollaczekKhinchine, ErlangTwoServiceAgainstItsMarkovChain) {
  // A second route to one value: Erlang-2 service (two exponential phases of
  // rate 2 mu, cv^2 = 1/2) is a Markov chain, so M/E2/1 can be solved without
  // P-K. Count phases still to serve: arrivals add 2, a phase completion
  // removes 1 (rate 2 mu); that is a birth-death-like chain whose stationary
  // law we get by iterating the balance equations of the truncated chain.
  const double lambda = 6, mu = 10;  // rho = 0.6, E[S] = 0.1 s
  const int kMax = 400;              // phases; P(more) is ~0.6^200: nil
  std::vector<double> p(kMax + 1, 0.0), next(kMax + 1, 0.0);
  p[0] = 1;
  // Uniformised power iteration: rate bound lambda + 2 mu.
  const double q = lambda + 2 * mu;
  for (int it = 0; it < 3000; ++it) {  // converged by ~1,000
    std::fill(next.begin(), next.end(), 0.0);
    for (int k = 0; k <= kMax; ++k) {
      double stay = 1.0;
      if (k + 2 <= kMax) {
        next[k + 2] += p[k] * lambda / q;
        stay -= lambda / q;
      }
      if (k >= 1) {
        next[k - 1] += p[k] * 2 * mu / q;
        stay -= 2 * mu / q;
      }
      next[k] += p[k] * stay;
    }
    p.swap(next);
  }
  // Customers in system: ceil(phases / 2). W from Little: L / lambda.
  double l = 0;
  for (int k = 0; k <= kMax; ++k) {
    const int customers = (k + 1) / 2;  // integer ceil(k / 2), meant
    l += p[k] * customers;
  }
  const double chain_wait_s = l / lambda - 1 / mu;
  auto m = MG1(lambda, 1 / mu, std::sqrt(0.5));
  ASSERT_TRUE(m.ok());
  EXPECT_NEAR(m->mean_wait_s, chain_wait_s, 1e-6);
}

TEST(ClosedLoop, Bound) {
  // 400 clients, no think time, 2 s response: at most 200 req/s.
  EXPECT_NEAR(ClosedLoopThroughputBound(400, 0, 2.0), 200, 1e-12);
}

}  // namespace
}  // namespace perflab::models
