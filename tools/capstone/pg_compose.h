// capstone --real --db postgres: which database the service runs on,
// checked before anything runs, and the composed side's PostgreSQL. The
// composed service keeps every cost of the calibration but the database's
// network: each statement pays PostgreSQL's round trip (the N+1 page 81
// times, the join once) and each follow-up statement of the N+1 what
// bench_pg measured it adds beyond that round trip, from the calibration's
// pg_* fields (sim::PostgresFields(), written by perflab calibrate where
// PostgreSQL is installed). Pure functions; thread-safe.
#ifndef PERFLAB_TOOLS_CAPSTONE_PG_COMPOSE_H_
#define PERFLAB_TOOLS_CAPSTONE_PG_COMPOSE_H_

#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "sim/order_service/calibration.h"
#include "tools/calibration/calibration_io.h"

namespace perflab::capstone {

// The databases capstone --real runs the service on.
inline constexpr char kDbNames[] = "sqlite, postgres";

// OK for "sqlite" and "postgres"; else InvalidArgument in one line naming
// the value and kDbNames.
absl::Status CheckDb(std::string_view db);

// Whether `file` (read from `path`) can compose a PostgreSQL service: its
// pg_* fields measured. InvalidArgument in one line otherwise, with the
// reason the file gives (or that it predates them).
absl::Status CheckPostgresCalibration(const CalibrationFile& file,
                                      const std::string& path);

// `c` with PostgreSQL as its database: db_round_trip_ms = pg_round_trip_ms,
// and item_statement_us = pg_item_statement_us less that round trip (the
// part not spent on the wire, on the model's cores; 0 when the round trip is
// the larger, as noise can make it). The first statement of a page (the
// newest orders, or the join) keeps its own figure, plus the round trip.
sim::Calibration OnPostgres(sim::Calibration c);

}  // namespace perflab::capstone

#endif  // PERFLAB_TOOLS_CAPSTONE_PG_COMPOSE_H_
