#include "models/mann_whitney.h"

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace perflab::models {
namespace {

// R's rule: below 50 values a side the exact distribution is cheap and the
// normal approximation is still visibly off in the tails.
constexpr int kExactBelow = 50;

absl::Status CheckSample(std::span<const double> x, const char* which) {
  if (x.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("sample ", which, " is empty; accepted: >= 1 value"));
  }
  for (double v : x) {
    if (!std::isfinite(v)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "sample ", which, " holds ", v, "; accepted: finite numbers"));
    }
  }
  return absl::OkStatus();
}

// Number of orderings of m a's and n b's per value of U (= #(a > b)), by the
// recurrence f(m, n, u) = f(m-1, n, u-n) + f(m, n-1, u): the largest value is
// either an a (beating all n b's) or a b. Counts are exact in doubles up to
// C(m+n, m) < 2^53 and accurate to rounding beyond.
std::vector<double> ExactCounts(int m, int n) {
  const int max_u = m * n;
  // prev[j][u] = f(i-1, j, u); cur[j][u] = f(i, j, u).
  std::vector<std::vector<double>> prev(n + 1, std::vector<double>(max_u + 1));
  for (int j = 0; j <= n; ++j) prev[j][0] = 1;  // f(0, j, 0) = 1
  for (int i = 1; i <= m; ++i) {
    std::vector<std::vector<double>> cur(n + 1, std::vector<double>(max_u + 1));
    cur[0][0] = 1;  // f(i, 0, 0) = 1
    for (int j = 1; j <= n; ++j) {
      for (int u = 0; u <= max_u; ++u) {
        double from_a = u >= j ? prev[j][u - j] : 0;
        cur[j][u] = from_a + cur[j - 1][u];
      }
    }
    prev = std::move(cur);
  }
  return prev[n];
}

}  // namespace

double MannWhitneyExactCdf(int m, int n, double u) {
  if (m <= 0 || n <= 0) return u >= 0 ? 1 : 0;
  std::vector<double> counts = ExactCounts(m, n);
  double total = 0, below = 0;
  for (size_t k = 0; k < counts.size(); ++k) {
    total += counts[k];
    if (static_cast<double>(k) <= u) below += counts[k];
  }
  return below / total;
}

absl::StatusOr<MannWhitneyResult> MannWhitneyU(std::span<const double> a,
                                               std::span<const double> b) {
  if (absl::Status s = CheckSample(a, "A"); !s.ok()) return s;
  if (absl::Status s = CheckSample(b, "B"); !s.ok()) return s;
  const double m = static_cast<double>(a.size());
  const double n = static_cast<double>(b.size());

  // Pool, sort, give tied runs their average rank and sum t^3 - t over runs.
  std::vector<std::pair<double, bool>> pooled;  // (value, from a)
  pooled.reserve(a.size() + b.size());
  for (double v : a) pooled.emplace_back(v, true);
  for (double v : b) pooled.emplace_back(v, false);
  std::sort(pooled.begin(), pooled.end());
  double rank_sum_a = 0, tie_term = 0;
  for (size_t i = 0; i < pooled.size();) {
    size_t j = i;
    while (j < pooled.size() && pooled[j].first == pooled[i].first) ++j;
    const double t = static_cast<double>(j - i);
    const double avg_rank = (static_cast<double>(i + 1 + j)) / 2;  // 1-based
    for (size_t k = i; k < j; ++k) {
      if (pooled[k].second) rank_sum_a += avg_rank;
    }
    tie_term += t * t * t - t;
    i = j;
  }

  MannWhitneyResult r;
  r.u = rank_sum_a - m * (m + 1) / 2;
  r.ties = tie_term > 0;
  const double mean_u = m * n / 2;

  if (!r.ties && a.size() < kExactBelow && b.size() < kExactBelow) {
    const int mi = static_cast<int>(a.size()), ni = static_cast<int>(b.size());
    // Two-sided: twice the smaller tail, P(U <= u) or P(U >= u); the null
    // distribution is symmetric, so P(U >= u) = P(U <= mn - u).
    double lower = MannWhitneyExactCdf(mi, ni, r.u);
    double upper = MannWhitneyExactCdf(mi, ni, m * n - r.u);
    r.p_value = std::min(1.0, 2 * std::min(lower, upper));
    r.exact = true;
    return r;
  }

  const double total = m + n;
  const double var_u =
      m * n / 12 * ((total + 1) - tie_term / (total * (total - 1)));
  if (var_u <= 0) {  // every value equal: no evidence of any difference
    r.p_value = 1;
    return r;
  }
  const double z = (std::abs(r.u - mean_u) - 0.5) / std::sqrt(var_u);
  r.p_value = std::min(1.0, std::erfc(z / std::sqrt(2.0)));
  return r;
}

absl::StatusOr<double> GeometricMean(std::span<const double> x) {
  if (x.empty()) {
    return absl::InvalidArgumentError(
        "geometric mean of no values; accepted: >= 1 value");
  }
  double log_sum = 0;
  for (double v : x) {
    if (!(v > 0) || !std::isfinite(v)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "geometric mean of ", v, "; accepted: finite numbers > 0"));
    }
    log_sum += std::log(v);
  }
  return std::exp(log_sum / static_cast<double>(x.size()));
}

}  // namespace perflab::models
