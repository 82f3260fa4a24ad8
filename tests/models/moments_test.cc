// Mean and sample standard deviation: plain results where plain sums are
// finite, and finite results near DBL_MAX, checked against figures worked
// out by hand.
#include "models/moments.h"

#include <cfloat>
#include <cmath>
#include <vector>

#include "gtest/gtest.h"

namespace perflab::models {
namespace {

TEST(Moments, SmallValuesGetThePlainFormulas) {
  const std::vector<double> xs = {2, 4, 4, 4, 5, 5, 7, 9};
  EXPECT_EQ(MeanOf(xs), 5.0);
  // Squared deviations 9+1+1+1+0+0+4+16 = 32; 32 / 7.
  EXPECT_DOUBLE_EQ(SampleSdOf(xs, 5.0), std::sqrt(32.0 / 7.0));
  EXPECT_EQ(MeanOf({}), 0);
  EXPECT_EQ(SampleSdOf({3}, 3), 0);
}

// Three values of 1.7e308: their plain sum is infinite, their mean is
// 1.7e308 and their spread 0 (to rounding).
TEST(Moments, ValuesNearTheLargestDoubleStayFinite) {
  const std::vector<double> big(3, 1.7e308);
  const double mean = MeanOf(big);
  EXPECT_DOUBLE_EQ(mean, 1.7e308);
  // The mean may be off by an ulp (scaled, summed, scaled back): the spread
  // is then of that size, never infinite.
  EXPECT_LE(SampleSdOf(big, mean), 1e-15 * 1.7e308);
  // DBL_MAX and DBL_MAX / 2: mean 0.75 DBL_MAX, deviations +-0.25 DBL_MAX,
  // sd = sqrt(2 x 0.0625 / 1) DBL_MAX = 0.35355 DBL_MAX.
  const std::vector<double> two = {DBL_MAX, DBL_MAX / 2};
  const double m2 = MeanOf(two);
  EXPECT_DOUBLE_EQ(m2, 0.75 * DBL_MAX);
  EXPECT_DOUBLE_EQ(SampleSdOf(two, m2), std::sqrt(0.125) * DBL_MAX);
  // Opposite extremes: mean 0, spread beyond DBL_MAX, reported as DBL_MAX.
  const std::vector<double> wide = {DBL_MAX, -DBL_MAX};
  EXPECT_EQ(MeanOf(wide), 0);
  EXPECT_EQ(SampleSdOf(wide, 0), DBL_MAX);
}

}  // namespace
}  // namespace perflab::models
