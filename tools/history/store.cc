#include "tools/history/store.h"

#include <sqlite3.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/atomic_file.h"
#include "core/interrupt.h"

namespace perflab::history {
namespace {

namespace fs = std::filesystem;

constexpr char kSchema[] = R"sql(
CREATE TABLE machines (
  id INTEGER PRIMARY KEY, cpu TEXT NOT NULL, cores INTEGER NOT NULL,
  kernel TEXT NOT NULL, governor TEXT NOT NULL,
  UNIQUE (cpu, cores, kernel, governor));
CREATE TABLE commits (
  sha TEXT PRIMARY KEY, parent TEXT NOT NULL, time INTEGER NOT NULL,
  subject TEXT NOT NULL);
CREATE TABLE runs (
  id INTEGER PRIMARY KEY, sha TEXT NOT NULL REFERENCES commits (sha),
  machine INTEGER NOT NULL REFERENCES machines (id), filter TEXT NOT NULL,
  instructions INTEGER NOT NULL, built INTEGER NOT NULL,
  UNIQUE (sha, machine, filter, instructions));
CREATE TABLE samples (
  run INTEGER NOT NULL REFERENCES runs (id), benchmark TEXT NOT NULL,
  repetition INTEGER NOT NULL, real_time REAL NOT NULL, cpu_time REAL NOT NULL,
  unit TEXT NOT NULL, instructions REAL, counters TEXT NOT NULL,
  PRIMARY KEY (run, benchmark, repetition));
)sql";

absl::Status Bad(const std::string& path, absl::string_view why) {
  return absl::InvalidArgumentError(
      absl::StrCat("--db '", path, "': ", why,
                   "; accepted: a database `perflab history run` created "
                   "(schema version ",
                   kSchemaVersion, ") or a path that does not exist yet"));
}

absl::StatusOr<int64_t> PragmaInt(sqlite3* db, const char* sql) {
  auto st = orders::Prepare(db, sql);
  if (!st.ok()) return st.status();
  if (sqlite3_step(st->get()) != SQLITE_ROW) {
    return orders::SqliteError(db, sql);
  }
  return sqlite3_column_int64(st->get(), 0);
}

// Creates an empty database with the schema at a temporary name beside
// `path`, then renames it into place: a reader never sees it half-made.
absl::Status Create(const std::string& path) {
  std::error_code ec;
  const fs::path parent = fs::path(path).parent_path();
  if (!parent.empty()) fs::create_directories(parent, ec);
  absl::StatusOr<std::string> tmp = core::CreateTempFileBeside(path);
  if (!tmp.ok()) return Bad(path, tmp.status().message());
  absl::Status s = [&]() -> absl::Status {
    auto db = orders::OpenDatabase(*tmp, false);
    if (!db.ok()) return db.status();
    return orders::Exec(
        db->get(),
        absl::StrCat("BEGIN;", kSchema,
                     "PRAGMA application_id = ", kApplicationId,
                     "; PRAGMA user_version = ", kSchemaVersion, "; COMMIT;"));
  }();
  if (s.ok() && std::rename(tmp->c_str(), path.c_str()) != 0) {
    s = absl::InternalError("rename failed");
  }
  if (!s.ok()) {
    std::remove(tmp->c_str());
    return Bad(path, absl::StrCat("cannot create: ", s.message()));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status Store::Error(absl::string_view what) const {
  return absl::InvalidArgumentError(absl::StrCat(
      "--db '", path_, "': ", what, ": ", sqlite3_errmsg(db_.get())));
}

absl::StatusOr<Store> Store::Open(const std::string& path, bool writable) {
  std::error_code ec;
  const bool exists = fs::exists(fs::symlink_status(path, ec));
  if (!exists && !writable) return Bad(path, "no such file");
  if (exists && !fs::is_regular_file(fs::symlink_status(path, ec))) {
    return Bad(path, "not a regular file");
  }
  if (!exists) {
    // Created and registered as one step: an interrupt between the two
    // would leave an empty database behind.
    core::ScopedInterruptBlock block;
    if (absl::Status s = Create(path); !s.ok()) return s;
    core::RegisterTempPath(path);
    core::RegisterTempPath(path + "-journal");
  }
  sqlite3* raw = nullptr;
  const int flags = SQLITE_OPEN_NOMUTEX |
                    (writable ? SQLITE_OPEN_READWRITE : SQLITE_OPEN_READONLY);
  const int rc = sqlite3_open_v2(path.c_str(), &raw, flags, nullptr);
  orders::Database db(raw);
  if (rc != SQLITE_OK) {
    return Bad(path, absl::StrCat("cannot open: ", sqlite3_errstr(rc)));
  }
  sqlite3_busy_timeout(db.get(), 5000);
  absl::StatusOr<int64_t> app = PragmaInt(db.get(), "PRAGMA application_id");
  if (!app.ok()) return Bad(path, "not an SQLite database or corrupt");
  if (*app != kApplicationId) {
    return Bad(path, absl::StrCat("not a perflab history database "
                                  "(application_id ",
                                  *app, ")"));
  }
  absl::StatusOr<int64_t> version = PragmaInt(db.get(), "PRAGMA user_version");
  if (!version.ok()) return Bad(path, "corrupt");
  if (*version != kSchemaVersion) {
    return Bad(path, absl::StrCat("schema version ", *version));
  }
  // A damaged page is found now, before anything is read or added.
  {
    auto st = orders::Prepare(db.get(), "PRAGMA quick_check");
    if (!st.ok() || sqlite3_step(st->get()) != SQLITE_ROW ||
        absl::string_view(reinterpret_cast<const char*>(
            sqlite3_column_text(st->get(), 0))) != "ok") {
      return Bad(path, "corrupt (PRAGMA quick_check failed)");
    }
  }
  // No write permission bit counts as read-only even for root, whom
  // access(2) would let write.
  const fs::perms perms = fs::status(path, ec).permissions();
  const bool no_write_bit =
      (perms & (fs::perms::owner_write | fs::perms::group_write |
                fs::perms::others_write)) == fs::perms::none;
  if (writable && (sqlite3_db_readonly(db.get(), "main") == 1 ||
                   ::access(path.c_str(), W_OK) != 0 || no_write_bit)) {
    return Bad(path, "read-only");
  }
  if (writable) {
    if (absl::Status s = orders::Exec(db.get(), "PRAGMA foreign_keys = ON");
        !s.ok()) {
      return Bad(path, s.message());
    }
  }
  return Store(std::move(db), path, !exists);
}

absl::StatusOr<int64_t> Store::MachineId(const Machine& m) {
  const char* sql =
      "SELECT id FROM machines WHERE cpu = ?1 AND cores = ?2 AND kernel = ?3 "
      "AND governor = ?4";
  for (int attempt = 0; attempt < 2; ++attempt) {
    auto st = orders::Prepare(db_.get(), attempt == 0 ? sql
                                                      : "INSERT INTO machines "
                                                        "(cpu, cores, kernel, "
                                                        "governor) VALUES (?1, "
                                                        "?2, ?3, ?4)");
    if (!st.ok()) return Error("machines");
    sqlite3_bind_text(st->get(), 1, m.cpu.c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_bind_int(st->get(), 2, m.cores);
    sqlite3_bind_text(st->get(), 3, m.kernel.c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st->get(), 4, m.governor.c_str(), -1, SQLITE_TRANSIENT);
    const int rc = sqlite3_step(st->get());
    if (attempt == 0 && rc == SQLITE_ROW) {
      return sqlite3_column_int64(st->get(), 0);
    }
    if (attempt == 1) {
      if (rc != SQLITE_DONE) return Error("add machine");
      return sqlite3_last_insert_rowid(db_.get());
    }
    if (sqlite3_db_readonly(db_.get(), "main") == 1) {
      return absl::NotFoundError("this machine has no runs in the database");
    }
  }
  return Error("machines");
}

absl::StatusOr<std::vector<std::string>> Store::Machines() {
  auto st = orders::Prepare(db_.get(),
                            "SELECT id, cpu, cores, kernel, governor FROM "
                            "machines ORDER BY id");
  if (!st.ok()) return Error("machines");
  std::vector<std::string> out;
  while (sqlite3_step(st->get()) == SQLITE_ROW) {
    auto text = [&](int c) {
      return std::string(
          reinterpret_cast<const char*>(sqlite3_column_text(st->get(), c)));
    };
    out.push_back(absl::StrCat(sqlite3_column_int64(st->get(), 0), ": ",
                               text(1), ", ", sqlite3_column_int(st->get(), 2),
                               " cores, ", text(3), ", ", text(4)));
  }
  return out;
}

absl::StatusOr<bool> Store::HasRun(absl::string_view sha, const RunKey& key) {
  auto st =
      orders::Prepare(db_.get(),
                      "SELECT 1 FROM runs WHERE sha = ?1 AND machine = ?2 "
                      "AND filter = ?3 AND instructions = ?4 AND built "
                      "IN (0, 1)");
  if (!st.ok()) return Error("runs");
  sqlite3_bind_text(st->get(), 1, sha.data(), static_cast<int>(sha.size()),
                    SQLITE_TRANSIENT);
  sqlite3_bind_int64(st->get(), 2, key.machine);
  sqlite3_bind_text(st->get(), 3, key.filter.c_str(), -1, SQLITE_TRANSIENT);
  sqlite3_bind_int(st->get(), 4, key.instructions ? 1 : 0);
  const int rc = sqlite3_step(st->get());
  if (rc != SQLITE_ROW && rc != SQLITE_DONE) return Error("runs");
  return rc == SQLITE_ROW;
}

absl::Status Store::AddRun(const Commit& commit, const RunKey& key, bool built,
                           const std::vector<Sample>& samples) {
  return Insert(commit, key, built ? 1 : 0, samples);
}

absl::Status Store::AddOutsideFailure(const Commit& commit, const RunKey& key) {
  return Insert(commit, key, 2, {});
}

absl::StatusOr<int64_t> Store::OutsideFailures(const RunKey& key) {
  auto st = orders::Prepare(db_.get(),
                            "SELECT COUNT(*) FROM runs WHERE machine = ?1 AND "
                            "filter = ?2 AND instructions = ?3 AND built = 2");
  if (!st.ok()) return Error("runs");
  sqlite3_bind_int64(st->get(), 1, key.machine);
  sqlite3_bind_text(st->get(), 2, key.filter.c_str(), -1, SQLITE_TRANSIENT);
  sqlite3_bind_int(st->get(), 3, key.instructions ? 1 : 0);
  if (sqlite3_step(st->get()) != SQLITE_ROW) return Error("runs");
  return sqlite3_column_int64(st->get(), 0);
}

void Store::Stored() {
  if (!fresh_) return;
  core::ForgetTempPath(path_);
  core::ForgetTempPath(path_ + "-journal");
  fresh_ = false;
}

absl::Status Store::Insert(const Commit& commit, const RunKey& key, int built,
                           const std::vector<Sample>& samples) {
  if (orders::Exec(db_.get(), "BEGIN IMMEDIATE").ok() == false) {
    return Error("begin");
  }
  absl::Status s = [&]() -> absl::Status {
    auto c =
        orders::Prepare(db_.get(),
                        "INSERT OR IGNORE INTO commits (sha, parent, time, "
                        "subject) VALUES (?1, ?2, ?3, ?4)");
    if (!c.ok()) return Error("commits");
    sqlite3_bind_text(c->get(), 1, commit.sha.c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(c->get(), 2, commit.parent.c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(c->get(), 3, commit.time);
    sqlite3_bind_text(c->get(), 4, commit.subject.c_str(), -1,
                      SQLITE_TRANSIENT);
    if (sqlite3_step(c->get()) != SQLITE_DONE) return Error("add commit");
    // A failure outside the commit waits for this run to replace it.
    auto d =
        orders::Prepare(db_.get(),
                        "DELETE FROM runs WHERE sha = ?1 AND machine = ?2 "
                        "AND filter = ?3 AND instructions = ?4 AND built = "
                        "2");
    if (!d.ok()) return Error("runs");
    sqlite3_bind_text(d->get(), 1, commit.sha.c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(d->get(), 2, key.machine);
    sqlite3_bind_text(d->get(), 3, key.filter.c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_bind_int(d->get(), 4, key.instructions ? 1 : 0);
    if (sqlite3_step(d->get()) != SQLITE_DONE) return Error("replace run");
    auto r =
        orders::Prepare(db_.get(),
                        "INSERT INTO runs (sha, machine, filter, "
                        "instructions, built) VALUES (?1, ?2, ?3, ?4, ?5)");
    if (!r.ok()) return Error("runs");
    sqlite3_bind_text(r->get(), 1, commit.sha.c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(r->get(), 2, key.machine);
    sqlite3_bind_text(r->get(), 3, key.filter.c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_bind_int(r->get(), 4, key.instructions ? 1 : 0);
    sqlite3_bind_int(r->get(), 5, built);
    if (sqlite3_step(r->get()) != SQLITE_DONE) return Error("add run");
    const int64_t run = sqlite3_last_insert_rowid(db_.get());
    auto p =
        orders::Prepare(db_.get(),
                        "INSERT INTO samples (run, benchmark, repetition, "
                        "real_time, cpu_time, unit, instructions, counters) "
                        "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)");
    if (!p.ok()) return Error("samples");
    for (const Sample& x : samples) {
      sqlite3_reset(p->get());
      sqlite3_bind_int64(p->get(), 1, run);
      sqlite3_bind_text(p->get(), 2, x.benchmark.c_str(), -1, SQLITE_TRANSIENT);
      sqlite3_bind_int(p->get(), 3, x.repetition);
      sqlite3_bind_double(p->get(), 4, x.real_time);
      sqlite3_bind_double(p->get(), 5, x.cpu_time);
      sqlite3_bind_text(p->get(), 6, x.unit.c_str(), -1, SQLITE_TRANSIENT);
      if (x.instructions) {
        sqlite3_bind_double(p->get(), 7, *x.instructions);
      } else {
        sqlite3_bind_null(p->get(), 7);
      }
      sqlite3_bind_text(p->get(), 8, x.counters.c_str(), -1, SQLITE_TRANSIENT);
      if (sqlite3_step(p->get()) != SQLITE_DONE) return Error("add sample");
    }
    return orders::Exec(db_.get(), "COMMIT");
  }();
  if (!s.ok()) {
    (void)orders::Exec(db_.get(), "ROLLBACK");
    return s;
  }
  Stored();
  return s;
}

absl::StatusOr<History> Store::Load(int64_t machine, absl::string_view metric) {
  const bool instructions = metric == "instructions";
  if (!instructions && metric != "real_time" && metric != "cpu_time") {
    return absl::InvalidArgumentError(
        absl::StrCat("--metric '", metric,
                     "': accepted real_time, cpu_time or instructions"));
  }
  const std::string column =
      instructions ? "s.instructions" : "s." + std::string(metric);
  auto st = orders::Prepare(
      db_.get(),
      absl::StrCat(
          "SELECT c.sha, c.parent, c.time, c.subject, s.benchmark, s.unit, ",
          column,
          " FROM runs r JOIN commits c ON c.sha = r.sha JOIN samples s ON "
          "s.run = r.id WHERE r.machine = ?1 AND r.built = 1 AND "
          "r.instructions = ?2 AND ",
          column,
          " IS NOT NULL ORDER BY c.time, (SELECT MIN(id) FROM runs WHERE sha "
          "= c.sha), c.sha, s.benchmark, r.id, s.repetition"));
  if (!st.ok()) return Error("load");
  sqlite3_bind_int64(st->get(), 1, machine);
  sqlite3_bind_int(st->get(), 2, instructions ? 1 : 0);
  History h;
  std::map<std::string, Series> by_name;
  auto text = [&](int c) {
    const unsigned char* t = sqlite3_column_text(st->get(), c);
    return t != nullptr ? std::string(reinterpret_cast<const char*>(t))
                        : std::string();
  };
  int rc;
  while ((rc = sqlite3_step(st->get())) == SQLITE_ROW) {
    std::string sha = text(0);
    if (h.commits.empty() || h.commits.back().sha != sha) {
      h.commits.push_back(
          {sha, text(1), sqlite3_column_int64(st->get(), 2), text(3)});
    }
    const size_t index = h.commits.size() - 1;
    Series& s = by_name[text(4)];
    if (s.benchmark.empty()) {
      s.benchmark = text(4);
      s.unit = instructions ? "instructions" : text(5);
    }
    if (s.commits.empty() || s.commits.back() != index) {
      s.commits.push_back(index);
      s.values.emplace_back();
    }
    // SQLite reads text as 0: a value edited into text (or a negative or
    // non-finite one) is refused, not counted.
    const int type = sqlite3_column_type(st->get(), 6);
    const double v = sqlite3_column_double(st->get(), 6);
    if ((type != SQLITE_INTEGER && type != SQLITE_FLOAT) || !std::isfinite(v) ||
        v < 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "history database: commit ", sha.substr(0, 12), " benchmark ",
          text(4), ": ", metric, " is '", text(6),
          "'; accepted: a finite number >= 0 (was the database edited?)"));
    }
    s.values.back().push_back(v);
  }
  if (rc != SQLITE_DONE) return Error("load");
  for (auto& [name, s] : by_name) h.series.push_back(std::move(s));
  return h;
}

}  // namespace perflab::history
