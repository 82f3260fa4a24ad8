// The exact "Analytic laws" rows of shared/figures.md, to the printed
// precision.
#include <cmath>
#include <cstdint>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "models/amdahl.h"
#include "models/cost.h"
#include "models/little.h"
#include "models/percentiles.h"
#include "models/usl.h"

namespace perflab::models {
namespace {

// "Matches the printed figure": equal once rounded to `decimals` places.
// Half a unit of the last place either way is what printing can hide.
void ExpectPrinted(double actual, double printed, int decimals) {
  double half = 0.5 * std::pow(10.0, -decimals);
  EXPECT_LE(std::fabs(actual - printed), half + 1e-12)
      << "actual " << actual << " does not print as " << printed;
}

TEST(Usl, SeedFigures) {
  auto peak = UslPeakOf(0.05, 0.002);
  ASSERT_TRUE(peak.ok());
  EXPECT_EQ(peak->n, 22);
  ExpectPrinted(peak->n_exact, 21.79, 2);
  ExpectPrinted(peak->capacity, 7.40, 2);
  ExpectPrinted(UslCapacity(0.05, 0.002, 12), 6.62, 2);
  ExpectPrinted(UslCapacity(0.05, 0.002, 64), 5.24, 2);
  EXPECT_DOUBLE_EQ(UslCapacity(0.05, 0.002, 1), 1.0);
}

TEST(Usl, PeakNeedsPositiveKappa) {
  EXPECT_FALSE(UslPeakOf(0.05, 0).ok());
  EXPECT_FALSE(UslPeakOf(-0.1, 0.002).ok());
  EXPECT_FALSE(UslPeakOf(0.05, std::nan("")).ok());
}

// N* = sqrt(1 - sigma) / sqrt(kappa), so no quotient overflows on the way:
// for kappa = 1e-320 the quotient 0.95 / 1e-320 is beyond DBL_MAX while N*
// (about 9.75e159, by hand) is not, and it is named in the refusal (beyond
// 2^53 the best integer N cannot be told apart). Below that bound the peak
// is found and every number is finite.
TEST(Usl, PeakOfATinyKappaIsFiniteOrRefusedNamingIt) {
  absl::StatusOr<UslPeak> far = UslPeakOf(0.05, 1e-320);
  ASSERT_FALSE(far.ok());
  EXPECT_EQ(far.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(far.status().message().find("9.74"), std::string::npos)
      << far.status();
  EXPECT_NE(far.status().message().find("e+159"), std::string::npos)
      << far.status();
  EXPECT_NE(far.status().message().find("2^53"), std::string::npos);
  // sqrt(0.95 / 1e-20) = 9.7468e9, checked by hand.
  absl::StatusOr<UslPeak> near = UslPeakOf(0.05, 1e-20);
  ASSERT_TRUE(near.ok()) << near.status();
  EXPECT_NEAR(near->n_exact, 9.746794344808963e9, 1e-3);
  EXPECT_LE(std::abs(static_cast<double>(near->n) - near->n_exact), 1.0);
  EXPECT_TRUE(std::isfinite(near->capacity));
  EXPECT_GT(near->capacity, 1);
}

TEST(Amdahl, SeedFigures) {
  ExpectPrinted(AmdahlSpeedup(0.05, 16), 9.1, 1);
  ExpectPrinted(AmdahlSpeedup(0.05, 16) / 16 * 100, 57, 0);  // efficiency %
  ExpectPrinted(AmdahlSpeedup(0.05, 64), 15.4, 1);
  ExpectPrinted(AmdahlLimit(0.05), 20, 0);
  EXPECT_TRUE(std::isinf(AmdahlLimit(0)));
}

TEST(Amdahl, PerStageWhatIf) {
  std::vector<Stage> stages = {
      {"app", 30}, {"db", 650}, {"serialisation", 20}, {"other", 100}};
  struct Row {
    const char* stage;
    double speedup;
  };
  for (Row row : {Row{"serialisation", 1.02}, Row{"app", 1.03},
                  Row{"other", 1.13}, Row{"db", 3.72}}) {
    auto w = SpeedUpStage(stages, row.stage, 10);
    ASSERT_TRUE(w.ok()) << row.stage;
    ExpectPrinted(w->speedup, row.speedup, 2);
    EXPECT_DOUBLE_EQ(w->old_total_ms, 800);
    // The overall speed-up is exactly old total / new total.
    EXPECT_NEAR(w->old_total_ms / w->new_total_ms, w->speedup, 1e-12);
  }
  auto db = SpeedUpStage(stages, "db", 10);
  ASSERT_TRUE(db.ok());
  ExpectPrinted(db->new_total_ms, 215, 0);
}

TEST(Amdahl, WhatIfRejectsBadInput) {
  std::vector<Stage> stages = {{"app", 30}, {"db", 650}};
  EXPECT_FALSE(SpeedUpStage(stages, "cache", 10).ok());
  EXPECT_FALSE(SpeedUpStage(stages, "db", 0).ok());
  EXPECT_FALSE(SpeedUpStage({{"app", -1}}, "app", 2).ok());
  EXPECT_FALSE(SpeedUpStage({}, "app", 2).ok());
}

// An overflowing product or a pool past int64 is refused, never wrapped
// into a negative pool (1e308 req/s for 1e305 s is L = inf).
TEST(Little, RefusesWhatOverflows) {
  EXPECT_FALSE(SolveLittle(std::nullopt, 1e308, 1e305).ok());
  EXPECT_FALSE(SolveLittle(1e-300, 1e300, std::nullopt).ok());  // W = 0
  EXPECT_FALSE(SizePool(1e19, 1, 0).ok());
  EXPECT_FALSE(SizePool(4e18, 1, 0.3).ok());  // 5.2e18 with headroom
  absl::StatusOr<PoolSizing> big = SizePool(4e18, 1, 0);
  ASSERT_TRUE(big.ok()) << big.status();
  EXPECT_EQ(big->minimum, int64_t{4'000'000'000'000'000'000});
}

TEST(Little, SeedFigures) {
  auto l = SolveLittle(std::nullopt, 250, 0.060);
  ASSERT_TRUE(l.ok());
  EXPECT_NEAR(l->l, 15, 1e-9);
  auto pool = SizePool(250, 0.060, 0.3);
  ASSERT_TRUE(pool.ok());
  EXPECT_EQ(pool->minimum, 15);
  EXPECT_EQ(pool->with_headroom, 20);  // "pick a pool of ~20"
  auto pool20 = SizePool(250, 0.060, 0.2);
  ASSERT_TRUE(pool20.ok());
  EXPECT_EQ(pool20->with_headroom, 18);
  // Client pool ceiling: 20 connections held 40 ms each.
  EXPECT_NEAR(PoolCeilingPerS(20, 0.040), 500, 1e-9);
  // Offered 1,000 calls/s is twice the ceiling: half of them must wait.
  EXPECT_NEAR(1.0 - PoolCeilingPerS(20, 0.040) / 1000, 0.5, 1e-12);
}

// 100 req/s held 70 ms: L = 7 by hand, 7.000000000000001 in doubles, which a
// plain ceil would turn into a pool of 8.
TEST(Little, PoolOfAWholeLIsThatWhole) {
  auto pool = SizePool(100, 0.07, 0);
  ASSERT_TRUE(pool.ok()) << pool.status();
  EXPECT_EQ(pool->minimum, 7);
  EXPECT_EQ(pool->with_headroom, 7);
}

TEST(Little, SolvesEachUnknown) {
  auto w = SolveLittle(15, 250, std::nullopt);
  ASSERT_TRUE(w.ok());
  EXPECT_NEAR(w->w_s, 0.060, 1e-12);
  auto rate = SolveLittle(15, std::nullopt, 0.060);
  ASSERT_TRUE(rate.ok());
  EXPECT_NEAR(rate->rate_per_s, 250, 1e-9);
  EXPECT_FALSE(SolveLittle(15, 250, 0.06).ok());
  EXPECT_FALSE(SolveLittle(std::nullopt, 250, std::nullopt).ok());
  EXPECT_FALSE(SolveLittle(std::nullopt, -250, 0.06).ok());
}

TEST(Cost, SeedColumn) {
  auto base = CostPerMillion(86, 8, 1);
  ASSERT_TRUE(base.ok());
  ExpectPrinted(base->usd_per_hour, 0.325, 3);
  struct Row {
    double rps;
    double usd;
  };
  for (Row row : {Row{86, 1.747}, Row{691, 0.217}, Row{1224, 0.123},
                  Row{263, 0.571}, Row{1762, 0.085}, Row{1973, 0.076},
                  Row{2469, 0.061}, Row{5293, 0.028}, Row{5214, 0.029}}) {
    auto c = CostPerMillion(row.rps, 8, 1);
    ASSERT_TRUE(c.ok());
    ExpectPrinted(c->usd_per_million, row.usd, 3);
  }
  auto small = CostPerMillion(6066, 4, 1);
  ASSERT_TRUE(small.ok());
  ExpectPrinted(small->usd_per_hour, 0.165, 3);
  ExpectPrinted(small->usd_per_million, 0.013, 3);
}

TEST(Cost, RejectsBadInput) {
  EXPECT_FALSE(CostPerMillion(0, 8, 1).ok());
  EXPECT_FALSE(CostPerMillion(86, 0, 1).ok());
  EXPECT_FALSE(CostPerMillion(86, 8, -1).ok());
  EXPECT_FALSE(CostPerMillion(86, 8, 1, {.target_utilisation = 1.5}).ok());
}

// Finite inputs whose cost is not (1e300 vCPU at 1e-300 req/s): refused,
// not printed as null.
TEST(Cost, ACostBeyondTheLargestDoubleIsRefused) {
  absl::StatusOr<Cost> c = CostPerMillion(1e-300, 1e300, 1);
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("beyond the largest double"),
            std::string::npos)
      << c.status();
  EXPECT_TRUE(CostPerMillion(1e-3, 1e3, 1).ok());
}

TEST(Percentiles, NearestRank) {
  std::vector<double> v;
  for (int i = 1; i <= 1000; ++i) v.push_back(i);
  EXPECT_EQ(*NearestRankSorted(v, 50), 500);
  EXPECT_EQ(*NearestRankSorted(v, 99), 990);
  EXPECT_EQ(*NearestRankSorted(v, 99.9), 999);  // not 1000: see NearestRank
  EXPECT_EQ(*NearestRankSorted(v, 100), 1000);
  EXPECT_EQ(*NearestRankSorted(v, 0.01), 1);
  EXPECT_FALSE(NearestRankSorted(v, 0).ok());
  EXPECT_FALSE(NearestRankSorted({}, 50).ok());
}

TEST(Percentiles, NearestRankRoundsUpWhenTheRankIsFractional) {
  // Ten values 10, 20, ..., 100. By hand: p25 -> rank ceil(2.5) = 3 -> 30;
  // p33 -> ceil(3.3) = 4 -> 40; p91 -> ceil(9.1) = 10 -> 100; p5 -> ceil(0.5)
  // = 1 -> 10.
  std::vector<double> v;
  for (int i = 1; i <= 10; ++i) v.push_back(10 * i);
  EXPECT_EQ(*NearestRankSorted(v, 25), 30);
  EXPECT_EQ(*NearestRankSorted(v, 33), 40);
  EXPECT_EQ(*NearestRankSorted(v, 91), 100);
  EXPECT_EQ(*NearestRankSorted(v, 5), 10);
  EXPECT_EQ(NearestRank(50, 7), 4);          // 3.5 -> 4
  EXPECT_EQ(NearestRank(99, 150), 149);      // 148.5 -> 149
  EXPECT_EQ(NearestRank(99.9, 1500), 1499);  // 1498.5 -> 1499
}

TEST(Percentiles, NearestRankAgainstItsDefinition) {
  // The definition, by brute force in integers: the smallest rank r with
  // r / n >= p / 100, i.e. 100 r >= p n, for p in hundredths of a percent
  // (10000 r >= p_x100 n): no floating point, no ceil.
  for (int64_t n : {1, 2, 3, 7, 10, 99, 101, 333, 1000, 1001}) {
    for (int64_t p_x100 : {1, 50, 100, 1000, 2500, 3333, 5000, 6667, 9000, 9500,
                           9900, 9950, 9990, 9999, 10000}) {
      int64_t want = 1;
      while (10000 * want < p_x100 * n) ++want;
      EXPECT_EQ(NearestRank(static_cast<double>(p_x100) / 100, n), want)
          << "p" << static_cast<double>(p_x100) / 100 << " of n = " << n;
    }
  }
}

TEST(Percentiles, TheSmallestPercentileIsTheFirstValue) {
  // p = 4.9e-324, the smallest double above 0 (accepted: (0, 100]): p / 100
  // underflows to 0, so p n / 100 is 0 and its ceiling rank 0; the nearest
  // rank is still at least 1, the smallest value.
  EXPECT_EQ(NearestRank(4.9e-324, 10), 1);
  EXPECT_EQ(*NearestRankSorted({1, 2, 3}, 4.9e-324), 1);
}

TEST(Percentiles, WindowForTail) {
  // "p99.9 needs >= 10,000 requests for ~10 tail samples".
  EXPECT_EQ(SamplesForTail(99.9, 10), 10000);
  EXPECT_EQ(SamplesForTail(99, 10), 1000);
  EXPECT_EQ(SamplesForTail(99.99, 10), 100000);
  EXPECT_EQ(SamplesForTail(50, 3), 6);
}

}  // namespace
}  // namespace perflab::models
