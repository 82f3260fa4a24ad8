// What the order service needs from its database, whichever engine holds it:
// one connection that loads a customer's page by N+1 or by one join and
// counts its statements. The SQLite repository (orders.h) and the
// PostgreSQL one (pg_orders.h) both serve it, so the service's pool holds
// either without knowing which.
//
// A PageStore is one connection: not thread-safe; a pool hands each to one
// request at a time.
#ifndef PERFLAB_BENCH_ORDER_SERVICE_PAGE_STORE_H_
#define PERFLAB_BENCH_ORDER_SERVICE_PAGE_STORE_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "bench/order_service/orders.h"

namespace perflab::orders {

class PageStore {
 public:
  virtual ~PageStore() = default;

  virtual absl::StatusOr<Page> LoadPageNPlusOne(int64_t customer_id) = 0;
  virtual absl::StatusOr<Page> LoadPageJoin(int64_t customer_id) = 0;
  virtual const QueryStats& stats() const = 0;
  virtual void ResetStats() = 0;
  // True once the connection to the database server is gone (the server
  // died or closed it): every later call fails at once, so a pool answers
  // "unavailable" rather than "error". An embedded database never loses it.
  virtual bool connection_lost() const { return false; }
};

}  // namespace perflab::orders

#endif  // PERFLAB_BENCH_ORDER_SERVICE_PAGE_STORE_H_
