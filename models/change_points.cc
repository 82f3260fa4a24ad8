#include "models/change_points.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/random.h"
#include "models/mann_whitney.h"
#include "models/median.h"

namespace perflab::models {
namespace {

// Counts and sums of the values seen so far, by rank: a Fenwick tree.
class RankSums {
 public:
  explicit RankSums(size_t n) : count_(n + 1, 0), sum_(n + 1, 0) {}
  void Add(size_t rank, double value) {
    for (size_t i = rank + 1; i < count_.size(); i += i & (~i + 1)) {
      ++count_[i];
      sum_[i] += value;
    }
  }
  // Count and sum of the ranks <= rank.
  std::pair<size_t, double> UpTo(size_t rank) const {
    size_t c = 0;
    double s = 0;
    for (size_t i = rank + 1; i > 0; i -= i & (~i + 1)) {
      c += count_[i];
      s += sum_[i];
    }
    return {c, s};
  }

 private:
  std::vector<size_t> count_;
  std::vector<double> sum_;
};

struct Split {
  size_t tau = 0;  // relative to the segment's start
  double q = 0;
};

Split BestSplit(std::span<const double> x, size_t min_segment) {
  const std::vector<double> q = EnergyStatistics(x, min_segment);
  Split best;
  for (size_t i = 0; i < q.size(); ++i) {
    if (i == 0 || q[i] > best.q) best = {i + min_segment, q[i]};
  }
  return best;
}

// p-value of the best split of x among `permutations` shuffles; stops early
// once the p-value cannot fall to alpha any more (then it is a lower bound).
double PermutationP(std::span<const double> x, double observed,
                    const ChangePointOptions& o, core::SplitMix64& rng) {
  std::vector<double> y(x.begin(), x.end());
  // Ties in floating point: a shuffle that reproduces the same split must
  // count as "at least as large".
  const double bar = observed * (1 - 1e-12);
  int at_least = 0;
  int done = 0;
  const double limit = o.alpha * (o.permutations + 1);
  for (; done < o.permutations; ++done) {
    for (size_t i = y.size() - 1; i > 0; --i) {  // Fisher–Yates
      std::swap(y[i], y[rng.Below(i + 1)]);
    }
    if (BestSplit(y, o.min_segment).q >= bar) ++at_least;
    if (at_least + 1 > limit) {
      ++done;
      break;
    }
  }
  return (at_least + 1.0) / (o.permutations + 1.0);
}

}  // namespace

std::vector<double> EnergyStatistics(std::span<const double> x,
                                     size_t min_segment) {
  const size_t n = x.size();
  if (min_segment < 2 || n < 2 * min_segment) return {};
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return x[a] < x[b]; });
  std::vector<size_t> rank(n);
  std::vector<double> prefix(n + 1, 0);  // of the sorted values
  for (size_t p = 0; p < n; ++p) {
    rank[order[p]] = p;
    prefix[p + 1] = prefix[p] + x[order[p]];
  }
  // row[i] = sum_j |x_i - x_j|; earlier[i] = sum_{j<i} |x_i - x_j|.
  std::vector<double> row(n), earlier(n);
  RankSums seen(n);
  double total_seen = 0;
  for (size_t i = 0; i < n; ++i) {
    const size_t p = rank[i];
    const double v = x[i];
    const auto pd = static_cast<double>(p);
    row[i] = v * pd - prefix[p] + (prefix[n] - prefix[p + 1]) -
             v * static_cast<double>(n - p - 1);
    const auto [c, s] = seen.UpTo(p);
    const auto cd = static_cast<double>(c);
    earlier[i] = v * cd - s + (total_seen - s) - v * static_cast<double>(i - c);
    seen.Add(p, v);
    total_seen += v;
  }
  const double all = std::accumulate(row.begin(), row.end(), 0.0) / 2;
  std::vector<double> q;
  q.reserve(n - 2 * min_segment + 1);
  double within_left = 0, row_left = 0;
  for (size_t tau = 1; tau <= n - min_segment; ++tau) {
    within_left += earlier[tau - 1];
    row_left += row[tau - 1];
    if (tau < min_segment) continue;
    const auto m = static_cast<double>(tau);
    const auto k = static_cast<double>(n - tau);
    const double between = row_left - 2 * within_left;
    const double within_right = all - within_left - between;
    const double e = 2 * between / (m * k) - within_left / (m * (m - 1) / 2) -
                     within_right / (k * (k - 1) / 2);
    q.push_back(m * k / (m + k) * e);
  }
  return q;
}

absl::StatusOr<std::vector<ChangePoint>> FindChangePoints(
    const std::vector<std::vector<double>>& samples,
    const ChangePointOptions& options) {
  if (!(options.alpha > 0 && options.alpha < 1) || options.permutations < 1 ||
      options.min_segment < 2) {
    return absl::InvalidArgumentError(
        "change points: accepted alpha in (0, 1), permutations >= 1, "
        "min_segment >= 2");
  }
  std::vector<double> medians;
  medians.reserve(samples.size());
  for (size_t i = 0; i < samples.size(); ++i) {
    for (double v : samples[i]) {
      if (!std::isfinite(v)) {
        return absl::InvalidArgumentError(absl::StrCat(
            "change points: commit ", i, " holds a NaN or an infinity"));
      }
    }
    if (samples[i].empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("change points: commit ", i, " has no repetition"));
    }
    medians.push_back(Median(samples[i]));
  }
  core::SplitMix64 rng(options.seed);
  struct Segment {
    size_t begin, end;
    Split best;
  };
  const auto make = [&](size_t b, size_t e) {
    return Segment{
        b, e,
        BestSplit(std::span(medians).subspan(b, e - b), options.min_segment)};
  };
  std::vector<Segment> open;
  if (medians.size() >= 2 * options.min_segment) {
    open.push_back(make(0, medians.size()));
  }
  std::vector<std::pair<size_t, double>> cuts;  // index, permutation p
  while (!open.empty()) {
    const auto it = std::max_element(
        open.begin(), open.end(),
        [](const Segment& a, const Segment& b) { return a.best.q < b.best.q; });
    const Segment s = *it;
    open.erase(it);
    const double p =
        PermutationP(std::span(medians).subspan(s.begin, s.end - s.begin),
                     s.best.q, options, rng);
    // The hierarchy stops at the first split that is not significant, as
    // in Matteson and James: the rest hold less evidence.
    if (p > options.alpha) break;
    const size_t cut = s.begin + s.best.tau;
    cuts.emplace_back(cut, p);
    for (auto [b, e] : {std::pair{s.begin, cut}, std::pair{cut, s.end}}) {
      if (e - b >= 2 * options.min_segment) open.push_back(make(b, e));
    }
  }
  std::sort(cuts.begin(), cuts.end());
  std::vector<ChangePoint> out;
  for (size_t c = 0; c < cuts.size(); ++c) {
    const size_t from = c == 0 ? 0 : cuts[c - 1].first;
    const size_t cut = cuts[c].first;
    const size_t to = c + 1 < cuts.size() ? cuts[c + 1].first : samples.size();
    std::vector<double> before, after;
    for (size_t i = from; i < cut; ++i) {
      before.insert(before.end(), samples[i].begin(), samples[i].end());
    }
    for (size_t i = cut; i < to; ++i) {
      after.insert(after.end(), samples[i].begin(), samples[i].end());
    }
    absl::StatusOr<MannWhitneyResult> u = MannWhitneyU(before, after);
    if (!u.ok()) return u.status();
    if (u->p_value > options.alpha) continue;
    ChangePoint cp;
    cp.index = cut;
    cp.median_before = Median(std::move(before));
    cp.median_after = Median(std::move(after));
    cp.change_pct = cp.median_before != 0
                        ? (cp.median_after / cp.median_before - 1) * 100
                        : 0;
    cp.p_value = u->p_value;
    cp.permutation_p = cuts[c].second;
    out.push_back(cp);
  }
  return out;
}

}  // namespace perflab::models
