// The seam between the composer and whatever runs the order-service model:
// a StepRunner runs one simulation (tests inject a fake with known answers);
// the composer runs them on its workers (core::ParallelFor, as the sweep
// does) with results collected by index, so the output never depends on how
// many workers ran them. Thread-safe if the runner is.
#ifndef PERFLAB_TOOLS_CAPSTONE_RUNS_H_
#define PERFLAB_TOOLS_CAPSTONE_RUNS_H_

#include <cstdint>
#include <functional>
#include <vector>

#include "absl/status/statusor.h"
#include "sim/order_service/calibration.h"
#include "sim/order_service/model.h"

namespace perflab::capstone {

using StepRunner = std::function<absl::StatusOr<sim::OrderServiceResult>(
    const sim::Calibration&, const sim::OrderServiceConfig&,
    const sim::OrderServiceLoad&, uint64_t seed)>;

// The real model: sim::RunOrderService.
StepRunner OrderServiceRunner();

struct Run {
  sim::Calibration calibration;
  sim::OrderServiceConfig config;
  sim::OrderServiceLoad load;
  uint64_t seed = 0;
};

// For a composition whose figures are read only for the steps with one of
// `configs` (a --validate fold reads its last step's and, for the factor,
// the step's before): the runs of any other config return an empty result
// at once instead of running, since nothing reads them. The composition's
// figures for those other steps are then meaningless.
StepRunner OnlyConfigs(StepRunner runner,
                       std::vector<sim::OrderServiceConfig> configs);

// Called after each finished run with (finished, total).
using Progress = std::function<void(size_t done, size_t total)>;

}  // namespace perflab::capstone

#endif  // PERFLAB_TOOLS_CAPSTONE_RUNS_H_
