// Change points of a benchmark's history over commits: E-divisive means
// (Matteson and James, "A Nonparametric Approach for Multiple Change Point
// Analysis of Multivariate Data", JASA 2014, with exponent 1 and the split's
// end fixed at the segment's end, as Apache Otava and MongoDB's CI use it),
// each split kept only when a permutation test rejects "no change" at the
// false-alarm level `alpha`, and then confirmed by the two-sided Mann–Whitney
// U test between the repetitions of the segments either side.
//
// The detector runs on one value per commit (the median of its repetitions);
// the confirmation on all repetitions. Deterministic: the permutations come
// from core::SplitMix64 seeded with `seed`. Pure functions; thread-safe.
#ifndef PERFLAB_MODELS_CHANGE_POINTS_H_
#define PERFLAB_MODELS_CHANGE_POINTS_H_

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "absl/status/statusor.h"

namespace perflab::models {

struct ChangePointOptions {
  // False-alarm level of each permutation test and of the U test: on a
  // series without a change, P(any change reported) <= alpha. Each further
  // split is tested at alpha too, within its segment, so a series with real
  // changes may show a small spurious one beside them (rate <= alpha per
  // segment left).
  double alpha = 0.05;
  int permutations = 199;  // p resolution 1 / (permutations + 1)
  uint64_t seed = 1;
  size_t min_segment = 3;  // commits on each side of a split, >= 2
};

struct ChangePoint {
  size_t index = 0;  // first commit of the new segment
  double median_before = 0, median_after = 0;  // of the segments' repetitions
  double change_pct = 0;                       // (after / before - 1) * 100
  double p_value = 1;  // Mann–Whitney U between the segments
  double permutation_p = 1;
};

// The energy statistic Q(tau) of splitting x at tau (left x[0, tau), right
// x[tau, n)): m k / (m + k) * (2/(m k) sum|l - r| - sum_{i<j}|l_i - l_j| /
// C(m, 2) - sum_{i<j}|r_i - r_j| / C(k, 2)). Every tau in [min, n - min] in
// O(n log n); entry tau - min of the result. Exposed for tests.
std::vector<double> EnergyStatistics(std::span<const double> x,
                                     size_t min_segment);

// Change points in index order. samples[i] holds commit i's repetitions
// (at least one each, finite). InvalidArgument on an empty commit, a NaN or
// infinity, or options out of range.
absl::StatusOr<std::vector<ChangePoint>> FindChangePoints(
    const std::vector<std::vector<double>>& samples,
    const ChangePointOptions& options = {});

}  // namespace perflab::models

#endif  // PERFLAB_MODELS_CHANGE_POINTS_H_
