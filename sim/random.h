// Seeded random streams and the sampling code the simulator uses.
//
// Each named stream ("arrivals", "service", "keys", ...) has its own
// xoshiro256** generator seeded from hash(seed, name), so adding draws to one
// stream never shifts another's numbers. Every distribution is sampled by our
// own inverse-transform code: std:: distributions differ between standard
// libraries, and outputs must be byte-identical everywhere.
// Not thread-safe: one Rng per simulation (or per thread).
#ifndef PERFLAB_SIM_RANDOM_H_
#define PERFLAB_SIM_RANDOM_H_

#include <cstdint>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace perflab::sim {

// xoshiro256** (Blackman & Vigna), seeded through splitmix64.
class Rng {
 public:
  Rng(uint64_t seed, std::string_view stream);

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
  double U01() { return static_cast<double>(Next() >> 11) * 0x1.0p-53; }
  // Uniform in (0, 1]: safe to take the log of.
  double U01Open() {
    return static_cast<double>((Next() >> 11) + 1) * 0x1.0p-53;
  }
  // Uniform integer in [0, n) by Lemire's multiply-shift (tiny bias < n/2^64).
  uint64_t Below(uint64_t n) {
    return static_cast<uint64_t>((static_cast<unsigned __int128>(Next()) * n) >>
                                 64);
  }

 private:
  static uint64_t Rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  uint64_t s_[4];
};

// Standard normal quantile (Acklam's rational approximation, |rel err|
// < 1.2e-9).
double InverseNormalCdf(double p);

// The shapes a time or size can be drawn from. Means are in the caller's
// unit (nanoseconds for times); cv is the coefficient of variation.
struct Dist {
  enum class Kind { kDeterministic, kExponential, kUniform, kLognormal };
  Kind kind = Kind::kDeterministic;
  double mean = 0;  // deterministic value, or the mean
  double lo = 0;    // uniform lower bound
  double hi = 0;    // uniform upper bound
  double cv = 1;    // lognormal coefficient of variation

  static Dist Det(double v) { return {Kind::kDeterministic, v, v, v, 0}; }
  static Dist Exp(double mean) { return {Kind::kExponential, mean, 0, 0, 1}; }
  static Dist Uniform(double lo, double hi) {
    return {Kind::kUniform, (lo + hi) / 2, lo, hi, 0};
  }
  static Dist Lognormal(double mean, double cv) {
    return {Kind::kLognormal, mean, 0, 0, cv};
  }
};

double Sample(const Dist& d, Rng& rng);
// A sample rounded to whole nanoseconds (never negative).
int64_t SampleNs(const Dist& d, Rng& rng);

// A weighted mixture of distributions (weights need not sum to 1).
class Mixture {
 public:
  void Add(double weight, Dist d);
  double Sample(Rng& rng) const;

 private:
  std::vector<double> cumulative_;
  std::vector<Dist> parts_;
};

// Key 1 + floor(n u^3): the case study's skew (about half the traffic on the
// lowest ~3 % of keys). Keys in [1, n].
int64_t SkewedKey(int64_t n, Rng& rng);

// Zipf over keys 1..n with exponent s, by binary search of a precomputed CDF.
class Zipf {
 public:
  static absl::StatusOr<Zipf> Create(int64_t n, double s);
  int64_t Sample(Rng& rng) const;

 private:
  std::vector<double> cdf_;
};

}  // namespace perflab::sim

#endif  // PERFLAB_SIM_RANDOM_H_
