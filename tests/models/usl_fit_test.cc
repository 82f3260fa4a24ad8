// The USL fit recovers known parameters from noisy synthetic points.
#include <cmath>
#include <cstdint>

#include "core/random.h"
#include "gtest/gtest.h"
#include "models/usl.h"

namespace perflab::models {
namespace {

// A tiny deterministic generator for the noise (splitmix64).

std::vector<UslPoint> Noisy(double sigma, double kappa, double lambda,
                            double noise, uint64_t seed) {
  std::vector<UslPoint> pts;
  core::SplitMix64 rng(seed);
  for (double n : {1, 2, 4, 8, 12, 16, 24, 32, 48, 64}) {
    double factor = 1 + noise * (2 * rng.Uniform01() - 1);
    pts.push_back({n, lambda * UslCapacity(sigma, kappa, n) * factor});
  }
  return pts;
}

TEST(UslFit, RecoversExactParameters) {
  auto fit = FitUsl(Noisy(0.05, 0.002, 100, 0, 1));
  ASSERT_TRUE(fit.ok());
  EXPECT_NEAR(fit->sigma, 0.05, 1e-6);
  EXPECT_NEAR(fit->kappa, 0.002, 1e-8);
  EXPECT_NEAR(fit->lambda, 100, 1e-4);
  EXPECT_LT(fit->rms_residual, 1e-6);
}

class UslFitNoisy : public ::testing::TestWithParam<uint64_t> {};

TEST_P(UslFitNoisy, RecoversWithinTenPercent) {
  // 10 points with +-1 % noise, seeds fixed.
  auto fit = FitUsl(Noisy(0.05, 0.002, 1000, 0.01, GetParam()));
  ASSERT_TRUE(fit.ok());
  EXPECT_NEAR(fit->sigma, 0.05, 0.005);
  EXPECT_NEAR(fit->kappa, 0.002, 0.0002);
  EXPECT_NEAR(fit->lambda, 1000, 100);
  EXPECT_GT(fit->r_squared, 0.99);
  EXPECT_GT(fit->rms_residual, 0);
}

INSTANTIATE_TEST_SUITE_P(Seeds, UslFitNoisy,
                         ::testing::Values(1, 2, 3, 42, 2024),
                         ::testing::PrintToStringParamName());

TEST(UslFit, KeepsParametersNonNegative) {
  // Perfectly linear scaling: the unconstrained optimum would go negative.
  std::vector<UslPoint> pts;
  for (double n : {1, 2, 4, 8, 16}) pts.push_back({n, 10 * n * 1.001});
  auto fit = FitUsl(pts);
  ASSERT_TRUE(fit.ok());
  EXPECT_GE(fit->sigma, 0);
  EXPECT_GE(fit->kappa, 0);
  EXPECT_LT(fit->sigma, 1e-3);
}

TEST(UslFit, RejectsBadPoints) {
  EXPECT_FALSE(FitUsl({{1, 10}, {2, 19}}).ok());
  EXPECT_FALSE(FitUsl({{1, 10}, {2, -19}, {4, 30}}).ok());
  EXPECT_FALSE(FitUsl({{0, 10}, {2, 19}, {4, 30}}).ok());
}

}  // namespace
}  // namespace perflab::models
