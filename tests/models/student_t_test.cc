// Student's t quantile against independent references: closed forms for 1
// and 2 degrees of freedom, the normal limit, and printed table values.
#include "models/student_t.h"

#include <cmath>
#include <numbers>

#include "gtest/gtest.h"

namespace perflab::models {
namespace {

TEST(StudentT, OneDegreeIsCauchy) {
  // t with 1 df is the Cauchy distribution: quantile tan(pi (p - 1/2)).
  for (double p : {0.6, 0.9, 0.975, 0.995}) {
    EXPECT_NEAR(StudentTQuantile(p, 1), std::tan(std::numbers::pi * (p - 0.5)),
                1e-9 * std::tan(std::numbers::pi * (p - 0.5)))
        << p;
  }
}

TEST(StudentT, TwoDegreesClosedForm) {
  // For 2 df: t = (2p - 1) / sqrt(2 p (1 - p)).
  for (double p : {0.55, 0.8, 0.975, 0.999}) {
    double expected = (2 * p - 1) / std::sqrt(2 * p * (1 - p));
    EXPECT_NEAR(StudentTQuantile(p, 2), expected, 1e-9 * expected) << p;
  }
}

TEST(StudentT, TextbookTableValues) {
  // Two-sided 95 % column of a printed t table (3 decimals).
  EXPECT_NEAR(StudentTQuantile(0.975, 1), 12.706, 5e-4);
  EXPECT_NEAR(StudentTQuantile(0.975, 4), 2.776, 5e-4);
  EXPECT_NEAR(StudentTQuantile(0.975, 9), 2.262, 5e-4);
  EXPECT_NEAR(StudentTQuantile(0.975, 30), 2.042, 5e-4);
  EXPECT_NEAR(StudentTQuantile(0.995, 10), 3.169, 5e-4);
}

TEST(StudentT, LargeDfTendsToNormal) {
  // z(0.975) = 1.959964 (the normal quantile).
  EXPECT_NEAR(StudentTQuantile(0.975, 1e7), 1.959964, 1e-5);
}

TEST(StudentT, SymmetricAndInverseOfCdf) {
  for (double df : {1.0, 3.0, 17.0}) {
    for (double p : {0.01, 0.3, 0.7, 0.99}) {
      double t = StudentTQuantile(p, df);
      EXPECT_NEAR(StudentTCdf(t, df), p, 1e-12);
      EXPECT_DOUBLE_EQ(StudentTQuantile(1 - p, df), -t);
    }
  }
}

TEST(StudentT, IncompleteBetaKnownValues) {
  // I_x(1, 1) = x; I_x(a, 1) = x^a; I_x(1, b) = 1 - (1 - x)^b.
  EXPECT_NEAR(RegularizedIncompleteBeta(1, 1, 0.3), 0.3, 1e-14);
  EXPECT_NEAR(RegularizedIncompleteBeta(3, 1, 0.5), 0.125, 1e-14);
  EXPECT_NEAR(RegularizedIncompleteBeta(1, 4, 0.2), 1 - std::pow(0.8, 4),
              1e-14);
}

TEST(StudentT, BadInputIsNaN) {
  EXPECT_TRUE(std::isnan(StudentTQuantile(0, 5)));
  EXPECT_TRUE(std::isnan(StudentTQuantile(1, 5)));
  EXPECT_TRUE(std::isnan(StudentTQuantile(0.9, 0)));
  EXPECT_TRUE(std::isnan(ConfidenceHalfWidth95(1, 1)));
}

TEST(StudentT, HalfWidth) {
  // n = 10, sd = 3: 2.262 * 3 / sqrt(10) = 2.146.
  EXPECT_NEAR(ConfidenceHalfWidth95(3, 10), 2.2622 * 3 / std::sqrt(10.0), 1e-3);
}

}  // namespace
}  // namespace perflab::models
