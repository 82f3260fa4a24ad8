// The drift canary of `capstone --real`: the machine moves between
// calibration and run (another tenant, the CPU's clock, the page cache), so
// before each step a short rerun of the benchmarks of the step's main costs
// (perflab calibrate's map, 3 x 0.05 s each) says how far this machine now
// is from the calibration, as one ratio. It compares with the calibration's
// canary_reference, the same quick reruns made just after the calibration:
// a 0.05 s rerun and a 0.5 s one differ by method (warm-up, the page cache),
// by up to x1.8 here, which is not drift; the composed side of that step runs
// with its CPU costs scaled by it, and a step whose ratio moved more than
// kCanaryFlag is flagged. The benchmarks measure parts alone, never the
// service. Not thread-safe (spawns benchmark processes).
#ifndef PERFLAB_TOOLS_CALIBRATION_CANARY_H_
#define PERFLAB_TOOLS_CALIBRATION_CANARY_H_

#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "sim/order_service/calibration.h"
#include "sim/order_service/model.h"
#include "tools/calibration/calibrate.h"

namespace perflab::capstone {

// A canary that moved more than this (|ratio - 1|) flags its step.
inline constexpr double kCanaryFlag = 0.10;

// The fields whose benchmarks the canary reruns for a step with `config`:
// its database work (the scan and N+1 statements, the index's, or the join),
// the page's serialisation and object graph, and the lookup with the cache.
std::vector<std::string> CanaryFields(const sim::OrderServiceConfig& config);

struct CanaryResult {
  // Geometric mean of the fields' now / calibrated; 1 when none compares.
  double ratio = 1;
  std::vector<std::pair<std::string, double>> fields;  // each one's ratio
  bool flagged() const;  // |ratio - 1| > kCanaryFlag
};

// Every field some step's canary reruns, in CalibrationFields() order.
std::vector<std::string> AllCanaryFields();

// Adds file.canary_reference: AllCanaryFields() rerun as the canary reruns
// them (`options` as given to the calibration; quick). A quick calibration
// is its own reference: its values are copied.
absl::Status AddCanaryReference(CalibrateOptions options,
                                CalibrationFile& file);

// file.canary_reference as a calibration (every other field 0, so it never
// compares); InvalidArgument when the file has none.
absl::StatusOr<sim::Calibration> CanaryReferenceOf(const CalibrationFile& file);

// The ratio of `now` to `calibrated` over `fields` (those > 0 on both).
CanaryResult CompareCanary(const sim::Calibration& calibrated,
                           const sim::Calibration& now,
                           const std::vector<std::string>& fields);

// Reruns the step's canary fields quickly with `options` (map, bench dir)
// and compares them with `reference` (CanaryReferenceOf).
absl::StatusOr<CanaryResult> RunCanary(CalibrateOptions options,
                                       const sim::Calibration& reference,
                                       const sim::OrderServiceConfig& config);

// `c` with every CPU cost in us multiplied by `ratio`: the parts the service
// spends CPU on, not the load generator's (its own core) nor the
// scheduler's quantum (a length of time, not a cost).
sim::Calibration ScaleCosts(sim::Calibration c, double ratio);

}  // namespace perflab::capstone

#endif  // PERFLAB_TOOLS_CALIBRATION_CANARY_H_
