#include "sim/random.h"

#include <algorithm>
#include <cmath>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace perflab::sim {
namespace {

// FNV-1a: a fixed, documented hash, unlike std::hash.
uint64_t Fnv1a(std::string_view s) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (unsigned char c : s) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  return h;
}

// sigma^2 = ln(1 + cv^2) and mu = ln(mean) - sigma^2 / 2 keep the mean.
// LognormalDraws shares the first (the build has -ffp-contract=off).
double LognormalS2(double cv) { return core::Log1p(cv * cv); }
double LognormalMu(double mean, double s2) { return core::Log(mean) - s2 / 2; }
double LognormalDraw(double mu, double sigma, Rng& rng) {
  return core::Exp(mu + sigma * StandardNormal(rng));
}

}  // namespace

// Two rounds so that seed and name both diffuse into the state.
Rng::Rng(uint64_t seed, std::string_view stream)
    : core::Xoshiro256(core::SplitMix64(seed ^ Fnv1a(stream)).Next() ^ seed) {}

double InverseNormalCdf(double p) {
  static constexpr double a[] = {-3.969683028665376e+01, 2.209460984245205e+02,
                                 -2.759285104469687e+02, 1.383577518672690e+02,
                                 -3.066479806614716e+01, 2.506628277459239e+00};
  static constexpr double b[] = {-5.447609879822406e+01, 1.615858368580409e+02,
                                 -1.556989798598866e+02, 6.680131188771972e+01,
                                 -1.328068155288572e+01};
  static constexpr double c[] = {-7.784894002430293e-03, -3.223964580411365e-01,
                                 -2.400758277161838e+00, -2.549732539343734e+00,
                                 4.374664141464968e+00,  2.938163982698783e+00};
  static constexpr double d[] = {7.784695709041462e-03, 3.224671290700398e-01,
                                 2.445134137142996e+00, 3.754408661907416e+00};
  constexpr double kLow = 0.02425;
  if (p <= 0) return -HUGE_VAL;
  if (p >= 1) return HUGE_VAL;
  if (p < kLow) {
    double q = std::sqrt(-2 * std::log(p));
    return (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q +
            c[5]) /
           ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  }
  if (p > 1 - kLow) {
    double q = std::sqrt(-2 * std::log(1 - p));
    return -(((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q +
             c[5]) /
           ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  }
  double q = p - 0.5;
  double r = q * q;
  return (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) *
         q / (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
}

double random_internal::SampleLognormal(const Dist& d, Rng& rng) {
  if (d.cv <= 0) return d.mean;
  const double s2 = LognormalS2(d.cv);
  return LognormalDraw(LognormalMu(d.mean, s2), std::sqrt(s2), rng);
}

LognormalDraws::LognormalDraws(double cv)
    : cv_(cv), s2_(LognormalS2(cv)), sigma_(std::sqrt(s2_)) {}

LognormalDraws::LognormalDraws(double cv, const Rng& rng) : LognormalDraws(cv) {
  own_ = rng;
}

void LognormalDraws::Refill(const core::Xoshiro256& rng) {
  core::Xoshiro256 ahead = rng;
  states_[0] = ahead.state();
  double scaled[kAhead];
  for (int i = 0; i < kAhead; ++i) {
    scaled[i] = sigma_ * StandardNormal(ahead);
    states_[i + 1] = ahead.state();
  }
  core::ExpBlock(-s2_ / 2, scaled, factors_, kAhead);
  next_ = 0;
}

void LognormalDraws::RefillOwn() {
  // The same normals as Refill(own_); with no other generator to follow,
  // only the state after the last is kept.
  double scaled[kAhead];
  for (int i = 0; i < kAhead; ++i) scaled[i] = sigma_ * StandardNormal(own_);
  core::ExpBlock(-s2_ / 2, scaled, factors_, kAhead);
  next_ = 0;
}

void Mixture::Add(double weight, Dist d) {
  cumulative_.push_back((cumulative_.empty() ? 0 : cumulative_.back()) +
                        weight);
  parts_.push_back(d);
}

double Mixture::Sample(Rng& rng) const {
  const double u = rng.Uniform01() * cumulative_.back();
  size_t i = std::upper_bound(cumulative_.begin(), cumulative_.end(), u) -
             cumulative_.begin();
  if (i >= parts_.size()) i = parts_.size() - 1;
  return sim::Sample(parts_[i], rng);
}

absl::StatusOr<Zipf> Zipf::Create(int64_t n, double s) {
  if (n < 1 || n > 100'000'000) {
    return absl::InvalidArgumentError(
        absl::StrCat("zipf keys ", n, " outside [1, 100000000]"));
  }
  if (!(s >= 0) || !std::isfinite(s)) {
    return absl::InvalidArgumentError(
        absl::StrCat("zipf exponent ", s, " < 0"));
  }
  Zipf z;
  z.cdf_.resize(n);
  double sum = 0;
  for (int64_t k = 1; k <= n; ++k) {
    // k^-s by exact_math, not libm's pow: the CDF must not depend on it.
    sum += core::Exp(-s * core::Log(static_cast<double>(k)));
    z.cdf_[k - 1] = sum;
  }
  for (double& c : z.cdf_) c /= sum;
  return z;
}

int64_t Zipf::Sample(Rng& rng) const {
  const double u = rng.Uniform01();
  size_t i = std::upper_bound(cdf_.begin(), cdf_.end(), u) - cdf_.begin();
  if (i >= cdf_.size()) i = cdf_.size() - 1;
  return static_cast<int64_t>(i) + 1;
}

}  // namespace perflab::sim
