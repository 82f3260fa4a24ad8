#include "models/little.h"

#include <cmath>

#include "absl/strings/str_cat.h"

namespace perflab::models {

absl::StatusOr<Little> SolveLittle(std::optional<double> l,
                                   std::optional<double> rate_per_s,
                                   std::optional<double> w_s) {
  int given = l.has_value() + rate_per_s.has_value() + w_s.has_value();
  if (given != 2) {
    return absl::InvalidArgumentError(
        absl::StrCat("Little's Law: got ", given,
                     " of L, rate, W; accepted: exactly two of them"));
  }
  for (auto [name, v] : {std::pair{"L", l}, std::pair{"rate", rate_per_s},
                         std::pair{"W", w_s}}) {
    if (v.has_value() && !(*v > 0 && std::isfinite(*v))) {
      return absl::InvalidArgumentError(
          absl::StrCat(name, ": got ", *v, "; accepted: a finite number > 0"));
    }
  }
  Little r;
  if (!l) {
    r = {*rate_per_s * *w_s, *rate_per_s, *w_s};
  } else if (!rate_per_s) {
    r = {*l, *l / *w_s, *w_s};
  } else {
    r = {*l, *rate_per_s, *l / *rate_per_s};
  }
  if (!(std::isfinite(r.l) && std::isfinite(r.rate_per_s) &&
        std::isfinite(r.w_s) && r.l > 0 && r.rate_per_s > 0 && r.w_s > 0)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Little's Law: L = ", r.l, ", rate = ", r.rate_per_s, ", W = ", r.w_s,
        "; accepted: values whose third is a finite number > 0"));
  }
  return r;
}

absl::StatusOr<PoolSizing> SizePool(double peak_rate_per_s, double hold_s,
                                    double headroom) {
  absl::StatusOr<Little> little =
      SolveLittle(std::nullopt, peak_rate_per_s, hold_s);
  if (!little.ok()) return little.status();
  if (!(headroom >= 0 && headroom <= 10)) {
    return absl::InvalidArgumentError(
        absl::StrCat("headroom: got ", headroom, "; accepted: 0..10"));
  }
  // The pool sizes are int64: a pool beyond 2^62 connections is refused
  // rather than converted into a wrapped, negative size.
  constexpr double kMaxPool = 4.6e18;
  if (!(little->l * (1 + headroom) <= kMaxPool)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "pool size: L x (1 + headroom) = ", little->l * (1 + headroom),
        "; accepted: at most ", kMaxPool, " connections"));
  }
  PoolSizing p;
  p.in_flight = little->l;
  // A tiny epsilon keeps 15.000000000000002 from becoming a pool of 16.
  p.minimum = static_cast<int64_t>(std::ceil(p.in_flight - 1e-9));
  p.with_headroom =
      static_cast<int64_t>(std::ceil(p.in_flight * (1 + headroom) - 1e-9));
  return p;
}

double PoolCeilingPerS(double size, double hold_s) { return size / hold_s; }

}  // namespace perflab::models
