#include "bench/order_service/pg_orders.h"

#include <cstdio>
#include <cstdlib>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "bench/order_service/pg_cluster.h"
#include "bench/order_service/sqlite_util.h"
#include "core/env.h"

namespace perflab::orders {
namespace {

// Column kinds of the COPY text: an integer, a text, or money (every bit of
// the double).
struct CopySpec {
  const char* table;
  const char* ddl;
  const char* kinds;  // one of 'i', 't', 'm' per column
  const char* select;
};

// The SQLite schema (dataset.cc) in PostgreSQL's types: ids are BIGINT
// (SQLite's INTEGER is 64-bit). Money is DOUBLE PRECISION because SQLite's
// DECIMAL(10,2) column holds a REAL: the generator's sums leave values such
// as 6.5600000000000005, which NUMERIC(10,2) would round to 6.56, and the
// pages the two engines serve would then differ in bytes.
constexpr CopySpec kTables[] = {
    {"customers",
     "CREATE TABLE customers(id BIGINT PRIMARY KEY, name VARCHAR(40))", "it",
     "SELECT id, name FROM customers ORDER BY id"},
    {"products",
     "CREATE TABLE products(id BIGINT PRIMARY KEY, name VARCHAR(40))", "it",
     "SELECT id, name FROM products ORDER BY id"},
    {"orders",
     "CREATE TABLE orders(id BIGINT PRIMARY KEY, customer_id BIGINT NOT NULL, "
     "status VARCHAR(10), total DOUBLE PRECISION, created_at BIGINT)",
     "iitmi",
     "SELECT id, customer_id, status, total, created_at FROM orders ORDER BY "
     "id"},
    {"order_items",
     "CREATE TABLE order_items(id BIGINT PRIMARY KEY, order_id BIGINT NOT "
     "NULL, product_id BIGINT NOT NULL, qty INT, "
     "price DOUBLE PRECISION)",
     "iiiim",
     "SELECT id, order_id, product_id, qty, price FROM order_items ORDER BY "
     "id"},
};

// The statements of the read path, prepared once per connection. Ties on
// created_at are broken by id, as in orders.cc, so both engines agree row
// for row.
constexpr const char* kHeads = "heads";
constexpr const char* kItems = "items";
constexpr const char* kProduct = "product";
constexpr const char* kJoin = "join";
constexpr const char* kPing = "ping";
constexpr std::pair<const char*, const char*> kStatements[] = {
    {kHeads,
     "SELECT id, status, total, created_at FROM orders WHERE customer_id = $1 "
     "ORDER BY created_at DESC, id DESC LIMIT 20"},
    {kItems,
     "SELECT product_id, qty, price FROM order_items WHERE order_id = $1 "
     "ORDER BY id"},
    {kProduct, "SELECT name FROM products WHERE id = $1"},
    {kJoin,
     "SELECT o.id, o.status, o.total, o.created_at, i.product_id, p.name, "
     "i.qty, i.price FROM (SELECT id, status, total, created_at FROM orders "
     "WHERE customer_id = $1 ORDER BY created_at DESC, id DESC LIMIT 20) o "
     "JOIN order_items i ON i.order_id = o.id JOIN products p ON p.id = "
     "i.product_id ORDER BY o.created_at DESC, o.id DESC, i.id"},
    {kPing, "SELECT 1"},
};

// The first non-empty line of libpq's message: the server's ERROR line, or
// "server closed the connection unexpectedly" (what follows it, DETAIL or
// HINT lines, a tab-indented explanation, only elaborates).
std::string ServerError(PGconn* conn, const PGresult* r,
                        absl::string_view what) {
  const char* msg =
      r != nullptr ? Pq().PQresultErrorMessage(r) : Pq().PQerrorMessage(conn);
  const std::vector<absl::string_view> lines =
      absl::StrSplit(msg != nullptr ? msg : "", '\n', absl::SkipWhitespace());
  return absl::StrCat(what, ": ",
                      lines.empty() ? absl::string_view("(no message)")
                                    : absl::StripAsciiWhitespace(lines[0]));
}

// Appends `s` in COPY text format (backslash escapes).
void AppendCopyText(std::string& out, const char* s, int n) {
  for (int i = 0; i < n; ++i) {
    switch (s[i]) {
      case '\\':
        out += "\\\\";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      default:
        out += s[i];
    }
  }
}

void AppendField(std::string& out, sqlite3_stmt* s, int col, char kind) {
  if (sqlite3_column_type(s, col) == SQLITE_NULL) {
    out += "\\N";
    return;
  }
  char buf[32];
  int n = 0;
  switch (kind) {
    case 'i':
      n = std::snprintf(buf, sizeof buf, "%lld",
                        static_cast<long long>(sqlite3_column_int64(s, col)));
      out.append(buf, n);
      break;
    case 'm':
      // 17 significant digits read back to the same double.
      n = std::snprintf(buf, sizeof buf, "%.17g",
                        sqlite3_column_double(s, col));
      out.append(buf, n);
      break;
    default:
      AppendCopyText(out,
                     reinterpret_cast<const char*>(sqlite3_column_text(s, col)),
                     sqlite3_column_bytes(s, col));
  }
}

absl::Status SendCopy(PGconn* conn, std::string& buf) {
  if (buf.empty()) return absl::OkStatus();
  if (Pq().PQputCopyData(conn, buf.data(), static_cast<int>(buf.size())) != 1) {
    return absl::UnavailableError(ServerError(conn, nullptr, "COPY data"));
  }
  buf.clear();
  return absl::OkStatus();
}

// COPY one table from the SQLite database; returns the rows sent.
absl::StatusOr<int64_t> CopyTable(PgConnection& pg, sqlite3* db,
                                  const CopySpec& t) {
  auto stmt = Prepare(db, t.select);
  if (!stmt.ok()) return stmt.status();
  PGconn* conn = pg.get();
  PGresult* r =
      Pq().PQexec(conn, absl::StrCat("COPY ", t.table, " FROM STDIN").c_str());
  const bool started = Pq().PQresultStatus(r) == PGRES_COPY_IN;
  std::string err = started ? "" : ServerError(conn, r, t.table);
  Pq().PQclear(r);
  if (!started) return absl::FailedPreconditionError(err);
  const int columns = static_cast<int>(std::char_traits<char>::length(t.kinds));
  std::string buf;
  int64_t rows = 0;
  int rc;
  while ((rc = sqlite3_step(stmt->get())) == SQLITE_ROW) {
    for (int c = 0; c < columns; ++c) {
      if (c > 0) buf += '\t';
      AppendField(buf, stmt->get(), c, t.kinds[c]);
    }
    buf += '\n';
    ++rows;
    if (buf.size() >= (1 << 16)) {
      if (absl::Status s = SendCopy(conn, buf); !s.ok()) return s;
    }
  }
  absl::Status sent =
      rc == SQLITE_DONE ? SendCopy(conn, buf) : SqliteError(db, t.select);
  if (Pq().PQputCopyEnd(conn, sent.ok() ? nullptr : "source read failed") !=
      1) {
    return absl::UnavailableError(ServerError(conn, nullptr, t.table));
  }
  absl::Status done;
  while ((r = Pq().PQgetResult(conn)) != nullptr) {
    if (Pq().PQresultStatus(r) != PGRES_COMMAND_OK && done.ok()) {
      done = absl::FailedPreconditionError(
          ServerError(conn, r, absl::StrCat("COPY ", t.table)));
    }
    Pq().PQclear(r);
  }
  if (!sent.ok()) return sent;
  if (!done.ok()) return done;
  return rows;
}

std::string Value(const PGresult* r, int row, int col) {
  return std::string(Pq().PQgetvalue(r, row, col),
                     Pq().PQgetlength(r, row, col));
}
int64_t Int(const PGresult* r, int row, int col) {
  return std::strtoll(Pq().PQgetvalue(r, row, col), nullptr, 10);
}
double Num(const PGresult* r, int row, int col) {
  return std::strtod(Pq().PQgetvalue(r, row, col), nullptr);
}

Order HeadFromRow(const PGresult* r, int row) {
  Order o;
  o.id = Int(r, row, 0);
  o.status = Value(r, row, 1);
  o.total = Num(r, row, 2);
  o.created_at = Int(r, row, 3);
  return o;
}

}  // namespace

absl::StatusOr<PgConnection> PgConnection::Open(const std::string& conninfo) {
  if (absl::StatusOr<const Libpq*> pq = LoadLibpq(); !pq.ok()) {
    return pq.status();
  }
  PGconn* conn = Pq().PQconnectdb(conninfo.c_str());
  if (Pq().PQstatus(conn) != CONNECTION_OK) {
    std::string why =
        ServerError(conn, nullptr, "cannot connect to PostgreSQL");
    Pq().PQfinish(conn);
    return absl::UnavailableError(why);
  }
  return PgConnection(conn);
}

PgConnection& PgConnection::operator=(PgConnection&& other) noexcept {
  if (this != &other) {
    if (conn_ != nullptr) Pq().PQfinish(conn_);
    conn_ = std::exchange(other.conn_, nullptr);
  }
  return *this;
}

PgConnection::~PgConnection() {
  if (conn_ != nullptr) Pq().PQfinish(conn_);
}

absl::Status PgConnection::Exec(const std::string& sql) {
  absl::Status status;
  Pq().PQsendQuery(conn_, sql.c_str());
  while (PGresult* r = Pq().PQgetResult(conn_)) {
    const ExecStatusType st = Pq().PQresultStatus(r);
    if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK && status.ok()) {
      status = absl::FailedPreconditionError(ServerError(conn_, r, sql));
    }
    Pq().PQclear(r);
  }
  if (status.ok() && Pq().PQstatus(conn_) != CONNECTION_OK) {
    status = absl::UnavailableError(ServerError(conn_, nullptr, sql));
  }
  return status;
}

absl::StatusOr<std::string> PgConnection::Scalar(const std::string& sql) {
  PGresult* r = Pq().PQexec(conn_, sql.c_str());
  absl::StatusOr<std::string> out;
  if (Pq().PQresultStatus(r) != PGRES_TUPLES_OK || Pq().PQntuples(r) < 1 ||
      Pq().PQnfields(r) < 1) {
    out = absl::FailedPreconditionError(ServerError(conn_, r, sql));
  } else {
    out = Value(r, 0, 0);
  }
  Pq().PQclear(r);
  return out;
}

absl::StatusOr<PgLoadReport> LoadPgDataset(const std::string& conninfo,
                                           const std::string& sqlite_path,
                                           bool customer_index) {
  const core::Env& env = core::Env::Default();
  const int64_t t0 = env.NowNanos();
  auto db = OpenDatabase(sqlite_path, /*read_only=*/true);
  if (!db.ok()) return db.status();
  auto pg = PgConnection::Open(conninfo);
  if (!pg.ok()) return pg.status();
  // One transaction: a failed load leaves no half-filled table behind.
  if (absl::Status s = pg->Exec("BEGIN"); !s.ok()) return s;
  PgLoadReport report;
  for (const CopySpec& t : kTables) {
    if (absl::Status s = pg->Exec(t.ddl); !s.ok()) return s;
    auto rows = CopyTable(*pg, db->get(), t);
    if (!rows.ok()) return rows.status();
    report.rows_copied += *rows;
    const std::string_view name = t.table;
    int64_t* count = name == "customers"  ? &report.shape.customers
                     : name == "products" ? &report.shape.products
                     : name == "orders"   ? &report.shape.orders
                                          : &report.shape.order_items;
    *count = *rows;
  }
  // Indexes after the rows: one sorted build each, as in dataset.cc.
  std::string tail = "CREATE INDEX ix_items_order ON order_items(order_id);";
  if (customer_index) {
    tail += "CREATE INDEX ix_orders_cust ON orders(customer_id, created_at);";
  }
  tail += "COMMIT";
  if (absl::Status s = pg->Exec(tail); !s.ok()) return s;
  if (absl::Status s = pg->Exec("ANALYZE"); !s.ok()) return s;
  report.seconds = static_cast<double>(env.NowNanos() - t0) * 1e-9;
  return report;
}

absl::Status DropCustomerIndex(const std::string& conninfo) {
  auto pg = PgConnection::Open(conninfo);
  if (!pg.ok()) return pg.status();
  return pg->Exec("DROP INDEX ix_orders_cust; ANALYZE orders");
}

absl::StatusOr<std::unique_ptr<PgOrderRepository>> PgOrderRepository::Open(
    const std::string& conninfo) {
  auto conn = PgConnection::Open(conninfo);
  if (!conn.ok()) return conn.status();
  for (const auto& [name, sql] : kStatements) {
    PGresult* r = Pq().PQprepare(conn->get(), name, sql, 0, nullptr);
    const bool ok = Pq().PQresultStatus(r) == PGRES_COMMAND_OK;
    std::string err =
        ok ? "" : ServerError(conn->get(), r, absl::StrCat("prepare ", name));
    Pq().PQclear(r);
    if (!ok) return absl::FailedPreconditionError(err);
  }
  return std::unique_ptr<PgOrderRepository>(
      new PgOrderRepository(std::move(*conn)));
}

absl::StatusOr<PGresult*> PgOrderRepository::Run(const char* name,
                                                 const std::string& param) {
  const char* values[1] = {param.c_str()};
  PGresult* r = Pq().PQexecPrepared(conn_.get(), name, param.empty() ? 0 : 1,
                                    values, nullptr, nullptr, 0);
  ++stats_.statements;
  if (Pq().PQresultStatus(r) != PGRES_TUPLES_OK) {
    std::string err = ServerError(conn_.get(), r, name);
    Pq().PQclear(r);
    if (Pq().PQstatus(conn_.get()) != CONNECTION_OK) {
      return absl::UnavailableError(err);
    }
    return absl::FailedPreconditionError(err);
  }
  stats_.rows_read += Pq().PQntuples(r);
  return r;
}

absl::StatusOr<std::vector<Order>> PgOrderRepository::NewestOrders(
    int64_t customer_id) {
  auto r = Run(kHeads, absl::StrCat(customer_id));
  if (!r.ok()) return r.status();
  std::vector<Order> out;
  out.reserve(kPageOrders);
  for (int row = 0; row < Pq().PQntuples(*r); ++row) {
    out.push_back(HeadFromRow(*r, row));
  }
  Pq().PQclear(*r);
  return out;
}

absl::StatusOr<Page> PgOrderRepository::LoadPageNPlusOne(int64_t customer_id) {
  auto heads = NewestOrders(customer_id);
  if (!heads.ok()) return heads.status();
  Page page{customer_id, std::move(*heads)};
  for (Order& o : page.orders) {
    auto items = Run(kItems, absl::StrCat(o.id));
    if (!items.ok()) return items.status();
    for (int row = 0; row < Pq().PQntuples(*items); ++row) {
      Item it;
      it.product_id = Int(*items, row, 0);
      it.qty = static_cast<int>(Int(*items, row, 1));
      it.price = Num(*items, row, 2);
      // The inner N x M lookup, one statement (one round trip) per line.
      auto product = Run(kProduct, absl::StrCat(it.product_id));
      if (!product.ok()) {
        Pq().PQclear(*items);
        return product.status();
      }
      const bool found = Pq().PQntuples(*product) == 1;
      if (found) it.product = Value(*product, 0, 0);
      Pq().PQclear(*product);
      if (!found) {
        Pq().PQclear(*items);
        return absl::NotFoundError(absl::StrCat("product ", it.product_id));
      }
      o.items.push_back(std::move(it));
    }
    Pq().PQclear(*items);
  }
  return page;
}

absl::StatusOr<Page> PgOrderRepository::LoadPageJoin(int64_t customer_id) {
  auto r = Run(kJoin, absl::StrCat(customer_id));
  if (!r.ok()) return r.status();
  Page page{customer_id, {}};
  page.orders.reserve(kPageOrders);
  for (int row = 0; row < Pq().PQntuples(*r); ++row) {
    const int64_t id = Int(*r, row, 0);
    // Rows arrive grouped by order (ORDER BY o.created_at, o.id).
    if (page.orders.empty() || page.orders.back().id != id) {
      page.orders.push_back(HeadFromRow(*r, row));
    }
    Item it;
    it.product_id = Int(*r, row, 4);
    it.product = Value(*r, row, 5);
    it.qty = static_cast<int>(Int(*r, row, 6));
    it.price = Num(*r, row, 7);
    page.orders.back().items.push_back(std::move(it));
  }
  Pq().PQclear(*r);
  return page;
}

absl::Status PgOrderRepository::RoundTrip() {
  auto r = Run(kPing, "");
  if (!r.ok()) return r.status();
  Pq().PQclear(*r);
  return absl::OkStatus();
}

absl::Status PgConnectQueryClose(const std::string& conninfo) {
  auto conn = PgConnection::Open(conninfo);
  if (!conn.ok()) return conn.status();
  auto one = conn->Scalar("SELECT 1");
  if (!one.ok()) return one.status();
  return absl::OkStatus();
}

}  // namespace perflab::orders
