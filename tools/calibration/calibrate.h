// `perflab calibrate`: measures the calibration on this machine. Runs the
// benchmark families the map names (bench/benchmarks.json, section
// "calibration": field -> benchmark, family, metric, conversion), or reads
// their Google Benchmark JSON from a directory (reports/bench/ of
// `tools/lab bench`), takes the median of the repetitions, converts units
// (times to the field's us/ms, bytes to MiB with the stated JVM factor) and
// fills the fields no benchmark measures from the seed-h2 calibration, saying
// so in each field's source and provenance (kind "measured" with the
// benchmarks and formula, or "assumed", "from": "seed-h2", with the reason).
// Not thread-safe (spawns benchmark processes).
#ifndef PERFLAB_TOOLS_CALIBRATION_CALIBRATE_H_
#define PERFLAB_TOOLS_CALIBRATION_CALIBRATE_H_

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "tools/calibration/calibration_io.h"

namespace perflab::capstone {

struct CalibrateOptions {
  bool quick = false;     // 3 repetitions of 0.05 s instead of 5 of 0.5 s
  std::string from_dir;   // non-empty: read <from_dir>/<family>.json instead
  std::string map_path;   // kMapPath
  std::string bench_dir;  // holds the bench_<family> binaries
  std::string seed_path;  // seed-h2 calibration for unmeasured fields; if
                          // missing, DeriveSeedH2 (the same figures)
  // Non-empty: measure only these fields of the map (the rest as unmeasured).
  std::vector<std::string> only_fields;
  bool quiet = false;  // the benchmarks' console tables discarded
};

// One entry of the map's "calibration" section.
struct FieldSource {
  std::string field;      // a sim::CalibrationFields() name
  std::string family;     // "db" -> bench_db, <from_dir>/db.json
  std::string benchmark;  // run name without /iterations:N
  std::string metric;     // "cpu_time", "real_time" or a counter name
  std::string minus;      // optional: a benchmark subtracted (same metric)
  double multiply = 1;    // applied after the subtraction
  std::string why;        // the arithmetic in words
};

// The map's section of sim::PostgresFields(), measured by bench_pg.
inline constexpr char kPostgresMapSection[] = "calibration_postgres";

// Parses a section of the map: "calibration" (sim::CalibrationFields()) or
// kPostgresMapSection (sim::PostgresFields(); a map without it has none).
// Unknown fields, a field mapped twice, missing keys: InvalidArgument
// naming the entry.
absl::StatusOr<std::vector<FieldSource>> ParseCalibrationMap(
    std::string_view json, std::string_view section = "calibration");

// Converts a median in `from_unit` ("ns", "us", "ms", "s" for times; ""
// for counters, taken as bytes when the field is in MiB) to `field_unit`.
absl::StatusOr<double> ConvertUnit(double value, std::string_view from_unit,
                                   std::string_view field_unit);

// The benchmark map and the seed-h2 calibration, relative to the source
// tree (and to an install's share/perflab).
inline constexpr char kMapPath[] = "bench/benchmarks.json";
inline constexpr char kSeedPath[] = "fixtures/calibration/seed-h2.json";

// Where this binary finds them, and the bench binaries, at run time
// (core/data_paths.h): in the checkout and build it was built in, in its
// install's share/perflab, or relative to the current directory. The bench
// directory is "" where none is known (installed): calibrate then asks for
// --bench-dir or --from.
std::string DefaultMapPath();
std::string DefaultSeedPath();
std::string DefaultBenchDir();

// Every field of `seed` into `file` (values, sources, provenance), marked as
// copied: kind "assumed" from seed.name with the reason its value holds
// here, keeping the rows and figures its derivation there read (they stay
// input rows). Not copied, 0 and assumed here: join_hold_ms (seed-h2 fitted
// it to the case study's H2/JDBC stack) and the scheduler's fields (stated
// for its kernel on 8 vCPUs; 0 is processor sharing). Calibrate then
// replaces the fields it measures.
void CopyUnmeasured(const CalibrationFile& seed, CalibrationFile& file);

// PostgreSQL's fields (the map's kPostgresMapSection) into `file`: run from
// bench_pg (or read from <from_dir>/pg.json), measured as the other fields
// are, or else 0 with the reason in file.postgres_absent (bench_pg not
// built; its server binaries missing or its server not starting: its one
// line; no pg.json in from_dir). Nothing is done for a map without the
// section or options.only_fields without its fields. Errors: a bad section,
// results without its benchmarks.
absl::Status MeasurePostgres(const CalibrateOptions& options,
                             std::string_view map_text, CalibrationFile& file,
                             const std::function<void(std::string_view)>& log);

// Every field, measured or copied, then MeasurePostgres.
absl::StatusOr<CalibrationFile> Calibrate(
    const CalibrateOptions& options,
    const std::function<void(std::string_view)>& log);

}  // namespace perflab::capstone

#endif  // PERFLAB_TOOLS_CALIBRATION_CALIBRATE_H_
