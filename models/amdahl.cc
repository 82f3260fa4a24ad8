#include "models/amdahl.h"

#include <limits>

#include "absl/strings/str_cat.h"

namespace perflab::models {

double AmdahlSpeedup(double serial_fraction, double n) {
  return 1.0 / (serial_fraction + (1.0 - serial_fraction) / n);
}

double AmdahlLimit(double serial_fraction) {
  if (serial_fraction <= 0) return std::numeric_limits<double>::infinity();
  return 1.0 / serial_fraction;
}

absl::StatusOr<WhatIf> SpeedUpStage(const std::vector<Stage>& stages,
                                    const std::string& stage, double k) {
  if (!(k > 0)) {
    return absl::InvalidArgumentError(
        absl::StrCat("speed-up factor: got ", k, "; accepted: > 0"));
  }
  double total = 0;
  const Stage* target = nullptr;
  std::string names;
  for (const Stage& s : stages) {
    if (!(s.ms >= 0)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "stage ", s.name, ": got ", s.ms, " ms; accepted: >= 0"));
    }
    total += s.ms;
    if (s.name == stage) target = &s;
    absl::StrAppend(&names, names.empty() ? "" : ", ", s.name);
  }
  if (target == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("stage: unknown '", stage, "'; accepted: ", names));
  }
  if (!(total > 0)) {
    return absl::InvalidArgumentError("stages: total time is 0 ms");
  }
  WhatIf w;
  w.stage = stage;
  w.share = target->ms / total;
  w.old_total_ms = total;
  w.new_total_ms = total - target->ms + target->ms / k;
  w.speedup = 1.0 / ((1.0 - w.share) + w.share / k);
  return w;
}

}  // namespace perflab::models
