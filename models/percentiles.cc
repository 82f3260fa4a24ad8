#include "models/percentiles.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"

namespace perflab::models {

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
  double rank = std::ceil(std::round(exact * 1e9) / 1e9);
  return std::clamp<int64_t>(static_cast<int64_t>(rank), 1, n);
}

int64_t SamplesForTail(double p, double tail_samples) {
  double exact = tail_samples / (1.0 - p / 100.0);
  return static_cast<int64_t>(std::ceil(std::round(exact * 1e9) / 1e9));
}

}  // namespace perflab::models
