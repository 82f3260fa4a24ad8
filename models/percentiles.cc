#include "models/percentiles.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"

namespace perflab::models {
namespace {

// Decimal percentiles are not exact in binary: 99.9 / 100 * 1000 is
// 999.0000000000001. Anything within this relative distance of an integer is
// that integer, so ranks come out as a person computes them by hand.
constexpr double kRelativeNoise = 1e-12;

}  // namespace

absl::StatusOr<double> NearestRankSorted(const std::vector<double>& sorted,
                                         double p) {
  if (sorted.empty()) {
    return absl::InvalidArgumentError("percentile of an empty sample");
  }
  if (!(p > 0 && p <= 100)) {
    return absl::InvalidArgumentError(
        absl::StrCat("percentile: got ", p, "; accepted: (0, 100]"));
  }
  auto n = static_cast<int64_t>(sorted.size());
  return sorted[static_cast<size_t>(NearestRank(p, n) - 1)];
}

int64_t NearestRank(double p, int64_t n) {
  double exact = p / 100.0 * static_cast<double>(n);
  double rank = std::ceil(exact * (1 - kRelativeNoise));
  return std::clamp<int64_t>(static_cast<int64_t>(rank), 1, n);
}

int64_t SamplesForTail(double p, double tail_samples) {
  double exact = tail_samples / (1.0 - p / 100.0);
  return static_cast<int64_t>(std::ceil(exact * (1 - kRelativeNoise)));
}

}  // namespace perflab::models
