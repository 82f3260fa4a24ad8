// The "seed-h2" calibration as code: every field of sim::Calibration derived
// from the case study's published figures (core/case_study.h), with the
// arithmetic and each field's Provenance (which table cells, which named
// figures, which other fields). fixtures/calibration/seed-h2.json is this
// function's output written by WriteCalibration (a test regenerates it and
// compares bytes), and sim::Calibration's defaults are its values.
//
// Each field is rounded to the precision it is published with (0.1 us, 0.001
// ms, ...) as it is derived, and later fields are derived from the rounded
// values, which are what the model reads: e.g. the scan is what is left of
// the baseline's CPU per request after the model's 80 x 39.1 us follow-ups.
// The derivation reads figures only through its argument, so a test can
// change one cell or figure and see which fields move. Pure; thread-safe.
#ifndef PERFLAB_TOOLS_CALIBRATION_SEED_H2_H_
#define PERFLAB_TOOLS_CALIBRATION_SEED_H2_H_

#include <optional>
#include <string>
#include <vector>

#include "core/case_study.h"
#include "tools/calibration/calibration_io.h"

namespace perflab::capstone {

// The figures a derivation reads: the ten-step table and the named figures.
struct PublishedFigures {
  std::vector<case_study::CapstoneStepFigures> table;
  std::vector<case_study::NamedFigure> named;

  // The row of `step` and the figure `id`; one that is missing aborts (a
  // programming error).
  const case_study::CapstoneStepFigures& Row(
      case_study::CapstoneStep step) const;
  const case_study::NamedFigure& Figure(case_study::FigureId id) const;
};

// core/case_study.h's kCapstoneTable and kNamedFigures.
PublishedFigures CaseStudyFigures();

// The calibration named "seed-h2" with its values, source texts and
// provenance. `figures` must hold every row and figure the derivation names
// (CaseStudyFigures() does; a missing one aborts: a programming error).
CalibrationFile DeriveSeedH2(const PublishedFigures& figures);

// The same derivation without one row of the ten-step table, for
// leave-one-row-out validation: no cell of that row is read (reading one
// aborts). A field whose derivation reads it takes its next derivation from
// other figures or rows, and its provenance and source say which; a field
// nothing else gives is `underived` (value 0, kind assumed, its why says
// so): a step that reads it cannot be predicted. No `excluded_row` is
// DeriveSeedH2. Rows and figures are named by case_study::CapstoneStep and
// case_study::FigureId, so a misspelt one does not compile.
struct SeedH2Fold {
  CalibrationFile file;
  std::vector<std::string> underived;  // field names, in field order
};
SeedH2Fold DeriveSeedH2Without(
    const PublishedFigures& figures,
    std::optional<case_study::CapstoneStep> excluded_row);

}  // namespace perflab::capstone

#endif  // PERFLAB_TOOLS_CALIBRATION_SEED_H2_H_
