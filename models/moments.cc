#include "models/moments.h"

#include <algorithm>
#include <cfloat>
#include <cmath>

namespace perflab::models {
namespace {

// A power of two s with every |x| / s below 2: dividing by it is exact
// (barring subnormals), and 2^1023 at most, so s itself is finite.
double Scale(const std::vector<double>& xs) {
  double m = 0;
  for (double x : xs) m = std::max(m, std::abs(x));
  if (m == 0) return 1;
  int e = 0;
  std::frexp(m, &e);  // m = f 2^e, f in [0.5, 1)
  return std::ldexp(1.0, e - 1);
}

}  // namespace

double MeanOf(const std::vector<double>& xs) {
  if (xs.empty()) return 0;
  const double n = static_cast<double>(xs.size());
  double sum = 0;
  for (double x : xs) sum += x;
  if (std::isfinite(sum)) return sum / n;
  const double scale = Scale(xs);
  double scaled = 0;
  for (double x : xs) scaled += x / scale;
  // |scaled / n| < 2: the product is the mean, which lies between finite
  // values; the clamp only catches a rounding up past DBL_MAX.
  return std::clamp(scaled / n * scale, -DBL_MAX, DBL_MAX);
}

double SampleSdOf(const std::vector<double>& xs, double mean) {
  if (xs.size() < 2) return 0;
  const double n1 = static_cast<double>(xs.size() - 1);
  double ss = 0;
  for (double x : xs) ss += (x - mean) * (x - mean);
  if (std::isfinite(ss)) return std::sqrt(ss / n1);
  // Deviations as x / s - mean / s: each below 4 in size.
  std::vector<double> both = xs;
  both.push_back(mean);
  const double scale = Scale(both);
  const double m = mean / scale;
  double scaled = 0;
  for (double x : xs) {
    const double d = x / scale - m;
    scaled += d * d;
  }
  return std::min(std::sqrt(scaled / n1) * scale, DBL_MAX);
}

}  // namespace perflab::models
