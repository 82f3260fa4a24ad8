// The M/M/c reference model against the analytic laws: mean wait and the
// probability of waiting against Erlang C, M/D/1 against
// Pollaczek-Khinchine, and the batch-means interval that the gap is read
// against.
#include "sim/mmc.h"

#include <cmath>
#include <cstdint>
#include <string>

#include "gtest/gtest.h"
#include "models/queues.h"
#include "tests/sanitizers.h"

namespace perflab::sim {
namespace {

constexpr int64_t kScale = testing::kSanitized ? 16 : 1;
constexpr double kTolerance = testing::kSanitized ? 0.10 : 0.02;

struct MmcCase {
  int servers;
  double rho;
  int64_t customers;
};

class MmcVsErlangC : public ::testing::TestWithParam<MmcCase> {};

TEST_P(MmcVsErlangC, MeanWaitWithinTwoPercent) {
  const MmcCase c = GetParam();
  MmcOptions o;
  o.servers = c.servers;
  o.service_rate_per_s = 1.0;
  o.arrival_rate_per_s = c.rho * c.servers;
  o.customers = c.customers / kScale;
  o.warmup_customers = 20000;
  o.percentiles = false;
  absl::StatusOr<MmcResult> r = RunMmc(o);
  ASSERT_TRUE(r.ok()) << r.status();
  absl::StatusOr<models::QueueMetrics> a =
      models::MMc(c.servers, o.arrival_rate_per_s, o.service_rate_per_s);
  ASSERT_TRUE(a.ok());
  EXPECT_NEAR(r->mean_wait_s, a->mean_wait_s, kTolerance * a->mean_wait_s);
  EXPECT_NEAR(r->p_wait, a->p_wait, kTolerance * a->p_wait);
  // A sixteenth of the customers has four times the standard error.
  EXPECT_NEAR(r->utilisation, c.rho,
              (testing::kSanitized ? 0.04 : 0.01) * c.rho);
  EXPECT_NEAR(r->throughput_per_s, o.arrival_rate_per_s,
              0.01 * o.arrival_rate_per_s);
}

// The variance of the mean wait grows like 1 / (1 - rho)^2, and when waits
// are rare (c = 16, rho = 0.5: 0.9 % of customers wait) the mean rests on
// few of them. Sizes give about two standard errors inside 2 %, measured over
// several seeds. Sanitizer builds run 1/16 of the customers with a looser
// bound: they check memory safety of the same path, release checks the 2 %.

INSTANTIATE_TEST_SUITE_P(
    RhoAndServers, MmcVsErlangC,
    ::testing::Values(MmcCase{1, 0.5, 1'000'000}, MmcCase{1, 0.7, 2'000'000},
                      MmcCase{1, 0.9, 6'000'000}, MmcCase{4, 0.5, 2'000'000},
                      MmcCase{4, 0.7, 3'000'000}, MmcCase{4, 0.9, 8'000'000},
                      MmcCase{16, 0.5, 24'000'000}, MmcCase{16, 0.7, 6'000'000},
                      MmcCase{16, 0.9, 12'000'000}),
    [](const ::testing::TestParamInfo<MmcCase>& info) {
      return "c" + std::to_string(info.param.servers) + "_rho" +
             std::to_string(static_cast<int>(info.param.rho * 100));
    });

TEST(MmcTest, MD1WithinTwoPercentOfPollaczekKhinchine) {
  for (double rho : {0.5, 0.7, 0.9}) {
    MmcOptions o;
    o.servers = 1;
    o.service_rate_per_s = 1.0;
    o.arrival_rate_per_s = rho;
    o.service = MmcOptions::Service::kDet;
    o.customers = rho < 0.8 ? 1'000'000 : 3'000'000;
    o.percentiles = false;
    absl::StatusOr<MmcResult> r = RunMmc(o);
    ASSERT_TRUE(r.ok());
    absl::StatusOr<models::QueueMetrics> a = models::MG1(rho, 1.0, 0.0);
    ASSERT_TRUE(a.ok());
    EXPECT_NEAR(r->mean_wait_s, a->mean_wait_s, 0.02 * a->mean_wait_s) << rho;
  }
}

// The batch-means interval is what a reader weighs the gap to Erlang C
// against: over ten independent seeds the analytic mean should fall inside
// the 95 % interval about 19 times in 20, and four times the customers
// should roughly halve the interval (error ~ 1 / sqrt(n)). The halving is
// checked at rho = 0.5, where batches are long against the queue's memory;
// near saturation rare long excursions make one run's interval itself noisy.
TEST(MmcTest, BatchMeansIntervalCoversErlangCAndShrinksWithCustomers) {
  absl::StatusOr<models::QueueMetrics> a = models::MMc(4, 3.6, 1.0);
  ASSERT_TRUE(a.ok());
  int covered = 0;
  for (uint64_t seed = 1; seed <= 10; ++seed) {
    MmcOptions o;
    o.servers = 4;
    o.arrival_rate_per_s = 3.6;
    o.customers = 200'000 / kScale;
    o.percentiles = false;
    o.seed = seed;
    absl::StatusOr<MmcResult> r = RunMmc(o);
    ASSERT_TRUE(r.ok());
    ASSERT_GT(r->mean_wait_ci95_s, 0);
    covered +=
        std::fabs(r->mean_wait_s - a->mean_wait_s) <= r->mean_wait_ci95_s;
  }
  EXPECT_GE(covered, 8);

  MmcOptions small, large;
  small.servers = large.servers = 1;
  small.arrival_rate_per_s = large.arrival_rate_per_s = 0.5;
  small.percentiles = large.percentiles = false;
  small.customers = 250'000 / kScale;
  large.customers = 4 * small.customers;
  absl::StatusOr<MmcResult> rs = RunMmc(small), rl = RunMmc(large);
  ASSERT_TRUE(rs.ok());
  ASSERT_TRUE(rl.ok());
  // Four times the customers halves the interval (1 / sqrt(4)). Sanitizer
  // builds run a sixteenth of them, so each interval's own width is four
  // times noisier and only the shrinking itself is checked.
  const double ratio = rl->mean_wait_ci95_s / rs->mean_wait_ci95_s;
  EXPECT_GT(ratio, testing::kSanitized ? 0.15 : 0.3);
  EXPECT_LT(ratio, testing::kSanitized ? 0.95 : 0.8);
}

}  // namespace
TEST(MmcSpanTest, RefusesARunWhoseClockWouldWrap) {
  // 2000 customers leaving at min(1e9, 1 x 1e-9) = 1e-9/s span 2000 / 1e-9
  // = 2e12 s, past the int64 nanosecond clock's 9.2e9 s: refused, not run
  // into a wrapped clock whose waits and interval are not numbers.
  MmcOptions o;
  o.servers = 1;
  o.arrival_rate_per_s = 1e9;
  o.service_rate_per_s = 1e-9;
  o.customers = 2000;
  o.warmup_customers = 0;
  absl::StatusOr<MmcResult> r = RunMmc(o);
  ASSERT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(r.status().message().find(
                "span 2e+12 s of simulated time; accepted: at most 1e+08 s"),
            std::string::npos)
      << r.status();
}

TEST(MmcSpanTest, BoundIsOneHundredMillionSimulatedSeconds) {
  // 100 customers at 1e-6/s (service 1/s, so arrivals set the pace) span
  // 100 / 1e-6 = 1e8 s: accepted, with every figure finite; one customer
  // more, 1.01e8 s, is refused.
  MmcOptions o;
  o.servers = 1;
  o.arrival_rate_per_s = 1e-6;
  o.service_rate_per_s = 1;
  o.customers = 100;
  o.warmup_customers = 0;
  absl::StatusOr<MmcResult> r = RunMmc(o);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(std::isfinite(r->mean_wait_s));
  EXPECT_TRUE(std::isfinite(r->mean_wait_ci95_s));
  EXPECT_TRUE(std::isfinite(r->throughput_per_s));
  EXPECT_FALSE(r->unstable);
  o.customers = 101;
  EXPECT_EQ(RunMmc(o).status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace perflab::sim
