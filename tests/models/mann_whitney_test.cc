// Mann–Whitney U and the geometric mean against values derived independently:
// a brute-force enumeration of every split of the pooled ranks (in this file),
// R's documented wilcox.test example, and vectors computed once with the
// textbook formulas in Python's standard library (see each vector's comment).
#include "models/mann_whitney.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <vector>

#include "gtest/gtest.h"

namespace perflab::models {
namespace {

// U by its definition: pairs a > b, ties one half. Quadratic, obviously right.
double PairU(const std::vector<double>& a, const std::vector<double>& b) {
  double u = 0;
  for (double x : a)
    for (double y : b) u += x > y ? 1 : (x == y ? 0.5 : 0);
  return u;
}

// Two-sided exact p by enumerating all C(m+n, m) assignments of the pooled
// values to the first sample: 2 * min(P(U <= u), P(U >= u)), capped at 1.
double BruteForceP(const std::vector<double>& a, const std::vector<double>& b) {
  std::vector<double> pooled = a;
  pooled.insert(pooled.end(), b.begin(), b.end());
  const double u = PairU(a, b);
  const int total = static_cast<int>(pooled.size());
  int64_t lo = 0, hi = 0, all = 0;
  for (uint32_t mask = 0; mask < (1u << total); ++mask) {
    if (std::popcount(mask) != static_cast<int>(a.size())) continue;
    std::vector<double> x, y;
    for (int i = 0; i < total; ++i)
      (mask >> i & 1 ? x : y).push_back(pooled[i]);
    double v = PairU(x, y);
    ++all;
    lo += v <= u;
    hi += v >= u;
  }
  return std::min(1.0, 2.0 * static_cast<double>(std::min(lo, hi)) /
                           static_cast<double>(all));
}

TEST(MannWhitney, ExactMatchesBruteForceEnumeration) {
  const std::vector<std::vector<double>> as = {
      {1, 2, 3}, {1.1, 2.5, 3.2, 7.0}, {5, 1, 9, 3, 7}, {0.5, 8, 2, 6, 4, 10}};
  const std::vector<std::vector<double>> bs = {{4, 5, 6},
                                               {2.0, 4.1, 5.5, 6.3, 8.8},
                                               {2, 4, 6, 8, 10, 12},
                                               {1, 3, 5, 7, 9}};
  for (size_t i = 0; i < as.size(); ++i) {
    auto r = MannWhitneyU(as[i], bs[i]);
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_TRUE(r->exact) << i;
    EXPECT_EQ(r->u, PairU(as[i], bs[i])) << i;
    EXPECT_NEAR(r->p_value, BruteForceP(as[i], bs[i]), 1e-12) << i;
  }
}

// R's ?wilcox.test example (x, y, alternative = "greater") documents
// W = 35, p-value = 0.1272; two-sided doubles it. Printed to 4 digits; the
// exact value 0.2544122544... is 2 * 371 / 3003 (Python brute force).
TEST(MannWhitney, RDocumentationExample) {
  std::vector<double> x = {0.80, 0.83, 1.89, 1.04, 1.45,
                           1.38, 1.91, 1.64, 0.73, 1.46};
  std::vector<double> y = {1.15, 0.88, 0.90, 0.74, 1.21};
  auto r = MannWhitneyU(x, y);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->u, 35);
  EXPECT_NEAR(r->p_value, 0.2544, 5e-5);
  EXPECT_NEAR(r->p_value, 0.2544122544122544, 1e-6);
}

// By hand: 3 vs 3 fully separated; only 1 of C(6,3) = 20 splits has U = 0,
// so p = 2 / 20. At 9 vs 9 fully separated, p = 2 / C(18, 9) = 2 / 48620.
TEST(MannWhitney, FullySeparatedByHand) {
  auto r3 =
      MannWhitneyU(std::vector<double>{1, 2, 3}, std::vector<double>{4, 5, 6});
  ASSERT_TRUE(r3.ok());
  EXPECT_EQ(r3->u, 0);
  EXPECT_NEAR(r3->p_value, 0.1, 1e-12);
  std::vector<double> a, b;
  for (int i = 0; i < 9; ++i) {
    a.push_back(100 + i);
    b.push_back(110 + i);
  }
  auto r9 = MannWhitneyU(b, a);
  ASSERT_TRUE(r9.ok());
  EXPECT_EQ(r9->u, 81);
  EXPECT_NEAR(r9->p_value, 2.0 / 48620, 1e-15);
  EXPECT_NEAR(MannWhitneyExactCdf(9, 9, 0), 1.0 / 48620, 1e-15);
}

// Reference vectors with ties (normal approximation, tie-corrected variance,
// continuity 0.5), computed once in Python 3 with math.erfc from
// var = mn/12 * ((N+1) - sum(t^3 - t) / (N(N-1))), z = (|U - mn/2| - 0.5)/sd,
// p = erfc(z / sqrt 2). U was counted pairwise.
struct NormalVector {
  std::vector<double> a, b;
  double u, p;
};

TEST(MannWhitney, NormalApproximationWithTiesMatchesVectors) {
  const std::vector<NormalVector> vectors = {
      {{1, 2, 2, 3, 3, 3, 4}, {3, 4, 4, 5, 5, 6}, 3.5, 0.012999854364387314},
      {{10, 10, 10, 11, 12, 12, 13, 14, 15},
       {12, 13, 13, 14, 15, 15, 16, 16, 17},
       11.5,
       0.011075224198456983},
  };
  for (const NormalVector& v : vectors) {
    auto r = MannWhitneyU(v.a, v.b);
    ASSERT_TRUE(r.ok());
    EXPECT_FALSE(r->exact);
    EXPECT_TRUE(r->ties);
    EXPECT_EQ(r->u, v.u);
    EXPECT_NEAR(r->p_value, v.p, 1e-6);
  }
}

// 50 values or more a side: normal approximation even without ties.
// Vector: 50 vs 50 interleaved 0..99 (a even, b odd): U = 1225 (pairs
// counted), mean 1250, var = 2500 * 101 / 12, z = 24.5 / 83.0 (no ties):
// p = 0.8658764106823897, computed in Python as above.
TEST(MannWhitney, LargeSamplesUseNormalApproximation) {
  std::vector<double> a, b;
  for (int i = 0; i < 100; ++i) (i % 2 == 0 ? a : b).push_back(i);
  auto r = MannWhitneyU(a, b);
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->exact);
  EXPECT_EQ(r->u, 1225);
  EXPECT_NEAR(r->p_value, 0.8658764106823897, 1e-9);
}

TEST(MannWhitney, AllEqualIsPValueOne) {
  auto r =
      MannWhitneyU(std::vector<double>{5, 5, 5}, std::vector<double>{5, 5});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->p_value, 1);
  EXPECT_EQ(r->u, 3);
}

TEST(MannWhitney, RejectsEmptyAndNonFinite) {
  EXPECT_FALSE(
      MannWhitneyU(std::vector<double>{}, std::vector<double>{1}).ok());
  EXPECT_FALSE(
      MannWhitneyU(std::vector<double>{1, NAN}, std::vector<double>{1}).ok());
}

TEST(GeometricMean, ByHand) {
  // (2 * 8)^(1/2) = 4; (1 * 3 * 9)^(1/3) = 3.
  EXPECT_NEAR(*GeometricMean(std::vector<double>{2, 8}), 4, 1e-12);
  EXPECT_NEAR(*GeometricMean(std::vector<double>{1, 3, 9}), 3, 1e-12);
  EXPECT_FALSE(GeometricMean(std::vector<double>{}).ok());
  EXPECT_FALSE(GeometricMean(std::vector<double>{1, 0}).ok());
}

}  // namespace
}  // namespace perflab::models
