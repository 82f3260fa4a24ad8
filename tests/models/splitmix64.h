// splitmix64: a tiny deterministic generator for test inputs (noise, samples),
// the same numbers on every platform. Header-only, for the tests.
#ifndef PERFLAB_TESTS_MODELS_SPLITMIX64_H_
#define PERFLAB_TESTS_MODELS_SPLITMIX64_H_

#include <cstdint>

namespace perflab::testing {

// The next 64 random bits; advances state.
inline uint64_t SplitMix64(uint64_t& state) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// Uniform in [0, 1) with 53 random bits.
inline double Uniform01(uint64_t& state) {
  return static_cast<double>(SplitMix64(state) >> 11) * 0x1.0p-53;
}

}  // namespace perflab::testing

#endif  // PERFLAB_TESTS_MODELS_SPLITMIX64_H_
