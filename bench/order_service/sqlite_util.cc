#include "bench/order_service/sqlite_util.h"

#include "absl/strings/str_cat.h"

namespace perflab::orders {

absl::Status SqliteError(sqlite3* db, std::string_view what) {
  return absl::InternalError(absl::StrCat(
      std::string(what), ": ", db != nullptr ? sqlite3_errmsg(db) : "no db"));
}

absl::StatusOr<Database> OpenDatabase(const std::string& path, bool read_only) {
  sqlite3* raw = nullptr;
  int flags = SQLITE_OPEN_NOMUTEX |
              (read_only ? SQLITE_OPEN_READONLY
                         : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
  int rc = sqlite3_open_v2(path.c_str(), &raw, flags, nullptr);
  Database db(raw);
  if (rc != SQLITE_OK) {
    return absl::NotFoundError(absl::StrCat(
        "cannot open database '", path,
        "': ", raw != nullptr ? sqlite3_errmsg(raw) : sqlite3_errstr(rc)));
  }
  return db;
}

absl::StatusOr<Statement> Prepare(sqlite3* db, std::string_view sql) {
  sqlite3_stmt* raw = nullptr;
  int rc = sqlite3_prepare_v2(db, sql.data(), static_cast<int>(sql.size()),
                              &raw, nullptr);
  Statement stmt(raw);
  if (rc != SQLITE_OK) {
    return SqliteError(db, absl::StrCat("prepare '", std::string(sql), "'"));
  }
  return stmt;
}

absl::Status Exec(sqlite3* db, const std::string& sql) {
  char* err = nullptr;
  if (sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
    std::string msg = err != nullptr ? err : "unknown error";
    sqlite3_free(err);
    return absl::InternalError(absl::StrCat("'", sql, "': ", msg));
  }
  return absl::OkStatus();
}

}  // namespace perflab::orders
