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

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

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

// Exp of two arguments at once, the same bits as Exp of each: the same IEEE
// operations in the same order on both lanes of SSE2 registers, so the two
// chains of dependent multiplies run side by side. Only for |x| <= 690,
// where Exp needs neither its special cases nor its two-step scaling (k in
// [-996, 996]); ExpPair falls back to Exp when either argument is outside.
#if defined(__SSE2__)
inline void ExpPair(const double* x, double* out) {
  namespace in = exact_math_internal;
  const __m128d v = _mm_loadu_pd(x);
  const __m128d sign = _mm_set1_pd(-0.0);
  const __m128d ax = _mm_andnot_pd(sign, v);
  // NaN fails the compare too.
  if (_mm_movemask_pd(_mm_cmple_pd(ax, _mm_set1_pd(690.0))) != 3) {
    out[0] = Exp(x[0]);
    out[1] = Exp(x[1]);
    return;
  }
  // k = RoundHalfAway(x log2 e): the magnitude's whole part (exact by
  // truncation, |y| < 1000) plus 1 if its fraction is >= 0.5, signed back;
  // + 0.0 gives k = 0 the +0.0 that converting the integer 0 gives.
  const __m128d y = _mm_mul_pd(v, _mm_set1_pd(in::kLog2e));
  const __m128d ay = _mm_andnot_pd(sign, y);
  const __m128d t = _mm_cvtepi32_pd(_mm_cvttpd_epi32(ay));
  const __m128d half_up = _mm_cmpge_pd(_mm_sub_pd(ay, t), _mm_set1_pd(0.5));
  const __m128d mag = _mm_add_pd(t, _mm_and_pd(half_up, _mm_set1_pd(1.0)));
  const __m128d dk =
      _mm_add_pd(_mm_or_pd(mag, _mm_and_pd(sign, y)), _mm_setzero_pd());
  const __m128d r =
      _mm_sub_pd(_mm_sub_pd(v, _mm_mul_pd(dk, _mm_set1_pd(in::kLn2Hi))),
                 _mm_mul_pd(dk, _mm_set1_pd(in::kLn2Lo)));
  constexpr double c[] = {1.0 / 6227020800, 1.0 / 479001600, 1.0 / 39916800,
                          1.0 / 3628800,    1.0 / 362880,    1.0 / 40320,
                          1.0 / 5040,       1.0 / 720,       1.0 / 120,
                          1.0 / 24,         1.0 / 6,         1.0 / 2};
  __m128d p = _mm_set1_pd(c[0]);
#pragma GCC unroll 11
  for (int i = 1; i < 12; ++i) {
    p = _mm_add_pd(_mm_mul_pd(p, r), _mm_set1_pd(c[i]));
  }
  const __m128d er = _mm_add_pd(_mm_set1_pd(1.0),
                                _mm_add_pd(r, _mm_mul_pd(r, _mm_mul_pd(r, p))));
  // 2^k: k + 1023 lands in the low bits of 2^52 + k + 1023 (exact), and
  // shifting them up by 52 makes them the exponent of a zero mantissa.
  const __m128d biased = _mm_add_pd(dk, _mm_set1_pd(0x1.0p52 + 1023));
  const __m128d pow2 =
      _mm_castsi128_pd(_mm_slli_epi64(_mm_castpd_si128(biased), 52));
  _mm_storeu_pd(out, _mm_mul_pd(er, pow2));
}
#endif

// out[i] = Exp(offset + x[i]) for i < n, bit for bit, with as many lanes at
// once as the processor has (AVX2's four, else SSE2's two): the lognormal
// draws compute e^(sigma z - sigma^2 / 2) in blocks. The sum is taken in
// the lanes too: a vector load of doubles just stored one by one would wait
// for the stores (no forwarding from several stores to one load). Not
// constexpr; chooses its lanes at run time.
void ExpBlock(double offset, const double* x, double* out, int n);

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
