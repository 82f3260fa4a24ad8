// Standard exponential and normal variates by the ziggurat method
// (Marsaglia and Tsang, "The Ziggurat Method for Generating Random
// Variables", J. Stat. Soft. 5(8), 2000, in Doornik's 2005 form with 256
// layers and one 64-bit draw per try: 8 bits pick the layer, 53 the point).
// About 99 % of draws take the inlined fast path: a table lookup, a multiply
// and a compare, no logarithm. The rest (the wedges, the tail beyond the
// last layer) are exact rejection steps out of line.
//
// The tables are computed at compile time from core/exact_math.h, and the
// slow path uses the same functions, so no draw depends on the C library's
// log or exp: the simulator's outputs are the same bits with any libm, -O
// level or -ffp-contract (tests/sim/libm_independence checks a golden
// through a differently built binary).
#ifndef PERFLAB_SIM_ZIGGURAT_H_
#define PERFLAB_SIM_ZIGGURAT_H_

#include <cstddef>
#include <cstdint>

#include "core/exact_math.h"
#include "core/random.h"

namespace perflab::sim {

// Layer i is the rectangle [0, x[i]] x [f[i], f[i+1]] of area v (layer 0:
// the base strip [0, r] x [0, f(r)] and the tail beyond r, whose total area
// is v = x[0] f(r)); x[1] = r, x[256] = 0, f[i] = pdf(x[i]).
struct ZigguratTables {
  double x[257];
  double f[257];
};

// pdf(x) = e^-x, r and v from Marsaglia and Tsang (2000).
inline constexpr double kZigExpR = 7.69711747013104972;
inline constexpr double kZigExpV = 3.949659822581572e-3;
// pdf(x) = e^(-x^2/2) (unnormalised), r and v from Doornik (2005).
inline constexpr double kZigNormR = 3.6541528853610088;
inline constexpr double kZigNormV = 0.00492867323399;

// Each layer's upper edge from the one below: f(x[i+1]) = f(x[i]) + v/x[i].
constexpr ZigguratTables MakeExponentialTables() {
  ZigguratTables t{};
  const double fr = core::Exp(-kZigExpR);
  t.x[0] = kZigExpV / fr;
  t.x[1] = kZigExpR;
  t.f[0] = core::Exp(-t.x[0]);
  t.f[1] = fr;
  for (int i = 2; i < 256; ++i) {
    t.f[i] = t.f[i - 1] + kZigExpV / t.x[i - 1];
    t.x[i] = -core::Log(t.f[i]);
  }
  t.x[256] = 0;
  t.f[256] = 1;
  return t;
}

constexpr ZigguratTables MakeNormalTables() {
  ZigguratTables t{};
  const double fr = core::Exp(-0.5 * kZigNormR * kZigNormR);
  t.x[0] = kZigNormV / fr;
  t.x[1] = kZigNormR;
  t.f[0] = core::Exp(-0.5 * t.x[0] * t.x[0]);
  t.f[1] = fr;
  for (int i = 2; i < 256; ++i) {
    t.f[i] = t.f[i - 1] + kZigNormV / t.x[i - 1];
    t.x[i] = core::Sqrt(-2 * core::Log(t.f[i]));
  }
  t.x[256] = 0;
  t.f[256] = 1;
  return t;
}

inline constexpr ZigguratTables kZigExp = MakeExponentialTables();
inline constexpr ZigguratTables kZigNorm = MakeNormalTables();

namespace ziggurat_internal {
// The rare steps: a wedge's rejection test or the tail, then retries.
double ExponentialSlow(core::Xoshiro256& rng, size_t layer, double x);
double NormalSlow(core::Xoshiro256& rng, size_t layer, double x, double u);
}  // namespace ziggurat_internal

// Exponential with mean 1.
inline double StandardExponential(core::Xoshiro256& rng) {
  const uint64_t bits = rng.Next();
  const size_t i = bits & 0xff;
  const double x = core::ToUniform01(bits) * kZigExp.x[i];
  if (x < kZigExp.x[i + 1]) [[likely]]
    return x;
  return ziggurat_internal::ExponentialSlow(rng, i, x);
}

// Normal with mean 0 and standard deviation 1.
inline double StandardNormal(core::Xoshiro256& rng) {
  const uint64_t bits = rng.Next();
  const size_t i = bits & 0xff;
  // u uniform in [-1, 1) from the top 53 bits (exact).
  const double u = static_cast<double>(bits >> 11) * 0x1.0p-52 - 1;
  const double x = u * kZigNorm.x[i];
  if ((x < 0 ? -x : x) < kZigNorm.x[i + 1]) [[likely]]
    return x;
  return ziggurat_internal::NormalSlow(rng, i, x, u);
}

}  // namespace perflab::sim

#endif  // PERFLAB_SIM_ZIGGURAT_H_
