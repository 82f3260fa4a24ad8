#include "tools/capstone/runs.h"

#include <utility>

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

}  // namespace perflab::capstone
