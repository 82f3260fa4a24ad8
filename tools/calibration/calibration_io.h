// Reading and writing calibration files (format "perflab-calibration-1"):
//
//   {"format": "perflab-calibration-1", "name": "...", "description": "...",
//    "fields": {"<name>": {"value": <number>, "unit": "<unit>",
//                          "source": "<figure or benchmark, and arithmetic>",
//                          "provenance": {"kind": "table", "rows":
//                              {"index": ["rps", "cpu_cores"]}, ...}}}}
//
// and, optional beside "fields", "postgres": {"fields": {"pg_round_trip_ms":
// <a field as above>, "pg_item_statement_us": ...}} or {"absent": "<why>"}.
//
// Every field of sim::CalibrationFields() must be present exactly once with
// its unit, a finite value >= 0, a source text and a provenance whose kind
// (measured, published, table, assumed) has what it needs and whose every
// name is known: a figure of case_study::kNamedFigures, a row and column of
// the ten-step table, a calibration field (fixtures/calibration/README.md).
// Anything else is InvalidArgument with one line naming the field and what is
// accepted. The simulator never sees this file, only the sim::Calibration it
// becomes. Pure functions; thread-safe.
#ifndef PERFLAB_TOOLS_CALIBRATION_CALIBRATION_IO_H_
#define PERFLAB_TOOLS_CALIBRATION_CALIBRATION_IO_H_

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "sim/order_service/calibration.h"

namespace perflab::capstone {

inline constexpr std::string_view kCalibrationFormat = "perflab-calibration-1";

// Where perflab calibrate writes and perflab capstone (also --real) reads
// when no --calibration is given, relative to the working directory.
inline constexpr char kDefaultCalibrationPath[] = "reports/calibration.json";
// The largest core count a calibration field may hold (effective_cores,
// generator_cores): far beyond any machine, small enough to simulate.
inline constexpr double kMaxCalibrationCores = 1024;
// The largest time a calibration cost field may hold, 1000 s per piece of
// a request, in each time unit: far beyond any service's cost, small enough
// that a request's sum of pieces and the percentiles of a run stay finite.
inline constexpr double kMaxCalibrationCostUs = 1e9;
inline constexpr double kMaxCalibrationCostMs = 1e6;

// The largest value a field in `unit` accepts (+inf: only finiteness bounds
// it); the single definition the reader checks and the README states.
double MaxCalibrationValue(std::string_view unit);

struct CalibrationFile {
  std::string name;         // short identity, e.g. "seed-h2" or "this-machine"
  std::string description;  // one sentence: where the numbers come from
  sim::Calibration values;
  // One per sim::CalibrationFields() entry, same order: where the value comes
  // from, for humans (benchmark or published figure, and the arithmetic).
  std::vector<std::string> sources;
  // The same, machine-readable: kind and the benchmarks, figures or table
  // cells it reads.
  std::vector<sim::Provenance> provenance;
  // The drift canary's baseline (canary.h): the canary fields rerun the way
  // the canary reruns them, just after the calibration, so that a canary
  // compares like with like. Field name and value, in CalibrationFields()
  // order; empty in files that have none (the seed, the fixtures).
  std::vector<std::pair<std::string, double>> canary_reference;
  // PostgreSQL's fields (sim::PostgresFields(), values in `values`), in an
  // optional "postgres" section: {"fields": {<as above>}} when measured,
  // {"absent": "<why>"} when not (their values 0). Files written before the
  // section have neither: postgres_measured false, postgres_absent "".
  bool postgres_measured = false;
  std::string postgres_absent;
  std::vector<std::string> postgres_sources;  // PostgresFields() order
  std::vector<sim::Provenance> postgres_provenance;
};

// Parses the JSON text of a calibration file.
absl::StatusOr<CalibrationFile> ParseCalibration(std::string_view json);

// Reads and parses `path`; errors start with the path.
absl::StatusOr<CalibrationFile> ReadCalibrationFile(const std::string& path);

// Renders `file` as JSON (fields in CalibrationFields() order, numbers in
// shortest round-trip form), so ParseCalibration(Write(f)) == f.
std::string WriteCalibration(const CalibrationFile& file);

// A short identity of a file's bytes: "sha256:<64 hex digits>".
std::string ContentHash(std::string_view bytes);

}  // namespace perflab::capstone

#endif  // PERFLAB_TOOLS_CALIBRATION_CALIBRATION_IO_H_
