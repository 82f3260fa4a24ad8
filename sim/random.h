// Seeded random streams and the sampling code the simulator uses.
//
// Each named stream ("arrivals", "service", "keys", ...) has its own
// xoshiro256** generator seeded from hash(seed, name), so adding draws to one
// stream never shifts another's numbers. Every distribution is sampled by our
// own code: std:: distributions differ between standard libraries, and
// outputs must be byte-identical everywhere. Exponential and normal draws
// use the ziggurat (sim/ziggurat.h), the logarithms and exponentials around
// them core/exact_math.h, so no draw depends on the C library's libm.
// Not thread-safe: one Rng per simulation (or per thread).
#ifndef PERFLAB_SIM_RANDOM_H_
#define PERFLAB_SIM_RANDOM_H_

#include <cstdint>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "core/exact_math.h"
#include "core/random.h"
#include "sim/ziggurat.h"

namespace perflab::sim {

// One named stream: xoshiro256** (core/random.h) seeded from the run's seed
// and the FNV-1a hash of the stream's name.
class Rng : public core::Xoshiro256 {
 public:
  Rng(uint64_t seed, std::string_view stream);
};

// Standard normal quantile (Acklam's rational approximation, |rel err|
// < 1.2e-9). Uses libm's log; the samplers below do not use it.
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

  static Dist Constant(double v) { return {Kind::kDeterministic, v, v, v, 0}; }
  static Dist Exp(double mean) { return {Kind::kExponential, mean, 0, 0, 1}; }
  static Dist Uniform(double lo, double hi) {
    return {Kind::kUniform, (lo + hi) / 2, lo, hi, 0};
  }
  static Dist Lognormal(double mean, double cv) {
    return {Kind::kLognormal, mean, 0, 0, cv};
  }
};

namespace random_internal {
double SampleLognormal(const Dist& d, Rng& rng);
// Rounded to the nearest nanosecond (halves away from zero, as llround),
// 0 for negatives and NaN, capped at 9e18.
inline int64_t RoundNs(double v) {
  if (!(v > 0)) return 0;
  if (v > 9.0e18) return INT64_C(9000000000000000000);
  // From 1 up to 2^52 the ulp divides 0.5, so v + 0.5 is exact within v's
  // binade and truncates to RoundHalfAway(v); crossing into the next it
  // rounds, but only to values that truncate to that power of two, which
  // is RoundHalfAway(v) there too. Half the latency of the general form, on
  // the path from a drawn work time to its job's finish.
  if (v >= 1 && v < 0x1.0p52) [[likely]] {
    // NOLINTNEXTLINE(bugprone-incorrect-roundings): exact here, see above
    return static_cast<int64_t>(v + 0.5);
  }
  return core::RoundHalfAway(v);
}
}  // namespace random_internal

// Inline: a model's hot loop draws one or two of these per event.
inline double Sample(const Dist& d, Rng& rng) {
  switch (d.kind) {
    case Dist::Kind::kDeterministic:
      return d.mean;
    case Dist::Kind::kExponential:
      return d.mean * StandardExponential(rng);
    case Dist::Kind::kUniform:
      return d.lo + (d.hi - d.lo) * rng.Uniform01();
    case Dist::Kind::kLognormal:
      return random_internal::SampleLognormal(d, rng);
  }
  return d.mean;
}
// A sample rounded to whole nanoseconds (never negative).
inline int64_t SampleNs(const Dist& d, Rng& rng) {
  return random_internal::RoundNs(Sample(d, rng));
}

// Lognormal draws with one cv and many means, as a model's work times are.
// A draw for `mean` is RoundNs(mean x e^(sigma z - sigma^2 / 2)), z the
// generator's next standard normal: the distribution of
// SampleNs(Dist::Lognormal(mean, cv), rng), from the same normals, written
// with the mean outside the e^x so that e^x does not depend on it. The two
// agree draw for draw but where the few ulps between the forms cross a
// half nanosecond (a draw of 10^5 ns: about once in 10^9 draws).
//
// That is what makes it fast: each e^x is a chain of about 25 dependent
// multiplies and adds, so the processor waits on it; with no mean inside,
// the e^x of kAhead draws are computed together, when their normals are
// drawn from a copy of the generator (keeping the state after each), and
// their chains overlap in vector lanes. A draw is then a multiply and a
// rounding, whatever mix of means a model asks for. A draw moves `rng` to
// the state its own normal left, so the generator is always where
// one-by-one drawing would have left it; if it is not where the last draw
// left it (something else drew from it, or another generator is passed),
// the draws ahead are dropped.
class LognormalDraws {
 public:
  explicit LognormalDraws(double cv);
  int64_t SampleNs(double mean, Rng& rng);

  // With a generator of its own, a copy of `rng` that nothing else draws
  // from: SampleNs(mean) gives the numbers SampleNs(mean, rng) would, but
  // with no generator to follow it skips the check and the move on each
  // draw (a model drawing every CPU piece pays them 20 million times a
  // capstone step). One instance uses one form or the other.
  LognormalDraws(double cv, const Rng& rng);
  int64_t SampleNs(double mean);

 private:
  static constexpr int kAhead = 64;  // draws computed ahead
  void Refill(const core::Xoshiro256& rng);
  void RefillOwn();  // Refill(own_), own_ moved on past the draws

  double cv_;
  double s2_;          // sigma^2 = ln(1 + cv^2)
  double sigma_;       // its square root
  int next_ = kAhead;  // the next slot to use; kAhead: none drawn
  // states_[i]: the generator's state before slot i's normal (after i - 1's);
  // SampleNs(mean, rng) alone reads them.
  core::Xoshiro256::State states_[kAhead + 1] = {};
  // Slot i's e^(sigma z - sigma^2 / 2): its draw over its mean.
  double factors_[kAhead] = {};
  // The generator of its own, kAhead normals on from the draws' slots
  // (where the next RefillOwn starts); unused with SampleNs(mean, rng).
  core::Xoshiro256 own_{0};
};

inline int64_t LognormalDraws::SampleNs(double mean, Rng& rng) {
  if (cv_ <= 0) return random_internal::RoundNs(mean);
  if (next_ == kAhead || !(rng.state() == states_[next_])) Refill(rng);
  rng.set_state(states_[next_ + 1]);
  return random_internal::RoundNs(mean * factors_[next_++]);
}

inline int64_t LognormalDraws::SampleNs(double mean) {
  if (cv_ <= 0) return random_internal::RoundNs(mean);
  if (next_ == kAhead) RefillOwn();
  return random_internal::RoundNs(mean * factors_[next_++]);
}

// A weighted mixture of distributions (weights need not sum to 1).
class Mixture {
 public:
  void Add(double weight, Dist d);
  double Sample(Rng& rng) const;

 private:
  std::vector<double> cumulative_;
  std::vector<Dist> parts_;
};

// core::SkewedKey (1 + floor(n u^3), keys in [1, n]) drawn from `rng`.
inline int64_t SkewedKey(int64_t n, Rng& rng) {
  return core::SkewedKey(n, rng.Uniform01());
}

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
