#include "tools/capstone/pg_compose.h"

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace perflab::capstone {

absl::Status CheckDb(std::string_view db) {
  if (db == "sqlite" || db == "postgres") return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat("--db: got '", std::string(db), "'; accepted: ", kDbNames));
}

absl::Status CheckPostgresCalibration(const CalibrationFile& file,
                                      const std::string& path) {
  if (file.postgres_measured) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      "--db postgres: calibration '", path, "' has no PostgreSQL costs (",
      file.postgres_absent.empty() ? "written before perflab calibrate "
                                     "measured them"
                                   : file.postgres_absent,
      "); accepted: a calibration from perflab calibrate where PostgreSQL is "
      "installed"));
}

sim::Calibration OnPostgres(sim::Calibration c) {
  c.db_round_trip_ms = c.pg_round_trip_ms;
  c.item_statement_us =
      std::max(0.0, c.pg_item_statement_us - c.pg_round_trip_ms * 1000);
  return c;
}

}  // namespace perflab::capstone
