// TEMPORARY, until the MODEL branch (sim/scenarios/order_service.cc and
// calibration.cc) is merged: weak definitions of the two functions the
// capstone declares in sim/scenarios/, so the tools link and test today. The
// real, strong definitions replace these at link time with no other change;
// delete this file once they are on main.
#include "sim/scenarios/order_service.h"

namespace perflab::sim {

__attribute__((weak)) absl::StatusOr<OrderServiceResult> RunOrderService(
    const Calibration&, const OrderServiceConfig&, const OrderServiceLoad&,
    uint64_t) {
  return absl::UnimplementedError(
      "the order-service model is not merged yet (MODEL branch)");
}

}  // namespace perflab::sim
