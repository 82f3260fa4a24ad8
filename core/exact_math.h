// Elementary functions written in plain IEEE double arithmetic (+, -, *, /
// and bit operations, no libm call and no fused multiply-add), so each gives
// the same bits with any C library, any optimisation level and in constant
// evaluation. The simulator's variates and their tables are built on them:
// its outputs must not change with the platform's libm. constexpr, so tables
// can be computed at compile time. Not correctly rounded; the error bounds
// below are checked against std:: in tests/core/exact_math_test.cc.
// The build compiles with -ffp-contract=off; without FMA instructions
// (x86-64's baseline) no contraction could happen anyway.
#ifndef PERFLAB_CORE_EXACT_MATH_H_
#define PERFLAB_CORE_EXACT_MATH_H_

#include <bit>
#include <cstdint>
#include <limits>

namespace perflab::core {

// std::llround without the call: nearest integer, halves away from zero.
// Exact for |x| < 2^63 (x - trunc(x) is exact in double arithmetic).
constexpr int64_t RoundHalfAway(double x) {
  if (x < 0) {
    const auto t = static_cast<int64_t>(-x);
    return -(t + (-x - static_cast<double>(t) >= 0.5 ? 1 : 0));
  }
  const auto t = static_cast<int64_t>(x);
  return t + (x - static_cast<double>(t) >= 0.5 ? 1 : 0);
}

namespace exact_math_internal {
// ln 2 split so that k * kLn2Hi is exact for |k| < 2^21 (fdlibm's values).
inline constexpr double kLn2Hi = 6.93147180369123816490e-01;
inline constexpr double kLn2Lo = 1.90821492927058770002e-10;
inline constexpr double kLog2e = 1.44269504088896338700e+00;

// 2^k for k in [-1074, 1023].
constexpr double Pow2(int k) {
  if (k >= -1022) {
    return std::bit_cast<double>(static_cast<uint64_t>(k + 1023) << 52);
  }
  return std::bit_cast<double>(uint64_t{1} << (k + 1074));
}
}  // namespace exact_math_internal

// e^x within 2 ulp (relative error < 3e-16 where the result is normal).
constexpr double Exp(double x) {
  namespace in = exact_math_internal;
  if (x != x) return x;
  if (x > 709.78271289338397) return std::numeric_limits<double>::infinity();
  if (x < -745.13321910194122) return 0;
  // x = k ln2 + r with |r| <= ln2 / 2; e^r by its Taylor series to r^13
  // (the next term is below 4e-18 relative).
  const auto k = static_cast<int>(RoundHalfAway(x * in::kLog2e));
  const double dk = k;
  const double r = (x - dk * in::kLn2Hi) - dk * in::kLn2Lo;
  constexpr double c[] = {1.0 / 6227020800, 1.0 / 479001600, 1.0 / 39916800,
                          1.0 / 3628800,    1.0 / 362880,    1.0 / 40320,
                          1.0 / 5040,       1.0 / 720,       1.0 / 120,
                          1.0 / 24,         1.0 / 6,         1.0 / 2};
  double p = c[0];
  // Unrolled (-O2 would keep the loop): its counter and branch cost more
  // than the multiply and add it repeats. The same operations in the same
  // order, so the same bits.
#pragma GCC unroll 11
  for (int i = 1; i < 12; ++i) p = p * r + c[i];
  const double er = 1 + (r + r * (r * p));
  // Two steps keep the scale factors representable at both ends.
  if (k > 1000) return er * in::Pow2(1000) * in::Pow2(k - 1000);
  if (k < -1000) return er * in::Pow2(-1000) * in::Pow2(k + 1000);
  return er * in::Pow2(k);
}

// ln x within 1 ulp for x > 0 (fdlibm's reduction and formula, with the
// Taylor coefficients of atanh); ln 0 = -inf, ln of a negative is NaN.
constexpr double Log(double x) {
  namespace in = exact_math_internal;
  if (x != x || x < 0) return std::numeric_limits<double>::quiet_NaN();
  if (x == 0) return -std::numeric_limits<double>::infinity();
  if (x == std::numeric_limits<double>::infinity()) return x;
  int e = 0;
  if (x < 0x1.0p-1022) {  // subnormal: scale into the normal range
    x *= 0x1.0p54;
    e = -54;
  }
  const auto bits = std::bit_cast<uint64_t>(x);
  e += static_cast<int>(bits >> 52) - 1023;
  // m in [sqrt(1/2), sqrt(2)): f = m - 1 is exact (Sterbenz).
  double m = std::bit_cast<double>((bits & ((uint64_t{1} << 52) - 1)) |
                                   (uint64_t{1023} << 52));
  if (m > 1.4142135623730951) {
    m *= 0.5;
    ++e;
  }
  const double f = m - 1;
  const double s = f / (2 + f);
  const double z = s * s;
  // R = 2z/3 + 2z^2/5 + ... + 2z^11/23; z <= 0.0295, next term < 1e-18.
  double r = 2.0 / 23;
  for (int n = 10; n >= 1; --n) r = r * z + 2.0 / (2 * n + 1);
  r *= z;
  const double hfsq = 0.5 * f * f;
  const double dk = e;
  return dk * in::kLn2Hi - ((hfsq - (s * (hfsq + r) + dk * in::kLn2Lo)) - f);
}

// ln(1 + x) for x > -1, accurate also for tiny x (Goldberg's correction
// of the rounded 1 + x).
constexpr double Log1p(double x) {
  const double u = 1 + x;
  if (u == 1) return x;
  return Log(u) * (x / (u - 1));
}

// sqrt by Newton's iteration from the halved exponent: within 1 ulp for
// x >= 0 and deterministic, for tables built in constant evaluation (where
// std::sqrt is not constexpr). At run time prefer std::sqrt, which IEEE 754
// rounds exactly on every platform.
constexpr double Sqrt(double x) {
  if (!(x > 0)) return x == 0 ? 0 : std::numeric_limits<double>::quiet_NaN();
  if (x == std::numeric_limits<double>::infinity()) return x;
  const auto bits = std::bit_cast<uint64_t>(x);
  double y = std::bit_cast<double>((bits >> 1) + (uint64_t{1023} << 51));
  for (int i = 0; i < 8; ++i) y = 0.5 * (y + x / y);
  return y;
}

}  // namespace perflab::core

#endif  // PERFLAB_CORE_EXACT_MATH_H_
