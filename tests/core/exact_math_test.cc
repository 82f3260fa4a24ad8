// exact_math against the C library: the functions must agree with std:: to
// the stated ulp bounds (glibc's exp, log, log1p and sqrt are the reference;
// sqrt and llround are exact by IEEE 754 / definition), and be usable in
// constant evaluation.
#include "core/exact_math.h"

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "core/random.h"
#include "gtest/gtest.h"

namespace perflab::core {
namespace {

static_assert(RoundHalfAway(2.5) == 3 && RoundHalfAway(-2.5) == -3);
static_assert(Exp(0) == 1 && Log(1) == 0 && Sqrt(4) == 2);

// Distance in units in the last place between two finite doubles of one sign.
int64_t Ulps(double a, double b) {
  const auto ia = std::bit_cast<int64_t>(a);
  const auto ib = std::bit_cast<int64_t>(b);
  return ia > ib ? ia - ib : ib - ia;
}

TEST(ExactMathTest, RoundHalfAwayIsLlround) {
  const double cases[] = {0.0,
                          0.49999999999999994,
                          0.5,
                          1.5,
                          2.5,
                          -0.5,
                          -1.5,
                          -0.49999999999999994,
                          4503599627370495.5,  // 2^52 - 0.5
                          4503599627370497.0,
                          9007199254740993.0,
                          9.0e18,
                          -9.0e18,
                          1e-300};
  for (double x : cases) EXPECT_EQ(RoundHalfAway(x), std::llround(x)) << x;
  SplitMix64 g(1);
  for (int i = 0; i < 200000; ++i) {
    // Magnitudes from 2^-10 to 2^62, and exact halves.
    const double x =
        std::ldexp(g.Uniform01() + 0.5, static_cast<int>(g.Below(72)) - 10);
    const double half = std::floor(x) + 0.5;
    EXPECT_EQ(RoundHalfAway(x), std::llround(x)) << x;
    EXPECT_EQ(RoundHalfAway(-x), std::llround(-x)) << x;
    if (half < 0x1.0p52) {
      EXPECT_EQ(RoundHalfAway(half), std::llround(half));
    }
  }
}

TEST(ExactMathTest, ExpWithinTwoUlpsOfLibm) {
  SplitMix64 g(2);
  int64_t worst = 0;
  for (int i = 0; i < 400000; ++i) {
    const double x = -708 + 1417 * g.Uniform01();
    worst = std::max(worst, Ulps(Exp(x), std::exp(x)));
  }
  for (double x = -40; x <= 40; x += 1.0 / 64) {
    worst = std::max(worst, Ulps(Exp(x), std::exp(x)));
  }
  EXPECT_LE(worst, 2);
  EXPECT_EQ(Exp(-746), 0);
  EXPECT_EQ(Exp(710), std::numeric_limits<double>::infinity());
  EXPECT_TRUE(std::isnan(Exp(std::numeric_limits<double>::quiet_NaN())));
  // Subnormal results keep their order of magnitude.
  EXPECT_NEAR(Exp(-740) / std::exp(-740), 1, 1e-10);
}

#if defined(__SSE2__)
// ExpPair's lanes against Exp, bit for bit (the simulator's lognormal draws
// use either): random arguments over the whole range, both signs of the
// rounding of k (x log2 e at and near whole and half integers, where
// RoundHalfAway's tie and the sign of a zero k decide), and the arguments
// beyond 690 or NaN that fall back to Exp.
TEST(ExactMathTest, ExpPairIsExpBitForBit) {
  auto same = [](double a, double b) {
    const double x[2] = {a, b};
    double out[2];
    ExpPair(x, out);
    EXPECT_EQ(std::bit_cast<uint64_t>(out[0]), std::bit_cast<uint64_t>(Exp(a)))
        << a;
    EXPECT_EQ(std::bit_cast<uint64_t>(out[1]), std::bit_cast<uint64_t>(Exp(b)))
        << b;
  };
  SplitMix64 g(5);
  for (int i = 0; i < 200000; ++i) {
    same(-745 + 1455 * g.Uniform01(), -30 + 60 * g.Uniform01());
  }
  constexpr double kLn2 = 0.6931471805599453;
  for (int k = -997; k <= 997; ++k) {
    for (const double f : {-0.5, -0.25, 0.0, 0.25, 0.5}) {
      const double x = (k + f) * kLn2;
      same(x, std::nextafter(x, 0.0));
      same(-x, std::nextafter(x, 1e9));
    }
  }
  same(0.0, -0.0);
  same(-1e-300, 1e-300);
  same(690, -690);
  same(690.5, std::numeric_limits<double>::quiet_NaN());
  same(-746, 710);
}
#endif

// ExpBlock against Exp of the sum, bit for bit, for every length up to 19 (the
// four- lane loop, then pairs, then one), at every offset of a special value
// (beyond 690, NaN: its quad falls back to Exp lane by lane), and over
// arguments near where RoundHalfAway's tie and the sign of a zero k decide.
TEST(ExactMathTest, ExpBlockIsExpBitForBit) {
  auto check = [](const std::vector<double>& x, double offset = 0) {
    std::vector<double> out(x.size());
    ExpBlock(offset, x.data(), out.data(), static_cast<int>(x.size()));
    for (size_t i = 0; i < x.size(); ++i) {
      EXPECT_EQ(std::bit_cast<uint64_t>(out[i]),
                std::bit_cast<uint64_t>(Exp(offset + x[i])))
          << offset << " + x[" << i << "] = " << x[i] << " of " << x.size();
    }
  };
  SplitMix64 g(11);
  for (int n = 0; n < 20; ++n) {
    for (int rep = 0; rep < 2000; ++rep) {
      std::vector<double> x(static_cast<size_t>(n));
      for (double& v : x) v = -3 + 6 * g.Uniform01();
      check(x, -740 + 1448 * g.Uniform01());
    }
  }
  for (int n = 1; n < 9; ++n) {
    for (int at = 0; at < n; ++at) {
      for (const double special :
           {690.5, -700.0, 710.0, std::numeric_limits<double>::quiet_NaN()}) {
        std::vector<double> x(static_cast<size_t>(n), 1.5);
        x[static_cast<size_t>(at)] = special;
        check(x);
      }
    }
  }
  constexpr double kLn2 = 0.6931471805599453;
  std::vector<double> near;
  for (int k = -997; k <= 997; ++k) {
    for (const double f : {-0.5, -0.25, 0.0, 0.25, 0.5}) {
      const double x = (k + f) * kLn2;
      near.insert(near.end(),
                  {x, std::nextafter(x, 0.0), -x, std::nextafter(x, 1e9)});
    }
  }
  near.insert(near.end(), {0.0, -0.0, -1e-300, 1e-300, 690, -690});
  check(near);
}

TEST(ExactMathTest, LogWithinOneUlpOfLibm) {
  SplitMix64 g(3);
  int64_t worst = 0;
  for (int i = 0; i < 400000; ++i) {
    // Uniform bit patterns of positive finite doubles, subnormals included.
    const double x =
        std::bit_cast<double>(g.Below(0x7ff0000000000000ULL - 1) + 1);
    worst = std::max(worst, Ulps(Log(x), std::log(x)));
  }
  for (double x = 0.5; x <= 2; x += 1.0 / 4096) {
    if (x != 1) worst = std::max(worst, Ulps(Log(x), std::log(x)));
  }
  EXPECT_LE(worst, 1);
  EXPECT_EQ(Log(0), -std::numeric_limits<double>::infinity());
  EXPECT_TRUE(std::isnan(Log(-1)));
}

TEST(ExactMathTest, Log1pAndSqrtAgreeWithLibm) {
  SplitMix64 g(4);
  int64_t worst_log1p = 0, worst_sqrt = 0;
  for (int i = 0; i < 200000; ++i) {
    const double y =
        std::ldexp(g.Uniform01() + 0.5, static_cast<int>(g.Below(80)) - 60);
    worst_log1p = std::max(worst_log1p, Ulps(Log1p(y), std::log1p(y)));
    worst_sqrt = std::max(worst_sqrt, Ulps(Sqrt(y), std::sqrt(y)));
  }
  EXPECT_LE(worst_log1p, 4);
  EXPECT_LE(worst_sqrt, 1);
  EXPECT_EQ(Log1p(1e-300), 1e-300);
}

}  // namespace
}  // namespace perflab::core
