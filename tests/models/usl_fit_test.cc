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

double SumSquares(const std::vector<UslPoint>& pts, double sigma, double kappa,
                  double lambda) {
  double s = 0;
  for (const UslPoint& q : pts) {
    double r = q.throughput - lambda * UslCapacity(sigma, kappa, q.n);
    s += r * r;
  }
  return s;
}

TEST(UslFit, RecoversExactParametersFromAPoorStart) {
  // Measured from 4 workers up, with strong coherency (peak near N = 9.5):
  // the start takes lambda = X(4) / 4, 25 % low, and its linearised sigma
  // and kappa are far off, so only the optimiser can reach the answer. The
  // points are exact, so the least-squares optimum IS the generating curve.
  std::vector<UslPoint> pts;
  for (double n : {4, 6, 8, 12, 16, 24, 32}) {
    pts.push_back({n, 500 * UslCapacity(0.1, 0.01, n)});
  }
  auto fit = FitUsl(pts);
  ASSERT_TRUE(fit.ok());
  EXPECT_NEAR(fit->sigma, 0.1, 1e-5);
  EXPECT_NEAR(fit->kappa, 0.01, 1e-6);
  EXPECT_NEAR(fit->lambda, 500, 1e-3);
  EXPECT_LT(fit->rms_residual, 1e-6);
}

TEST(UslFit, NoisyFitIsALeastSquaresMinimum) {
  // +-5 % noise with strong coherency. Whatever the noise, the least-squares
  // fit explains the points at least as well as the generating curve does,
  // and it is a stationary point: the sum of squares, differenced by hand
  // (no Jacobian from the code), does not fall in any direction.
  for (uint64_t seed : {1, 2, 3, 4, 5}) {
    std::vector<UslPoint> pts = Noisy(0.1, 0.01, 500, 0.05, seed);
    auto fit = FitUsl(pts);
    ASSERT_TRUE(fit.ok());
    const double at_fit = SumSquares(pts, fit->sigma, fit->kappa, fit->lambda);
    EXPECT_LE(at_fit, SumSquares(pts, 0.1, 0.01, 500) * (1 + 1e-9))
        << "seed " << seed;
    EXPECT_NEAR(fit->rms_residual, std::sqrt(at_fit / pts.size()), 1e-9);
    // Relative steps of 1e-4 of each parameter, both ways.
    const double p[3] = {fit->sigma, fit->kappa, fit->lambda};
    for (int i = 0; i < 3; ++i) {
      for (double sign : {-1.0, 1.0}) {
        double q[3] = {p[0], p[1], p[2]};
        q[i] *= 1 + sign * 1e-4;
        if (q[i] < 0) continue;
        EXPECT_GE(SumSquares(pts, q[0], q[1], q[2]), at_fit * (1 - 1e-12))
            << "seed " << seed << " parameter " << i << " sign " << sign;
      }
    }
    // And it lands near the generating parameters (the noise allows this).
    EXPECT_NEAR(fit->sigma, 0.1, 0.05) << "seed " << seed;
    EXPECT_NEAR(fit->kappa, 0.01, 0.002) << "seed " << seed;
    EXPECT_NEAR(fit->lambda, 500, 50) << "seed " << seed;
  }
}

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

// Three unknowns cannot be fitted from fewer than three different N: repeated
// points fit exactly (R^2 = 1) whatever sigma and kappa are.
TEST(UslFit, RejectsFewerThanThreeDifferentN) {
  absl::StatusOr<UslFit> same = FitUsl({{1, 100}, {1, 100}, {1, 100}});
  ASSERT_FALSE(same.ok());
  EXPECT_EQ(same.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(same.status().message().find("only 1 different N"),
            std::string::npos)
      << same.status();
  EXPECT_FALSE(FitUsl({{1, 100}, {4, 300}, {1, 101}, {4, 299}}).ok());
  EXPECT_TRUE(FitUsl({{1, 100}, {4, 300}, {8, 450}}).ok());
}

// Beyond the stated bounds a point is refused; within them, on random
// points of every magnitude the bounds allow (N up to 1e9, throughput up to
// 1e100), a fit either succeeds with every number finite or is refused:
// never a NaN with success.
TEST(UslFit, EveryAcceptedFitIsFinite) {
  EXPECT_FALSE(FitUsl({{1, 1e101}, {2, 1e100}, {4, 1e100}}).ok());
  EXPECT_FALSE(FitUsl({{1, 10}, {2, 19}, {2e9, 30}}).ok());
  EXPECT_FALSE(FitUsl({{1, 10}, {2, 19}, {4, std::nan("")}}).ok());
  core::SplitMix64 rng(3636);
  int fitted = 0;
  for (int trial = 0; trial < 300; ++trial) {
    std::vector<UslPoint> pts;
    pts.reserve(3 + trial % 5);
    const double x_scale = std::pow(10.0, 200 * rng.Uniform01() - 100);
    const double n_scale = std::pow(10.0, 9 * rng.Uniform01());
    for (int i = 0; i < 3 + trial % 5; ++i) {
      pts.push_back(
          {1 + std::floor(n_scale * rng.Uniform01()) + i,
           std::min(kMaxUslFitThroughput, x_scale * (0.01 + rng.Uniform01()))});
    }
    absl::StatusOr<UslFit> fit = FitUsl(pts);
    if (!fit.ok()) continue;
    ++fitted;
    for (double v : {fit->sigma, fit->kappa, fit->lambda, fit->rms_residual,
                     fit->r_squared}) {
      EXPECT_TRUE(std::isfinite(v)) << trial;
    }
  }
  EXPECT_GT(fitted, 200);
}

}  // namespace
}  // namespace perflab::models
