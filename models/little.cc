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
