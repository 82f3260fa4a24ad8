// The project's random generators, one home for every layer: splitmix64 (tiny,
// for test inputs and the dataset generator; it also seeds the other) and
// xoshiro256** (the simulator's streams). Both are fixed, documented
// algorithms, so the same seed gives the same numbers on every platform and
// standard library. Also the case study's skewed key, 1 + n·u³.
// Not thread-safe: one generator per stream (or per thread).
#ifndef PERFLAB_CORE_RANDOM_H_
#define PERFLAB_CORE_RANDOM_H_

#include <algorithm>
#include <cstdint>

namespace perflab::core {

// Uniform in [0, 1) from the top 53 bits of a 64-bit draw.
inline double ToUniform01(uint64_t bits) {
  return static_cast<double>(bits >> 11) * 0x1.0p-53;
}

// Uniform integer in [0, n) by Lemire's multiply-shift without rejection: the
// bias is below n / 2^64, negligible for the n used here, and deterministic.
inline uint64_t ToBelow(uint64_t bits, uint64_t n) {
  return static_cast<uint64_t>((static_cast<unsigned __int128>(bits) * n) >>
                               64);
}

// splitmix64 (Steele, Lea and Flood; the constants of Vigna's reference code).
class SplitMix64 {
 public:
  explicit SplitMix64(uint64_t seed) : state_(seed) {}

  uint64_t Next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  double Uniform01() { return ToUniform01(Next()); }
  uint64_t Below(uint64_t n) { return ToBelow(Next(), n); }

 private:
  uint64_t state_;
};

// xoshiro256** (Blackman and Vigna), its state filled by splitmix64 from
// `seed` as the authors recommend.
class Xoshiro256 {
 public:
  explicit Xoshiro256(uint64_t seed) {
    SplitMix64 seeder(seed);
    for (uint64_t& s : s_) s = seeder.Next();
  }

  uint64_t Next() {
    const uint64_t result = Rotl(s_[1] * 5, 7) * 9;
    const uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = Rotl(s_[3], 45);
    return result;
  }
  // Uniform in [0, 1) with 53 random bits.
  double Uniform01() { return ToUniform01(Next()); }
  // Uniform in (0, 1]: safe to take the logarithm of.
  double UniformPositive() {
    return static_cast<double>((Next() >> 11) + 1) * 0x1.0p-53;
  }
  uint64_t Below(uint64_t n) { return ToBelow(Next(), n); }

  // The whole state, for a caller that draws ahead on a copy and later
  // moves this generator to where those draws left the copy.
  struct State {
    uint64_t s[4];
    bool operator==(const State&) const = default;
  };
  State state() const { return {{s_[0], s_[1], s_[2], s_[3]}}; }
  void set_state(const State& st) {
    for (int i = 0; i < 4; ++i) s_[i] = st.s[i];
  }

 private:
  static uint64_t Rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  uint64_t s_[4];
};

// The case study's skewed key: 1 + floor(n·u³) for u uniform in [0, 1), so
// P(key <= k) = (k/n)^(1/3): 3 % of the keys get 31 % of the draws and half
// the draws need the lowest 12.5 %. Always in [1, n].
inline int64_t SkewedKey(int64_t n, double u) {
  const int64_t k =
      1 + static_cast<int64_t>(static_cast<double>(n) * u * u * u);
  return std::min(k, n);
}

}  // namespace perflab::core

#endif  // PERFLAB_CORE_RANDOM_H_
