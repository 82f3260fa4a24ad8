// Statistics over replications: for every grid point and numeric result, the
// mean, the 95 % confidence half-width (Student's t with n - 1 degrees of
// freedom), min and max; latency percentiles from the exact merge of the
// runs' histograms when the scenario attached them. Pure function of its
// inputs (no clocks, no thread timing): equal inputs give equal Documents.
#ifndef PERFLAB_TOOLS_SWEEP_AGGREGATE_H_
#define PERFLAB_TOOLS_SWEEP_AGGREGATE_H_

#include <vector>

#include "absl/status/statusor.h"
#include "core/document.h"
#include "tools/sweep/experiment.h"
#include "tools/sweep/runner.h"

namespace perflab::sweep {

// `results` must hold every run of `e`, in run order (as RunRuns returns for
// the whole sweep, or MergeParts for its shards). Fails only on a corrupt
// histogram.
absl::StatusOr<core::Document> Aggregate(const Experiment& e,
                                         const std::vector<RunResult>& results);

}  // namespace perflab::sweep

#endif  // PERFLAB_TOOLS_SWEEP_AGGREGATE_H_
