#include "tools/capstone/runs.h"

namespace perflab::capstone {

StepRunner OrderServiceRunner() { return &sim::RunOrderService; }

absl::StatusOr<std::vector<sim::OrderServiceResult>> ExecuteRuns(
    const std::vector<Run>& runs, const StepRunner& runner, int /*jobs*/,
    const Progress& progress) {
  // Sequential until tools/sweep/'s J-thread runner is on main; `jobs` is
  // accepted now so callers and tests need no change then.
  std::vector<sim::OrderServiceResult> results;
  results.reserve(runs.size());
  for (const Run& run : runs) {
    absl::StatusOr<sim::OrderServiceResult> r =
        runner(run.calibration, run.config, run.load, run.seed);
    if (!r.ok()) return r.status();
    results.push_back(*std::move(r));
    if (progress) progress(results.size(), runs.size());
  }
  return results;
}

}  // namespace perflab::capstone
