#include "core/exact_math.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace perflab::core {
namespace {

// What ExpPair does for lanes of two, here for as many as the processor has.
void ExpBlockSse2(double offset, const double* x, double* out, int n) {
  int i = 0;
#if defined(__SSE2__)
  for (; i + 1 < n; i += 2) {
    const double pair[2] = {offset + x[i], offset + x[i + 1]};
    ExpPair(pair, out + i);
  }
#endif
  for (; i < n; ++i) out[i] = Exp(offset + x[i]);
}

#if defined(__x86_64__)
// ExpPair's operations on four lanes: the same IEEE operations in the same
// order, so the same bits, at half the instructions. The one change is the
// truncation of |y|, by vroundpd rather than a round trip through int32,
// which agrees with it for |y| < 2^31 (here |y| < 1000). Not compiled with
// FMA, and the build's -ffp-contract=off keeps multiplies and adds apart.
[[gnu::target("avx2")]] void ExpBlockAvx2(double offset, const double* x,
                                          double* out, int n) {
  namespace in = exact_math_internal;
  constexpr double c[] = {1.0 / 6227020800, 1.0 / 479001600, 1.0 / 39916800,
                          1.0 / 3628800,    1.0 / 362880,    1.0 / 40320,
                          1.0 / 5040,       1.0 / 720,       1.0 / 120,
                          1.0 / 24,         1.0 / 6,         1.0 / 2};
  const __m256d sign = _mm256_set1_pd(-0.0);
  int i = 0;
  for (; i + 3 < n; i += 4) {
    const __m256d v =
        _mm256_add_pd(_mm256_set1_pd(offset), _mm256_loadu_pd(x + i));
    const __m256d ax = _mm256_andnot_pd(sign, v);
    // NaN fails the compare too; such a quad goes to Exp lane by lane.
    if (_mm256_movemask_pd(
            _mm256_cmp_pd(ax, _mm256_set1_pd(690.0), _CMP_LE_OQ)) != 15) {
      for (int j = i; j < i + 4; ++j) out[j] = Exp(offset + x[j]);
      continue;
    }
    const __m256d y = _mm256_mul_pd(v, _mm256_set1_pd(in::kLog2e));
    const __m256d ay = _mm256_andnot_pd(sign, y);
    const __m256d t =
        _mm256_round_pd(ay, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
    const __m256d half_up =
        _mm256_cmp_pd(_mm256_sub_pd(ay, t), _mm256_set1_pd(0.5), _CMP_GE_OQ);
    const __m256d mag =
        _mm256_add_pd(t, _mm256_and_pd(half_up, _mm256_set1_pd(1.0)));
    const __m256d dk = _mm256_add_pd(_mm256_or_pd(mag, _mm256_and_pd(sign, y)),
                                     _mm256_setzero_pd());
    const __m256d r = _mm256_sub_pd(
        _mm256_sub_pd(v, _mm256_mul_pd(dk, _mm256_set1_pd(in::kLn2Hi))),
        _mm256_mul_pd(dk, _mm256_set1_pd(in::kLn2Lo)));
    __m256d p = _mm256_set1_pd(c[0]);
#pragma GCC unroll 11
    for (int k = 1; k < 12; ++k) {
      p = _mm256_add_pd(_mm256_mul_pd(p, r), _mm256_set1_pd(c[k]));
    }
    const __m256d er =
        _mm256_add_pd(_mm256_set1_pd(1.0),
                      _mm256_add_pd(r, _mm256_mul_pd(r, _mm256_mul_pd(r, p))));
    const __m256d biased = _mm256_add_pd(dk, _mm256_set1_pd(0x1.0p52 + 1023));
    const __m256d pow2 =
        _mm256_castsi256_pd(_mm256_slli_epi64(_mm256_castpd_si256(biased), 52));
    _mm256_storeu_pd(out + i, _mm256_mul_pd(er, pow2));
  }
  ExpBlockSse2(offset, x + i, out + i, n - i);
}

const bool kHasAvx2 = [] {
  __builtin_cpu_init();  // it may run before the library's own constructor
  return __builtin_cpu_supports("avx2") != 0;
}();
#endif

}  // namespace

void ExpBlock(double offset, const double* x, double* out, int n) {
#if defined(__x86_64__)
  if (kHasAvx2) return ExpBlockAvx2(offset, x, out, n);
#endif
  ExpBlockSse2(offset, x, out, n);
}

}  // namespace perflab::core
