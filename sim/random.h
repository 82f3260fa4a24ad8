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
#include <limits>
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

// Lognormal draws with one cv and many means, as a model's work times are:
// exactly the numbers of SampleNs(Dist::Lognormal(mean, cv), rng), without
// recomputing log1p(cv^2) on every draw, nor log(mean) for the last few
// means (an N+1 request's 80 item statements).
//
// And faster than one by one: each draw's e^x is a chain of about 25
// dependent multiplies and adds, so the processor waits on it. The normals
// are drawn kAhead at a time from a copy of the generator (keeping the state
// after each), and e^x is computed kBlock draws at a time for a mean in use,
// whose chains then overlap. A draw moves `rng` to the state its own normal
// left, so the generator is always where one-by-one drawing would have left
// it; if it is not where the last draw left it (something else drew from
// it, or another generator is passed), the draws ahead are dropped.
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
  static constexpr int kAhead = 64;  // normals drawn ahead
  // e^x computed together for one mean, whether or not it takes them all:
  // four lanes of ExpBlock take about as long as one, and a block of 16 as
  // long as a shorter one that a rare mean (an N+1 page's first query among
  // 80 item statements) would need again soon after.
  static constexpr int kBlock = 16;
  static constexpr int kMeans = 6;  // means with draws computed ahead
  struct Mean {
    double mean = std::numeric_limits<double>::quiet_NaN();  // none yet
    double mu = 0;  // ln(mean) - s2_ / 2
    int from = 0;   // ns[from, to) hold the draws of slots from..to-1
    int to = 0;
    int64_t ns[kAhead];
  };
  void Refill(const core::Xoshiro256& rng);
  // Slot next_'s draw for `mean`, computing its block if need be; the slot
  // is used up. Both SampleNs after they have a slot ready.
  int64_t Next(double mean);
  Mean& Find(double mean);
  void Compute(Mean& m, int from) const;

  double cv_;
  double s2_;          // sigma^2 = ln(1 + cv^2)
  double sigma_;       // its square root
  int next_ = kAhead;  // the next slot to use; kAhead: none drawn
  // states_[i]: the generator's state before slot i's normal (after i - 1's).
  core::Xoshiro256::State states_[kAhead + 1] = {};
  double scaled_[kAhead] = {};  // sigma_ x slot i's standard normal
  Mean means_[kMeans];
  int victim_ = 0;  // the next of means_ to reuse
  int last_ = 0;    // the mean the last draw took: most often the next's too
  // The generator of its own, kAhead normals on from the draws' slots
  // (where the next Refill starts); unused with SampleNs(mean, rng).
  core::Xoshiro256 own_{0};
};

// Inline, with the last draw's mean tried before the search: an N+1 loop
// draws one of these per statement, most of them for the same mean, and the
// call and the search cost about as much as the rest of a draw.
inline int64_t LognormalDraws::SampleNs(double mean, Rng& rng) {
  if (cv_ <= 0) return random_internal::RoundNs(mean);
  if (next_ == kAhead || !(rng.state() == states_[next_])) Refill(rng);
  rng.set_state(states_[next_ + 1]);
  return Next(mean);
}

inline int64_t LognormalDraws::SampleNs(double mean) {
  if (cv_ <= 0) return random_internal::RoundNs(mean);
  if (next_ == kAhead) {
    Refill(own_);
    own_.set_state(states_[kAhead]);
  }
  return Next(mean);
}

inline int64_t LognormalDraws::Next(double mean) {
  const int i = next_;
  Mean& m = means_[last_].mean == mean ? means_[last_] : Find(mean);
  if (i < m.from || i >= m.to) Compute(m, i);
  next_ = i + 1;
  return m.ns[i];
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
