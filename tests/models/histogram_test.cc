// The histogram against exact nearest-rank percentiles, its merge, and its
// coordinated-omission correction.
#include "models/histogram.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "core/random.h"
#include "gtest/gtest.h"

namespace perflab::models {
namespace {

// Heavy-tailed mixture in microseconds: 97 % around 15 ms, 2.5 % 120-200 ms,
// 0.5 % 0.8-2 s, plus a Pareto-ish tail, as in the latency-mixture figure.
std::vector<int64_t> Mixture(size_t n, uint64_t seed) {
  std::vector<int64_t> v;
  v.reserve(n);
  core::SplitMix64 rng(seed);
  for (size_t i = 0; i < n; ++i) {
    double u = rng.Uniform01(), w = rng.Uniform01();
    double us;
    if (u < 0.97) {
      us = 15000 * std::exp(0.2 * (w - 0.5));
    } else if (u < 0.995) {
      us = 120000 + 80000 * w;
    } else if (u < 0.9995) {
      us = 800000 + 1200000 * w;
    } else {
      us = 2e6 / std::pow(1 - w, 0.7);  // rare, very slow
    }
    v.push_back(static_cast<int64_t>(us));
  }
  return v;
}

// The exact nearest-rank percentile, independent of models::NearestRank: the
// smallest sample value with at least p % of the sample at or below it. With
// p in hundredths of a percent that is the smallest count with
// 10000 count >= p_x100 n, an integer ceiling: no floating point involved.
int64_t ExactPercentile(const std::vector<int64_t>& sorted, int64_t p_x100) {
  const auto n = static_cast<int64_t>(sorted.size());
  const int64_t count = std::max<int64_t>(1, (p_x100 * n + 9999) / 10000);
  return sorted[static_cast<size_t>(count - 1)];
}

Histogram Make(int digits) {
  auto h = Histogram::Create({.lowest_discernible = 1,
                              .highest_trackable = int64_t{1} << 40,
                              .significant_digits = digits});
  EXPECT_TRUE(h.ok());
  return *std::move(h);
}

class HistogramPrecision : public ::testing::TestWithParam<int> {};

TEST_P(HistogramPrecision, EveryPercentileWithinStatedPrecision) {
  const int digits = GetParam();
  // A prime sample size: p * n / 100 is fractional for every p below, so a
  // rank rounded the wrong way shows.
  constexpr int64_t kN = 999'983;
  std::vector<int64_t> values = Mixture(kN, 7);
  Histogram h = Make(digits);
  for (int64_t v : values) ASSERT_TRUE(h.Record(v));
  std::sort(values.begin(), values.end());
  const double precision = std::pow(10.0, -digits);
  std::vector<int64_t> ps_x100;  // percentiles in hundredths of a percent
  for (int64_t p = 100; p <= 9900; p += 100) ps_x100.push_back(p);
  for (int64_t p : {9950, 9990, 9995, 9999, 10000}) ps_x100.push_back(p);
  for (int64_t p_x100 : ps_x100) {
    const double p = static_cast<double>(p_x100) / 100;
    double exact = static_cast<double>(ExactPercentile(values, p_x100));
    double got = static_cast<double>(h.Percentile(p));
    EXPECT_GE(got, exact) << "p" << p;  // reports the top of the bucket
    EXPECT_LE(got - exact, exact * precision + 1) << "p" << p;
  }
  EXPECT_EQ(h.Count(), kN);
  EXPECT_EQ(h.Max(), values.back());
  EXPECT_EQ(h.Min(), values.front());
  double sum = 0;
  for (int64_t v : values) sum += static_cast<double>(v);
  EXPECT_NEAR(h.Mean(), sum / kN, 1e-6 * sum / kN);
}

INSTANTIATE_TEST_SUITE_P(Digits, HistogramPrecision, ::testing::Values(2, 3, 4),
                         ::testing::PrintToStringParamName());

TEST(Histogram, TopPercentilesNeverExceedTheLargestValue) {
  // Values above 2^20 share buckets 512 wide at 3 digits, so a bucket's top
  // lies above most of its values: the largest value recorded bounds every
  // percentile, and p100 is exactly that value.
  Histogram h = Make(3);
  const std::vector<int64_t> values = {1'000, 5'000, 2'000'003, 3'000'017};
  for (int64_t v : values) h.Record(v);
  ASSERT_NE(h.HighestEquivalent(3'000'017), 3'000'017);  // the case that bites
  EXPECT_EQ(h.Percentile(100), 3'000'017);
  EXPECT_EQ(h.Percentile(100), h.Max());
  EXPECT_EQ(h.Percentile(99.99), 3'000'017);  // rank ceil(3.9996) = 4
  EXPECT_EQ(h.Percentile(76), 3'000'017);     // rank ceil(3.04) = 4
  // Rank 3 is within the precision above 2,000,003, never below it.
  EXPECT_GE(h.Percentile(75), 2'000'003);
  EXPECT_LE(h.Percentile(75), 2'000'003 + 2'000'003 / 1000);
}

TEST(Histogram, SmallValuesGiveExactNearestRank) {
  // Below 2,048 every value has its own bucket at 3 digits, so percentiles
  // are exact. Seven values: p50 is rank ceil(3.5) = 4, p10 rank ceil(0.7) = 1,
  // p30 rank ceil(2.1) = 3, p90 rank ceil(6.3) = 7 (by hand).
  Histogram h = Make(3);
  for (int64_t v : {70, 10, 40, 20, 60, 30, 50}) h.Record(v);
  EXPECT_EQ(h.Percentile(50), 40);
  EXPECT_EQ(h.Percentile(10), 10);
  EXPECT_EQ(h.Percentile(30), 30);
  EXPECT_EQ(h.Percentile(90), 70);
  EXPECT_EQ(h.Percentile(100), 70);
}

TEST(Histogram, MergeEqualsHistogramOfUnion) {
  std::vector<int64_t> a = Mixture(200'000, 1), b = Mixture(300'000, 2);
  Histogram ha = Make(3), hb = Make(3), all = Make(3);
  for (int64_t v : a) ha.Record(v);
  for (int64_t v : b) hb.Record(v);
  for (int64_t v : a) all.Record(v);
  for (int64_t v : b) all.Record(v);
  ASSERT_TRUE(ha.Merge(hb).ok());
  EXPECT_TRUE(ha == all);
  EXPECT_EQ(ha.Percentile(99.9), all.Percentile(99.9));
  EXPECT_EQ(ha.Mean(), all.Mean());  // exact sums, so bit-identical means
}

TEST(Histogram, MergeRefusesDifferentLayouts) {
  Histogram a = Make(3), b = Make(2);
  EXPECT_FALSE(a.Merge(b).ok());
}

TEST(Histogram, CoordinatedOmissionCorrectionFillsTheGap) {
  // One 100 ms stall while the client expected to send every 10 ms: the
  // corrected histogram also holds 90, 80, ..., 10 ms, the latencies of the
  // requests that a client on schedule would have sent during the stall.
  Histogram plain = Make(3), corrected = Make(3);
  for (int i = 0; i < 100; ++i) {
    plain.Record(1000);
    corrected.RecordCorrected(1000, 10'000);
  }
  plain.Record(100'000);
  corrected.RecordCorrected(100'000, 10'000);
  EXPECT_EQ(plain.Count(), 101);
  EXPECT_EQ(corrected.Count(), 101 + 9);
  std::vector<int64_t> seen;
  corrected.ForEachBucket([&](int64_t lo, int64_t hi, int64_t count) {
    if (lo > 1000) {
      EXPECT_EQ(count, 1);
      seen.push_back(hi);
    }
  });
  ASSERT_EQ(seen.size(), 10u);
  for (int k = 0; k < 10; ++k) {
    EXPECT_EQ(corrected.LowestEquivalent(seen[k]),
              corrected.LowestEquivalent(int64_t{k + 1} * 10'000));
  }
  EXPECT_GT(corrected.Percentile(95), plain.Percentile(95));
}

TEST(Histogram, OutOfRangeIsCountedNotRecorded) {
  auto h = Histogram::Create({.highest_trackable = 1000});
  ASSERT_TRUE(h.ok());
  EXPECT_FALSE(h->Record(5000));
  EXPECT_FALSE(h->Record(-1));
  EXPECT_TRUE(h->Record(999));
  EXPECT_EQ(h->Count(), 1);
  EXPECT_EQ(h->OutOfRange(), 2);
}

TEST(Histogram, RejectsBadOptions) {
  EXPECT_FALSE(Histogram::Create({.significant_digits = 0}).ok());
  EXPECT_FALSE(Histogram::Create({.significant_digits = 6}).ok());
  EXPECT_FALSE(Histogram::Create({.lowest_discernible = 0}).ok());
  EXPECT_FALSE(
      Histogram::Create({.lowest_discernible = 100, .highest_trackable = 150})
          .ok());
}

// The first bucket ends at sub_bucket_count << unit_magnitude, which must
// stay below 2^63. By hand: 3 digits -> 2 * 10^3 = 2000 -> 2048 = 2^11
// sub-buckets, so unit magnitude floor(log2(lowest)) <= 51, lowest < 2^52;
// 1 digit -> 20 -> 32 = 2^5 sub-buckets, lowest < 2^58. Past that, the
// range setup's loop would never end; Create must refuse, quickly.
TEST(Histogram, RefusesALowestValueWhoseFirstBucketPassesInt64) {
  const int64_t top = INT64_MAX;
  EXPECT_TRUE(Histogram::Create({(int64_t{1} << 52) - 1, top, 3}).ok());
  EXPECT_FALSE(Histogram::Create({int64_t{1} << 52, top, 3}).ok());
  EXPECT_TRUE(Histogram::Create({(int64_t{1} << 58) - 1, top, 1}).ok());
  for (int64_t lowest : {int64_t{1} << 58, int64_t{1} << 62, top}) {
    absl::StatusOr<Histogram> h = Histogram::Create({lowest, top, 1});
    ASSERT_FALSE(h.ok()) << lowest;
    EXPECT_NE(h.status().message().find("lowest_discernible"),
              std::string::npos);
  }
}

TEST(Histogram, MergeRefusesCountsPastInt64) {
  Histogram a = *Histogram::Create();
  Histogram b = *Histogram::Create();
  a.Record(7, INT64_MAX - 1);
  b.Record(7, 1);
  ASSERT_TRUE(a.Merge(b).ok());  // exactly INT64_MAX: still representable
  EXPECT_EQ(a.Count(), INT64_MAX);
  absl::Status s = a.Merge(b);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("2^63"), std::string::npos);
  EXPECT_EQ(a.Count(), INT64_MAX);  // unchanged
}

}  // namespace
}  // namespace perflab::models
