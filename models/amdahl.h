// Amdahl's Law: the speed-up of N workers when a fraction s of the work is
// serial, its limit 1/s, and the per-stage "what-if" of a request's latency
// breakdown (speed one stage up by k: what happens to the total?).
// Pure functions; thread-safe.
#ifndef PERFLAB_MODELS_AMDAHL_H_
#define PERFLAB_MODELS_AMDAHL_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace perflab::models {

// 1 / (s + (1 - s) / n); s in [0, 1], n >= 1.
double AmdahlSpeedup(double serial_fraction, double n);
// 1 / s: the most any number of workers can give (infinite when s = 0).
double AmdahlLimit(double serial_fraction);

struct Stage {
  std::string name;  // "db", "app", ...
  double ms = 0;     // time this stage takes in one request
};

struct WhatIf {
  std::string stage;  // the stage made faster
  double share = 0;   // f: its share of the total, before
  double old_total_ms = 0;
  double new_total_ms = 0;  // total with that stage k times faster
  double speedup = 0;       // 1 / ((1 - f) + f / k)
};
// Fails when there are no stages, a stage has negative time, the total is 0,
// `stage` is not among them, or k <= 0.
absl::StatusOr<WhatIf> SpeedUpStage(const std::vector<Stage>& stages,
                                    const std::string& stage, double k);

}  // namespace perflab::models

#endif  // PERFLAB_MODELS_AMDAHL_H_
