// The ziggurat's tables and draws against the analytic distributions: the
// tables recomputed with libm in long double, Kolmogorov-Smirnov against the
// exact CDF at fixed seeds, moments, and the tails beyond the last layer
// (drawn by a different method than the layers, so checked on their own).
#include "sim/ziggurat.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <vector>

#include "gtest/gtest.h"

namespace perflab::sim {
namespace {

constexpr int kDraws = 4'000'000;

// Kolmogorov-Smirnov statistic D_n of sorted samples against `cdf`.
double KsStatistic(std::vector<double> v,
                   const std::function<double(double)>& cdf) {
  std::sort(v.begin(), v.end());
  const double n = static_cast<double>(v.size());
  double d = 0;
  for (size_t i = 0; i < v.size(); ++i) {
    const double f = cdf(v[i]);
    d = std::max({d, f - static_cast<double>(i) / n,
                  static_cast<double>(i + 1) / n - f});
  }
  return d;
}
// The asymptotic critical value for alpha = 0.001: sqrt(-ln(0.0005) / 2).
double KsCritical(size_t n) {
  return 1.9495 / std::sqrt(static_cast<double>(n));
}

std::vector<double> Draw(double (*draw)(core::Xoshiro256&), uint64_t seed,
                         int n) {
  core::Xoshiro256 rng(seed);
  std::vector<double> v(n);
  for (double& x : v) x = draw(rng);
  return v;
}

TEST(ZigguratTest, TablesAgreeWithLibmAndHaveEqualLayers) {
  for (const bool normal : {false, true}) {
    const ZigguratTables& t = normal ? kZigNorm : kZigExp;
    const long double v = normal ? kZigNormV : kZigExpV;
    const long double r = normal ? kZigNormR : kZigExpR;
    auto pdf = [normal](long double x) {
      return normal ? std::exp(-x * x / 2) : std::exp(-x);
    };
    // v = r f(r) + the tail's area beyond r.
    const long double tail = normal ? std::sqrt(std::acos(-1.0L) / 2) *
                                          std::erfc(r / std::sqrt(2.0L))
                                    : std::exp(-r);
    EXPECT_NEAR(static_cast<double>((r * pdf(r) + tail) / v), 1, 1e-9);
    EXPECT_NEAR(static_cast<double>(t.x[0] * pdf(r) / v), 1, 1e-15);
    EXPECT_EQ(t.x[1], static_cast<double>(r));
    for (int i = 1; i < 256; ++i) {
      EXPECT_NEAR(t.f[i] / static_cast<double>(pdf(t.x[i])), 1, 1e-14) << i;
      EXPECT_LT(t.x[i + 1], t.x[i]);
      // Every layer, the top one included, has the area v.
      const long double area =
          t.x[i] * (static_cast<long double>(t.f[i + 1]) - t.f[i]);
      EXPECT_NEAR(static_cast<double>(area / v), 1, i < 255 ? 1e-12 : 1e-8)
          << (normal ? "normal" : "exponential") << " layer " << i;
    }
  }
}

TEST(ZigguratTest, ExponentialPassesKolmogorovSmirnovAndMoments) {
  const std::vector<double> v = Draw(&StandardExponential, 1, kDraws);
  const double d = KsStatistic(v, [](double x) { return -std::expm1(-x); });
  std::printf("exponential: KS D = %.6f, critical (alpha 0.001) %.6f\n", d,
              KsCritical(v.size()));
  EXPECT_LT(d, KsCritical(v.size()));
  double m1 = 0, m2 = 0;
  for (double x : v) {
    EXPECT_GE(x, 0);
    m1 += x;
    m2 += x * x;
  }
  m1 /= kDraws;
  m2 /= kDraws;
  // Mean 1 (sd 1/sqrt(n)); E[X^2] = 2 (sd sqrt((24 - 4) / n)); 5 sd.
  EXPECT_NEAR(m1, 1, 5 / std::sqrt(kDraws));
  EXPECT_NEAR(m2, 2, 5 * std::sqrt(20.0 / kDraws));
}

TEST(ZigguratTest, NormalPassesKolmogorovSmirnovAndMoments) {
  const std::vector<double> v = Draw(&StandardNormal, 2, kDraws);
  const double d = KsStatistic(
      v, [](double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); });
  std::printf("normal: KS D = %.6f, critical (alpha 0.001) %.6f\n", d,
              KsCritical(v.size()));
  EXPECT_LT(d, KsCritical(v.size()));
  double m1 = 0, m2 = 0, m3 = 0, m4 = 0;
  for (double x : v) {
    m1 += x;
    m2 += x * x;
    m3 += x * x * x;
    m4 += x * x * x * x;
  }
  m1 /= kDraws;
  m2 /= kDraws;
  m3 /= kDraws;
  m4 /= kDraws;
  // Sds of the sample moments: 1, sqrt(2), sqrt(15), sqrt(96) over sqrt(n).
  const double se = 1 / std::sqrt(kDraws);
  EXPECT_NEAR(m1, 0, 5 * se);
  EXPECT_NEAR(m2, 1, 5 * std::sqrt(2.0) * se);
  EXPECT_NEAR(m3, 0, 5 * std::sqrt(15.0) * se);
  EXPECT_NEAR(m4, 3, 5 * std::sqrt(96.0) * se);
}

// Beyond r the draws come from the tail algorithms: their share must be the
// tail's probability (binomial, 5 sd), and the excess over r its own law.
TEST(ZigguratTest, TailsBeyondTheLastLayer) {
  constexpr int n = 4'000'000;
  {
    core::Xoshiro256 rng(3);
    std::vector<double> excess;
    for (int i = 0; i < n; ++i) {
      const double x = StandardExponential(rng);
      if (x > kZigExpR) excess.push_back(x - kZigExpR);
    }
    const double p = std::exp(-kZigExpR);  // 4.54e-4
    std::printf("exponential: %zu beyond r, expected %.1f\n", excess.size(),
                n * p);
    EXPECT_NEAR(static_cast<double>(excess.size()), n * p,
                5 * std::sqrt(n * p * (1 - p)));
    // Memoryless: the excess is again standard exponential.
    EXPECT_LT(KsStatistic(excess, [](double x) { return -std::expm1(-x); }),
              KsCritical(excess.size()));
  }
  {
    core::Xoshiro256 rng(4);
    std::vector<double> beyond;
    int negative = 0;
    for (int i = 0; i < n; ++i) {
      const double x = StandardNormal(rng);
      if (std::abs(x) > kZigNormR) {
        beyond.push_back(std::abs(x));
        negative += x < 0;
      }
    }
    const double p = std::erfc(kZigNormR / std::sqrt(2.0));  // 2.58e-4
    std::printf("normal: %zu beyond |r|, expected %.1f\n", beyond.size(),
                n * p);
    EXPECT_NEAR(static_cast<double>(beyond.size()), n * p,
                5 * std::sqrt(n * p * (1 - p)));
    const double b = static_cast<double>(beyond.size());
    EXPECT_NEAR(negative, b / 2, 5 * std::sqrt(b / 4));
    // |x| given |x| > r: P(|X| <= y | |X| > r) = 1 - erfc(y/√2) / erfc(r/√2).
    const double tail = std::erfc(kZigNormR / std::sqrt(2.0));
    EXPECT_LT(KsStatistic(beyond,
                          [tail](double y) {
                            return 1 - std::erfc(y / std::sqrt(2.0)) / tail;
                          }),
              KsCritical(beyond.size()));
  }
}

}  // namespace
}  // namespace perflab::sim
