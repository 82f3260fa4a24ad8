// Cost per request: the hourly price of the capacity you run divided by the
// requests it serves in an hour at a target utilisation (you never run at
// the measured maximum). The default prices are EXAMPLE list prices, not a
// quote: check your provider's. Pure functions; thread-safe.
#ifndef PERFLAB_MODELS_COST_H_
#define PERFLAB_MODELS_COST_H_

#include "absl/status/statusor.h"

namespace perflab::models {

struct CostOptions {
  double usd_per_vcpu_hour = 0.040;  // example price of one vCPU for an hour
  double usd_per_gib_hour = 0.0045;  // example price of one GiB for an hour
  double target_utilisation = 0.6;   // share of measured max RPS you plan for
};

struct Cost {
  double usd_per_hour = 0;     // vCPU-hours + GiB-hours
  double usd_per_million = 0;  // $/h / (utilisation x RPS x 3600) x 10^6
};

// Fails on rps <= 0, vcpu <= 0, mem_gib < 0, negative prices or a target
// utilisation outside (0, 1].
absl::StatusOr<Cost> CostPerMillion(double rps, double vcpu, double mem_gib,
                                    const CostOptions& options = {});

}  // namespace perflab::models

#endif  // PERFLAB_MODELS_COST_H_
