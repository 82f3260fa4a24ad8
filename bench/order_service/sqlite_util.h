// Thin RAII owners for SQLite handles, shared by the dataset generator and the
// order queries. A Database (connection) must be used by one thread at a time;
// open one per thread.
#ifndef PERFLAB_BENCH_ORDER_SERVICE_SQLITE_UTIL_H_
#define PERFLAB_BENCH_ORDER_SERVICE_SQLITE_UTIL_H_

#include <sqlite3.h>

#include <memory>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace perflab::orders {

struct SqliteCloser {
  void operator()(sqlite3* db) const { sqlite3_close_v2(db); }
};
struct StatementFinalizer {
  void operator()(sqlite3_stmt* s) const { sqlite3_finalize(s); }
};
using Database = std::unique_ptr<sqlite3, SqliteCloser>;
using Statement = std::unique_ptr<sqlite3_stmt, StatementFinalizer>;

// Opens `path` read-only (benchmarks, checks) or read-write-create (the
// generator). Connections are opened without SQLite's own mutex: one thread
// each.
absl::StatusOr<Database> OpenDatabase(const std::string& path, bool read_only);

absl::StatusOr<Statement> Prepare(sqlite3* db, std::string_view sql);

// Runs statements that return no rows (DDL, PRAGMA, BEGIN/COMMIT).
absl::Status Exec(sqlite3* db, const std::string& sql);

// The error of the last call on `db`, with `what` in front.
absl::Status SqliteError(sqlite3* db, std::string_view what);

}  // namespace perflab::orders

#endif  // PERFLAB_BENCH_ORDER_SERVICE_SQLITE_UTIL_H_
