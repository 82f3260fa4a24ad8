#include "bench/order_service/dataset.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "bench/order_service/orders.h"
#include "bench/order_service/sqlite_util.h"
#include "core/atomic_file.h"
#include "core/env.h"
#include "core/random.h"

namespace perflab::orders {
namespace {

// Bump when the generated rows change, so old files are rebuilt, not reused.
constexpr std::string_view kGenerator = "perflab-orders-v1";
constexpr char kGeneratorFamily[] = "perflab-orders-";
// PRAGMA application_id of every dataset: "pflb", big-endian at byte 68.
constexpr uint32_t kApplicationId = 0x70666c62;
constexpr int64_t kEpoch = 1'700'000'000;       // seconds, as in the seed
constexpr int64_t kSpreadSeconds = 10'000'000;  // ~116 days of orders

struct TableSpec {
  const char* name;
  const char* ddl;
  std::vector<std::pair<std::string, std::string>> columns;  // name, type
};

const std::vector<TableSpec>& Tables() {
  static const auto* tables = new std::vector<TableSpec>{
      {"customers",
       "CREATE TABLE customers(id INTEGER PRIMARY KEY, name VARCHAR(40))",
       {{"id", "INTEGER"}, {"name", "VARCHAR(40)"}}},
      {"products",
       "CREATE TABLE products(id INTEGER PRIMARY KEY, name VARCHAR(40))",
       {{"id", "INTEGER"}, {"name", "VARCHAR(40)"}}},
      {"orders",
       "CREATE TABLE orders(id INTEGER PRIMARY KEY, customer_id BIGINT NOT "
       "NULL, status VARCHAR(10), total DECIMAL(10,2), created_at BIGINT)",
       {{"id", "INTEGER"},
        {"customer_id", "BIGINT"},
        {"status", "VARCHAR(10)"},
        {"total", "DECIMAL(10,2)"},
        {"created_at", "BIGINT"}}},
      {"order_items",
       "CREATE TABLE order_items(id INTEGER PRIMARY KEY, order_id BIGINT NOT "
       "NULL, product_id BIGINT NOT NULL, qty INT, price DECIMAL(10,2))",
       {{"id", "INTEGER"},
        {"order_id", "BIGINT"},
        {"product_id", "BIGINT"},
        {"qty", "INT"},
        {"price", "DECIMAL(10,2)"}}},
  };
  return *tables;
}

std::string ScaleText(double scale) { return absl::StrFormat("%.17g", scale); }

std::vector<std::pair<std::string, std::string>> MetaFor(
    const DatasetOptions& options, const DatasetShape& shape) {
  return {{"generator", std::string(kGenerator)},
          {"seed", absl::StrCat(options.seed)},
          {"scale", ScaleText(options.scale)},
          {"customer_index", options.customer_index ? "1" : "0"},
          {"customers", absl::StrCat(shape.customers)},
          {"products", absl::StrCat(shape.products)},
          {"orders", absl::StrCat(shape.orders)},
          {"order_items", absl::StrCat(shape.order_items)}};
}

absl::Status StepDone(sqlite3* db, sqlite3_stmt* stmt, const char* what) {
  if (sqlite3_step(stmt) != SQLITE_DONE) return SqliteError(db, what);
  sqlite3_reset(stmt);
  return absl::OkStatus();
}

// Inserts every row; the caller wraps this in one transaction.
absl::Status InsertRows(sqlite3* db, const DatasetOptions& options,
                        const DatasetShape& shape) {
  auto names = Prepare(db, "INSERT INTO customers VALUES (?1, ?2)");
  auto prods = Prepare(db, "INSERT INTO products VALUES (?1, ?2)");
  auto orders = Prepare(db, "INSERT INTO orders VALUES (?1, ?2, ?3, ?4, ?5)");
  auto items =
      Prepare(db, "INSERT INTO order_items VALUES (?1, ?2, ?3, ?4, ?5)");
  for (const auto* s : {&names, &prods, &orders, &items}) {
    if (!s->ok()) return s->status();
  }
  char buf[64];
  for (int64_t id = 1; id <= shape.customers; ++id) {
    int n = std::snprintf(buf, sizeof buf, "customer-%lld", (long long)id);
    sqlite3_bind_int64(names->get(), 1, id);
    sqlite3_bind_text(names->get(), 2, buf, n, SQLITE_TRANSIENT);
    if (auto s = StepDone(db, names->get(), "insert customer"); !s.ok())
      return s;
  }
  for (int64_t id = 1; id <= shape.products; ++id) {
    int n = std::snprintf(buf, sizeof buf, "product-%lld", (long long)id);
    sqlite3_bind_int64(prods->get(), 1, id);
    sqlite3_bind_text(prods->get(), 2, buf, n, SQLITE_TRANSIENT);
    if (auto s = StepDone(db, prods->get(), "insert product"); !s.ok())
      return s;
  }
  core::SplitMix64 rng(options.seed);
  int64_t order_id = 0, item_id = 0;
  for (int64_t c = 1; c <= shape.customers; ++c) {
    for (int64_t k = 0; k < kOrdersPerCustomer; ++k) {
      ++order_id;
      sqlite3_stmt* o = orders->get();
      sqlite3_bind_int64(o, 1, order_id);
      sqlite3_bind_int64(o, 2, c);
      sqlite3_bind_text(o, 3, kOrderStatuses[rng.Below(4)], -1, SQLITE_STATIC);
      sqlite3_bind_double(o, 4,
                          10.0 + static_cast<double>(rng.Below(50000)) / 100.0);
      sqlite3_bind_int64(
          o, 5, kEpoch + static_cast<int64_t>(rng.Below(kSpreadSeconds)));
      if (auto s = StepDone(db, o, "insert order"); !s.ok()) return s;
      for (int64_t j = 0; j < kItemsPerOrder; ++j) {
        sqlite3_stmt* i = items->get();
        sqlite3_bind_int64(i, 1, ++item_id);
        sqlite3_bind_int64(i, 2, order_id);
        sqlite3_bind_int64(i, 3,
                           1 + static_cast<int64_t>(rng.Below(shape.products)));
        sqlite3_bind_int(i, 4, 1 + static_cast<int>(rng.Below(5)));
        sqlite3_bind_double(
            i, 5, 5.0 + static_cast<double>(rng.Below(10000)) / 100.0);
        if (auto s = StepDone(db, i, "insert order item"); !s.ok()) return s;
      }
    }
  }
  return absl::OkStatus();
}

absl::Status Populate(const std::string& path, const DatasetOptions& options,
                      const DatasetShape& shape) {
  auto db = OpenDatabase(path, /*read_only=*/false);
  if (!db.ok()) return db.status();
  sqlite3* h = db->get();
  // The file is private until renamed, so durability during the build buys
  // nothing: no journal, no fsync, a large page cache.
  for (const char* pragma :
       {"PRAGMA journal_mode=OFF", "PRAGMA synchronous=OFF",
        "PRAGMA locking_mode=EXCLUSIVE", "PRAGMA cache_size=-65536"}) {
    if (auto s = Exec(h, pragma); !s.ok()) return s;
  }
  if (auto s = Exec(h, absl::StrCat("PRAGMA application_id = ",
                                    static_cast<int32_t>(kApplicationId)));
      !s.ok())
    return s;
  if (auto s = Exec(h, "BEGIN"); !s.ok()) return s;
  for (const TableSpec& t : Tables()) {
    if (auto s = Exec(h, t.ddl); !s.ok()) return s;
  }
  if (auto s = Exec(
          h, "CREATE TABLE perflab_meta(key TEXT PRIMARY KEY, value TEXT)");
      !s.ok())
    return s;
  if (auto s = InsertRows(h, options, shape); !s.ok()) return s;
  // Indexes after the rows: one sorted build instead of 600,000 inserts.
  if (auto s = Exec(h, "CREATE INDEX ix_items_order ON order_items(order_id)");
      !s.ok())
    return s;
  if (options.customer_index) {
    if (auto s = Exec(h,
                      "CREATE INDEX ix_orders_cust ON orders(customer_id, "
                      "created_at)");
        !s.ok())
      return s;
  }
  auto meta = Prepare(h, "INSERT INTO perflab_meta VALUES (?1, ?2)");
  if (!meta.ok()) return meta.status();
  for (const auto& [k, v] : MetaFor(options, shape)) {
    sqlite3_bind_text(meta->get(), 1, k.data(), (int)k.size(),
                      SQLITE_TRANSIENT);
    sqlite3_bind_text(meta->get(), 2, v.data(), (int)v.size(),
                      SQLITE_TRANSIENT);
    if (auto s = StepDone(h, meta->get(), "insert meta"); !s.ok()) return s;
  }
  if (auto s = Exec(h, "COMMIT"); !s.ok()) return s;
  return Exec(h, "ANALYZE");
}

absl::StatusOr<int64_t> ScalarInt(sqlite3* db, const std::string& sql) {
  auto stmt = Prepare(db, sql);
  if (!stmt.ok()) return stmt.status();
  if (sqlite3_step(stmt->get()) != SQLITE_ROW) return SqliteError(db, sql);
  return sqlite3_column_int64(stmt->get(), 0);
}

absl::Status Mismatch(const std::string& path, absl::string_view what) {
  return absl::FailedPreconditionError(
      absl::StrCat("dataset '", path,
                   "' is not the expected database: ", std::string(what)));
}

}  // namespace

absl::StatusOr<DatasetShape> ShapeFor(const DatasetOptions& options) {
  if (!std::isfinite(options.scale) || options.scale <= 0 ||
      options.scale > kMaxScale) {
    return absl::InvalidArgumentError(
        absl::StrCat("--scale: got ", ScaleText(options.scale),
                     "; accepted: a number in (0, ", kMaxScale, "]"));
  }
  DatasetShape shape;
  shape.customers = std::max<int64_t>(
      1, std::llround(static_cast<double>(kBaseCustomers) * options.scale));
  shape.products = std::max<int64_t>(
      1, std::llround(static_cast<double>(kBaseProducts) * options.scale));
  shape.orders = shape.customers * kOrdersPerCustomer;
  shape.order_items = shape.orders * kItemsPerOrder;
  return shape;
}

absl::Status CheckReplaceable(const std::string& path) {
  auto refuse = [&path](absl::string_view what) {
    return absl::InvalidArgumentError(absl::StrCat(
        "dataset '", path, "' ", what,
        "; accepted: a new path or a perflab dataset (remove the file or "
        "choose another path)"));
  };
  if (path.empty()) return refuse("is an empty path");
  // "-" names stdout elsewhere; a database cannot be written to a stream.
  if (path == "-")
    return refuse("is not a file (a database cannot go to stdout)");
  struct stat st;
  if (::lstat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) return absl::OkStatus();
    return refuse(absl::StrCat("cannot be examined: ", std::strerror(errno)));
  }
  if (S_ISLNK(st.st_mode)) return refuse("is a symbolic link");
  if (!S_ISREG(st.st_mode)) return refuse("is not a regular file");
  // Recognised by the SQLite header's application id (readable even when
  // the rest of the file is truncated), or by the marker row every
  // generator version writes.
  {
    std::ifstream in(path, std::ios::binary);
    char header[100] = {};
    if (in.read(header, sizeof header) &&
        std::memcmp(header, "SQLite format 3", 16) == 0) {
      uint32_t id = 0;
      for (int i = 68; i < 72; ++i) id = (id << 8) | (uint8_t)header[i];
      if (id == kApplicationId) return absl::OkStatus();
    }
  }
  auto db = OpenDatabase(path, /*read_only=*/true);
  if (db.ok()) {
    auto meta = Prepare(db->get(),
                        "SELECT value FROM perflab_meta WHERE key = "
                        "'generator'");
    if (meta.ok() && sqlite3_step(meta->get()) == SQLITE_ROW) {
      const char* v = (const char*)sqlite3_column_text(meta->get(), 0);
      if (v != nullptr && absl::StartsWith(v, kGeneratorFamily)) {
        return absl::OkStatus();
      }
    }
  }
  return refuse("exists and is not a perflab dataset");
}

absl::StatusOr<BuildReport> BuildDataset(const std::string& path,
                                         const DatasetOptions& options) {
  auto shape = ShapeFor(options);
  if (!shape.ok()) return shape.status();
  const core::Env& env = core::Env::Default();
  const int64_t t0 = env.NowNanos();
  std::filesystem::path target(path);
  std::error_code ec;
  if (target.has_parent_path()) {
    std::filesystem::create_directories(target.parent_path(), ec);
  }
  if (absl::Status s = CheckReplaceable(path); !s.ok()) return s;
  // Created exclusively (never through a planted link); SQLite takes an
  // empty file as a new database.
  absl::StatusOr<std::string> made = core::CreateTempFileBeside(path);
  if (!made.ok()) return made.status();
  const std::string tmp = *made;
  absl::Status s = Populate(tmp, options, *shape);
  if (s.ok() && std::rename(tmp.c_str(), path.c_str()) != 0) {
    s = absl::InternalError(
        absl::StrCat("cannot rename '", tmp, "' to '", path, "'"));
  }
  if (!s.ok()) {
    std::filesystem::remove(tmp, ec);
    return s;
  }
  BuildReport report;
  report.path = path;
  report.shape = *shape;
  report.seconds = static_cast<double>(env.NowNanos() - t0) * 1e-9;
  report.file_bytes =
      static_cast<int64_t>(std::filesystem::file_size(path, ec));
  report.rebuilt = true;
  report.reason = "built on request";
  return report;
}

absl::Status CheckDataset(const std::string& path,
                          const DatasetOptions& options) {
  auto shape = ShapeFor(options);
  if (!shape.ok()) return shape.status();
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) {
    return absl::NotFoundError(
        absl::StrCat("dataset '", path, "' does not exist"));
  }
  auto db = OpenDatabase(path, /*read_only=*/true);
  if (!db.ok()) return Mismatch(path, db.status().message());
  sqlite3* h = db->get();
  // Tables and their columns, in order, with the declared types.
  for (const TableSpec& t : Tables()) {
    auto info = Prepare(h, absl::StrCat("PRAGMA table_info(", t.name, ")"));
    if (!info.ok()) return Mismatch(path, info.status().message());
    size_t i = 0;
    int rc;
    while ((rc = sqlite3_step(info->get())) == SQLITE_ROW) {
      const char* name = (const char*)sqlite3_column_text(info->get(), 1);
      const char* type = (const char*)sqlite3_column_text(info->get(), 2);
      if (i >= t.columns.size() || name == nullptr || type == nullptr ||
          t.columns[i].first != name || t.columns[i].second != type) {
        return Mismatch(
            path, absl::StrCat("table ", t.name, " column ", i, " differs"));
      }
      ++i;
    }
    if (rc != SQLITE_DONE) return Mismatch(path, sqlite3_errmsg(h));
    if (i != t.columns.size()) {
      return Mismatch(path,
                      absl::StrCat("table ", t.name, " has ", i,
                                   " columns, expected ", t.columns.size()));
    }
  }
  // Indexes.
  for (auto [name, wanted] :
       {std::pair<const char*, bool>{"ix_items_order", true},
        {"ix_orders_cust", options.customer_index}}) {
    auto n = ScalarInt(h, absl::StrCat("SELECT count(*) FROM sqlite_master "
                                       "WHERE type='index' AND name='",
                                       name, "'"));
    if (!n.ok()) return Mismatch(path, n.status().message());
    if ((*n == 1) != wanted) {
      return Mismatch(
          path, absl::StrCat("index ", name, wanted ? " missing" : " present"));
    }
  }
  // Meta values: generator version, seed, scale.
  auto meta = Prepare(h, "SELECT value FROM perflab_meta WHERE key = ?1");
  if (!meta.ok()) return Mismatch(path, meta.status().message());
  for (const auto& [k, v] : MetaFor(options, *shape)) {
    sqlite3_reset(meta->get());
    sqlite3_bind_text(meta->get(), 1, k.data(), (int)k.size(),
                      SQLITE_TRANSIENT);
    if (sqlite3_step(meta->get()) != SQLITE_ROW) {
      return Mismatch(path, absl::StrCat("meta '", k, "' missing"));
    }
    const char* got = (const char*)sqlite3_column_text(meta->get(), 0);
    if (got == nullptr || v != got) {
      return Mismatch(path,
                      absl::StrCat("meta '", k, "' is '", got ? got : "NULL",
                                   "', expected '", v, "'"));
    }
  }
  // Row counts: reading every table page also catches a truncated file.
  for (auto [table, expected] :
       {std::pair<const char*, int64_t>{"customers", shape->customers},
        {"products", shape->products},
        {"orders", shape->orders},
        {"order_items", shape->order_items}}) {
    auto n = ScalarInt(h, absl::StrCat("SELECT count(*) FROM ", table));
    if (!n.ok()) return Mismatch(path, n.status().message());
    if (*n != expected) {
      return Mismatch(path, absl::StrCat("table ", table, " has ", *n,
                                         " rows, expected ", expected));
    }
  }
  auto ok = Prepare(h, "PRAGMA quick_check");
  if (!ok.ok()) return Mismatch(path, ok.status().message());
  if (sqlite3_step(ok->get()) != SQLITE_ROW ||
      std::string_view((const char*)sqlite3_column_text(ok->get(), 0)) !=
          "ok") {
    return Mismatch(path, "PRAGMA quick_check failed");
  }
  return absl::OkStatus();
}

absl::StatusOr<BuildReport> EnsureDataset(const std::string& path,
                                          const DatasetOptions& options) {
  const core::Env& env = core::Env::Default();
  const int64_t t0 = env.NowNanos();
  absl::Status check = CheckDataset(path, options);
  if (check.ok()) {
    BuildReport report;
    report.path = path;
    report.seconds = static_cast<double>(env.NowNanos() - t0) * 1e-9;
    report.shape = *ShapeFor(options);
    std::error_code ec;
    report.file_bytes =
        static_cast<int64_t>(std::filesystem::file_size(path, ec));
    report.reason = "reused: schema, meta and row counts match";
    return report;
  }
  if (check.code() == absl::StatusCode::kInvalidArgument) return check;
  auto report = BuildDataset(path, options);
  if (!report.ok()) return report.status();
  report->reason = absl::StrCat("rebuilt: ", std::string(check.message()));
  return report;
}

std::string DefaultDatasetDir(const core::Env& env) {
  auto set = [&env](std::string_view name) {
    std::optional<std::string> v = env.GetVar(name);
    return v.has_value() && !v->empty() ? v : std::nullopt;
  };
  if (auto dir = set("PERFLAB_DATASET_DIR")) return *dir;
  // The XDG base directory spec ignores a relative XDG_CACHE_HOME.
  if (auto cache = set("XDG_CACHE_HOME"); cache && cache->starts_with('/')) {
    return absl::StrCat(*cache, "/perflab/datasets");
  }
  if (auto home = set("HOME"))
    return absl::StrCat(*home, "/.cache/perflab/datasets");
  return "perflab-datasets";
}

std::string DefaultDatasetPath(double scale, const core::Env& env) {
  return absl::StrCat(DefaultDatasetDir(env), "/orders-scale-",
                      absl::StrFormat("%g", scale), ".sqlite");
}

}  // namespace perflab::orders
