// Exact percentiles of a sample by the nearest-rank method, and the sample
// size a tail percentile needs before it means anything. For streams and
// merging use Histogram (histogram.h). Pure functions; thread-safe.
#ifndef PERFLAB_MODELS_PERCENTILES_H_
#define PERFLAB_MODELS_PERCENTILES_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"

namespace perflab::models {

// The smallest value with at least p% of the sample at or below it: the
// value of rank ceil(p/100 * n) in sorted order. `sorted` must be ascending.
// Fails on an empty sample or p outside (0, 100].
absl::StatusOr<double> NearestRankSorted(const std::vector<double>& sorted,
                                         double p);

// The 1-based nearest rank of percentile p in a sample of n: ceil(p/100 * n)
// clamped to [1, n]. p/100*n can land a hair above an integer in binary
// (99.9/100*1000 = 999.0000000000001), so a relative 1e-12 of it is ignored
// and the rank is the one a person computes by hand.
int64_t NearestRank(double p, int64_t n);

// Requests a window needs so that about `tail_samples` of them lie above the
// p-th percentile: tail_samples / (1 - p/100). p99.9 with 10 -> 10,000.
// Rounded up, ignoring the same floating-point noise as NearestRank.
int64_t SamplesForTail(double p, double tail_samples);

}  // namespace perflab::models

#endif  // PERFLAB_MODELS_PERCENTILES_H_
