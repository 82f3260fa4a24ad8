// The PostgreSQL side of `perflab orders-service --db postgres`: a throwaway
// cluster (bench/order_service/pg_cluster.h) holding the same rows as the
// SQLite dataset, copied in with COPY, and the factory of the service's pool,
// whose every connection is then a libpq session. The cluster lives as long as
// this object (and SIGINT/SIGTERM or the owner's death end it too).
//
// Built without libpq, Start refuses in one line naming the packages.
#ifndef PERFLAB_TOOLS_PERFLAB_ORDERS_POSTGRES_H_
#define PERFLAB_TOOLS_PERFLAB_ORDERS_POSTGRES_H_

#include <functional>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "bench/order_service/page_store.h"

namespace perflab::cli {

struct OrdersPostgresOptions {
  std::string sqlite_path;  // the dataset to copy, already checked
  bool index = false;       // build orders(customer_id, created_at)
  bool tcp = false;         // connect over loopback TCP, not the Unix socket
  int db_pool = 4;          // the server must accept this many sessions
};

class OrdersPostgres {
 public:
  // Whether the server binaries can be found and libpq loaded (on this
  // first call, never at start-up): InvalidArgument naming the package when
  // not (checked before anything is generated or started).
  static absl::Status CheckInstalled();
  // Starts the cluster and loads the dataset, with one line on stderr.
  // Missing binaries are InvalidArgument; a server that does not start is
  // FailedPrecondition with its log's last line.
  static absl::StatusOr<std::unique_ptr<OrdersPostgres>> Start(
      const OrdersPostgresOptions& options);
  virtual ~OrdersPostgres() = default;

  // Opens one pooled connection (HandlerOptions::open_store).
  virtual std::function<absl::StatusOr<std::unique_ptr<orders::PageStore>>()>
  StoreFactory() const = 0;
  // "PostgreSQL at <dir>, over the Unix socket" (or loopback TCP port N).
  virtual std::string Where() const = 0;
};

}  // namespace perflab::cli

#endif  // PERFLAB_TOOLS_PERFLAB_ORDERS_POSTGRES_H_
