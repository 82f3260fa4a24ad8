// Leave-one-row-out validation of the seed-h2 calibration (`perflab capstone
// --validate`): for each row k of the case study's ten-step table, the
// calibration is derived without row k (DeriveSeedH2Without), the composer
// runs the steps up to k with it, and row k's RPS, p99, open-loop p99, CPU
// and step factor (step k against step k - 1, both with that calibration)
// are printed beside the case study's. A row is a prediction of figures the
// calibration never read, through a cell, a choice made on the row or a
// figure measured in the row's own run; a row whose step reads a field
// nothing else gives (the baseline's scan) or that still reads the row (the
// cache step's GC log) has no prediction and says so. The folds' runs share
// every core (ComposeAll balances them together); the output is the same for
// any number of workers. Thread-compatible.
#ifndef PERFLAB_TOOLS_CAPSTONE_VALIDATE_H_
#define PERFLAB_TOOLS_CAPSTONE_VALIDATE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/document.h"
#include "tools/calibration/seed_h2.h"
#include "tools/capstone/composer.h"
#include "tools/capstone/runs.h"
#include "tools/capstone/thresholds.h"

namespace perflab::capstone {

struct ValidateOptions {
  PublishedFigures figures = CaseStudyFigures();
  int repeats = 3;     // per step and loop, as the composer's
  uint64_t seed = 42;  // repeat r runs with seed + r
  int jobs = 0;        // workers (0: every core); never changes the output
};

// One row of the table, predicted without it.
struct Fold {
  std::string step;
  case_study::CapstoneStepFigures published{};  // the case study's row k
  // Fields the step reads that nothing but its own row gives: no prediction
  // (figures all 0) when not empty.
  std::vector<std::string> unpredictable_because;
  // Fields the step reads that still read its own row without its cells: a
  // figure measured in that step's own run (its GC log) or a choice made on
  // its results. No prediction either when not empty.
  std::vector<std::string> reads_own_row;
  StepFigures figures;  // the model's row k (factor: against row k - 1)
  // The rows the fold's calibration read (never `step`).
  std::vector<std::string> input_rows;
  // The fold's calibration fields whose derivation changed for want of the
  // row (value or provenance differs from seed-h2's), in field order.
  std::vector<std::string> rederived;
};

struct Validation {
  std::vector<Fold> folds;  // the ten rows in the case study's order
  std::vector<uint64_t> seeds;
  // Over the predicted rows: RPS within 15 % and 30 % of the case study's,
  // and the changes (rows after the first) whose factor moves its way.
  int predicted = 0, within15 = 0, within30 = 0;
  int changes = 0, same_way = 0;
};

// Errors: InvalidArgument for repeats < 1 or jobs < 0; the model's.
absl::StatusOr<Validation> Validate(const ValidateOptions& options,
                                    const StepRunner& runner);

// The table (model beside case study per row), the summary and notes; its
// JSON (core::ToJson, the record layout): {calibration, seeds, summary:
// {predicted_rows, within_15_pct, within_30_pct, changes, same_way}, rows:
// [{step, predicted, unpredictable_because, reads_own_row, input_rows,
// rederived, rps, p99_ms, open_p99_ms, cpu_cores, factor, case_study: {rps,
// p99_ms, open_p99_ms, cpu_cores, factor}, rps_off_pct, same_way}]}; the
// model's figures only for a predicted row, same_way from the second.
// Deterministic: the same Validation, the same bytes.
core::Document ToDocument(const Validation& v);

}  // namespace perflab::capstone

#endif  // PERFLAB_TOOLS_CAPSTONE_VALIDATE_H_
