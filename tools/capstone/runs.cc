#include "tools/capstone/runs.h"

#include <utility>

#include "core/parallel.h"

namespace perflab::capstone {

StepRunner OrderServiceRunner() { return &sim::RunOrderService; }

StepRunner OnlyConfigs(StepRunner runner,
                       std::vector<sim::OrderServiceConfig> configs) {
  return [runner = std::move(runner), configs = std::move(configs)](
             const sim::Calibration& calibration,
             const sim::OrderServiceConfig& config,
             const sim::OrderServiceLoad& load,
             uint64_t seed) -> absl::StatusOr<sim::OrderServiceResult> {
    for (const sim::OrderServiceConfig& c : configs) {
      if (c == config) return runner(calibration, config, load, seed);
    }
    return sim::OrderServiceResult{};
  };
}

absl::StatusOr<std::vector<sim::OrderServiceResult>> ExecuteRuns(
    const std::vector<Run>& runs, const StepRunner& runner, int jobs,
    const Progress& progress) {
  std::vector<sim::OrderServiceResult> results(runs.size());
  absl::Status status = core::ParallelFor(
      std::ssize(runs), jobs,
      [&](int64_t i) -> absl::Status {
        const Run& run = runs[static_cast<size_t>(i)];
        absl::StatusOr<sim::OrderServiceResult> r =
            runner(run.calibration, run.config, run.load, run.seed);
        if (!r.ok()) return r.status();
        results[static_cast<size_t>(i)] = *std::move(r);
        return absl::OkStatus();
      },
      [&](int64_t done) {
        if (progress) progress(static_cast<size_t>(done), runs.size());
      });
  if (!status.ok()) return status;
  return results;
}

}  // namespace perflab::capstone
