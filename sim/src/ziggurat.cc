#include "sim/ziggurat.h"

namespace perflab::sim::ziggurat_internal {

// The tail beyond r is r plus another standard exponential (memorylessness),
// so no logarithm is needed there either.
double ExponentialSlow(core::Xoshiro256& rng, size_t layer, double x) {
  double offset = 0;
  while (true) {
    if (layer == 0) {
      offset += kZigExpR;
    } else if (kZigExp.f[layer] +
                   (kZigExp.f[layer + 1] - kZigExp.f[layer]) * rng.Uniform01() <
               core::Exp(-x)) {
      return offset + x;
    }
    const uint64_t bits = rng.Next();
    layer = bits & 0xff;
    x = core::ToUniform01(bits) * kZigExp.x[layer];
    if (x < kZigExp.x[layer + 1]) return offset + x;
  }
}

// Marsaglia's tail: a = E1 / r, accepted when 2 E2 > a^2, gives r + a
// distributed as the normal beyond r; the exponentials come from the
// exponential ziggurat instead of -log(U).
double NormalSlow(core::Xoshiro256& rng, size_t layer, double x, double u) {
  while (true) {
    if (layer == 0) {
      double a = 0;
      double b = 0;
      do {
        a = StandardExponential(rng) / kZigNormR;
        b = StandardExponential(rng);
      } while (b + b < a * a);
      return u < 0 ? -(kZigNormR + a) : kZigNormR + a;
    }
    if (kZigNorm.f[layer] +
            (kZigNorm.f[layer + 1] - kZigNorm.f[layer]) * rng.Uniform01() <
        core::Exp(-0.5 * x * x)) {
      return x;
    }
    const uint64_t bits = rng.Next();
    layer = bits & 0xff;
    u = static_cast<double>(bits >> 11) * 0x1.0p-52 - 1;
    x = u * kZigNorm.x[layer];
    if ((x < 0 ? -x : x) < kZigNorm.x[layer + 1]) return x;
  }
}

}  // namespace perflab::sim::ziggurat_internal
