// The order database on PostgreSQL: the SQLite dataset (dataset.h) copied row
// for row into a PostgreSQL database with COPY (so both engines serve the same
// rows from the same seed), and the order service's read path over libpq --
// the newest 20 orders, the page by N+1 (81 statements, each a round trip)
// or by one join -- plus the two costs a network adds: one statement's round
// trip and one connection's setup.
//
// A PgConnection and a PgOrderRepository own one libpq connection: not
// thread-safe; open one per thread.
#ifndef PERFLAB_BENCH_ORDER_SERVICE_PG_ORDERS_H_
#define PERFLAB_BENCH_ORDER_SERVICE_PG_ORDERS_H_

#include <libpq-fe.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "bench/order_service/dataset.h"
#include "bench/order_service/orders.h"
#include "bench/order_service/page_store.h"
#include "bench/order_service/pg_libpq.h"

namespace perflab::orders {

// One libpq connection, closed by the destructor.
class PgConnection {
 public:
  // Unavailable, with libpq's reason, when the server cannot be reached.
  static absl::StatusOr<PgConnection> Open(const std::string& conninfo);

  PgConnection(PgConnection&& other) noexcept : conn_(other.conn_) {
    other.conn_ = nullptr;
  }
  PgConnection& operator=(PgConnection&& other) noexcept;
  PgConnection(const PgConnection&) = delete;
  PgConnection& operator=(const PgConnection&) = delete;
  ~PgConnection();

  PGconn* get() const { return conn_; }

  // Runs `sql` (one or more statements, no parameters) and discards rows.
  absl::Status Exec(const std::string& sql);
  // The first column of the first row of `sql`, as text.
  absl::StatusOr<std::string> Scalar(const std::string& sql);

 private:
  explicit PgConnection(PGconn* conn) : conn_(conn) {}
  PGconn* conn_ = nullptr;
};

struct PgLoadReport {
  DatasetShape shape;
  int64_t rows_copied = 0;
  double seconds = 0;  // wall time of schema, COPY, indexes and ANALYZE
};

// Creates the four tables in the database of `conninfo` (which must have
// none of them) and COPYs every row of the SQLite dataset at `sqlite_path`,
// then the index on order_items(order_id), the composite index
// orders(customer_id, created_at) when `customer_index`, and ANALYZE.
// Money columns are DOUBLE PRECISION holding SQLite's doubles bit for bit
// (its DECIMAL(10,2) is a REAL), so both engines serve the same bytes. The
// SQLite file is read-only; an error names the table and the server's reason.
absl::StatusOr<PgLoadReport> LoadPgDataset(const std::string& conninfo,
                                           const std::string& sqlite_path,
                                           bool customer_index);

// Drops orders(customer_id, created_at) from a loaded database and analyzes
// orders again: with PgCluster::CreateDatabase(name, from) the unindexed
// twin of a loaded database, a file copy instead of a second COPY.
absl::Status DropCustomerIndex(const std::string& conninfo);

class PgOrderRepository : public PageStore {
 public:
  // Connects and prepares the statements (server-side, once).
  static absl::StatusOr<std::unique_ptr<PgOrderRepository>> Open(
      const std::string& conninfo);

  // The same queries and row order as OrderRepository (orders.h): whether
  // the head query scans or uses the index is the planner's choice, decided
  // by whether the database has ix_orders_cust.
  absl::StatusOr<std::vector<Order>> NewestOrders(int64_t customer_id);
  absl::StatusOr<Page> LoadPageNPlusOne(int64_t customer_id) override;
  absl::StatusOr<Page> LoadPageJoin(int64_t customer_id) override;
  // One prepared statement that touches no table (SELECT 1): the round trip.
  absl::Status RoundTrip();

  // statements and rows_read as in OrderRepository; the SQLite-only
  // counters stay 0. Every statement is one round trip.
  const QueryStats& stats() const override { return stats_; }
  void ResetStats() override { stats_ = {}; }
  // libpq's view: the server closed the connection or died. A statement
  // that fails this way is Unavailable; no reconnection is tried (the
  // prepared statements would be gone with the session).
  bool connection_lost() const override {
    return Pq().PQstatus(conn_.get()) == CONNECTION_BAD;
  }

 private:
  explicit PgOrderRepository(PgConnection conn) : conn_(std::move(conn)) {}
  // Executes prepared statement `name` with `param` (or none when empty);
  // the caller PQclear()s the result.
  absl::StatusOr<PGresult*> Run(const char* name, const std::string& param);

  PgConnection conn_;
  QueryStats stats_;
};

// Opens a connection, runs SELECT 1 and closes it: what a request pays
// without a pool.
absl::Status PgConnectQueryClose(const std::string& conninfo);

}  // namespace perflab::orders

#endif  // PERFLAB_BENCH_ORDER_SERVICE_PG_ORDERS_H_
