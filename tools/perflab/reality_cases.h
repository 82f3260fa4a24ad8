// The reality checks: each case runs for real (bench/order_service's HttpServer
// and load generator, and wrk as an independent witness) and in the simulator
// with the same parameters, and reports both side by side with the
// difference and whether it is within the case's agreement goal.
// Not thread-safe to run two at once only in the sense of CPU noise: cases
// share nothing and bind port 0.
#ifndef PERFLAB_TOOLS_PERFLAB_REALITY_CASES_H_
#define PERFLAB_TOOLS_PERFLAB_REALITY_CASES_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/document.h"

namespace perflab::cli {

struct RealityOptions {
  bool quick = false;  // shorter runs (and a scaled keep-alive race)
  bool wrk = true;     // also run wrk on the closed-loop cases when installed
  // Case names to run; empty runs all: thread-cap, coordinated-omission,
  // inner-pool, nagle, keepalive-race.
  std::vector<std::string> cases;
};

// One row per compared figure: case, metric, perflab, wrk, sim, diff %,
// goal, within goal. InvalidArgument names an unknown case.
absl::StatusOr<core::Document> RunReality(const RealityOptions& options);

}  // namespace perflab::cli

#endif  // PERFLAB_TOOLS_PERFLAB_REALITY_CASES_H_
