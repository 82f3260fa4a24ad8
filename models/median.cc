#include "models/median.h"

#include <algorithm>
#include <limits>
#include <numeric>

namespace perflab::models {

double Median(std::vector<double> sample) {
  const size_t n = sample.size();
  if (n == 0) return std::numeric_limits<double>::quiet_NaN();
  const auto upper = sample.begin() + static_cast<std::ptrdiff_t>(n / 2);
  std::nth_element(sample.begin(), upper, sample.end());
  if (n % 2 == 1) return *upper;
  // Everything before `upper` is <= it: the lower middle is their largest.
  const double lower = *std::max_element(sample.begin(), upper);
  // std::midpoint, not (a + b) / 2: two values near 1.7e308 sum past the
  // largest double; for any two that do not, it is (a + b) / 2 exactly.
  return std::midpoint(lower, *upper);
}

}  // namespace perflab::models
