// Two-sample statistics for "is B faster than A or is that noise": the
// Mann–Whitney U test (two-sided) and the geometric mean of ratios.
//
// MannWhitneyU follows the textbook definition (and R's wilcox.test, exact
// and correct = TRUE): U counts the pairs (a, b) with a > b, ties counting
// one half. Without ties and with both samples under 50 values the p-value
// comes from the exact null distribution of U; otherwise from the normal
// approximation with the tie-corrected variance and a continuity correction
// of 0.5. Pure functions; thread-safe.
#ifndef PERFLAB_MODELS_MANN_WHITNEY_H_
#define PERFLAB_MODELS_MANN_WHITNEY_H_

#include <span>

#include "absl/status/statusor.h"

namespace perflab::models {

struct MannWhitneyResult {
  double u = 0;        // U of the first sample: #(a > b) + #(a == b) / 2
  double p_value = 1;  // two-sided, in (0, 1]
  bool exact = false;  // true: exact distribution; false: normal approximation
  bool ties = false;   // some value occurs more than once in the pooled data
};

// InvalidArgument when a sample is empty or holds a NaN or an infinity.
absl::StatusOr<MannWhitneyResult> MannWhitneyU(std::span<const double> a,
                                               std::span<const double> b);

// P(U <= u) under the null hypothesis for sample sizes m and n without ties
// (exact; m, n <= 200). Exposed for tests and for readers of the tables.
double MannWhitneyExactCdf(int m, int n, double u);

// exp(mean(log x)); InvalidArgument when empty or a value is not > 0.
absl::StatusOr<double> GeometricMean(std::span<const double> x);

}  // namespace perflab::models

#endif  // PERFLAB_MODELS_MANN_WHITNEY_H_
