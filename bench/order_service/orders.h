// The order service's read path over the order database: a customer's newest 20
// orders (by table scan or by the composite index), and the whole page either
// by N+1 (1 + 20 + 60 = 81 statements, as the seed's loop) or by one join.
//
// An OrderRepository owns one SQLite connection and its prepared statements:
// not thread-safe; open one per thread.
#ifndef PERFLAB_BENCH_ORDER_SERVICE_ORDERS_H_
#define PERFLAB_BENCH_ORDER_SERVICE_ORDERS_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "bench/order_service/sqlite_util.h"

namespace perflab::orders {

// What the client of GET /customers/{id}/orders uses (the seed's ItemView and
// OrderView); also the slim DTO of the payload family.
struct Item {
  int64_t product_id = 0;
  std::string product;  // product name
  int qty = 0;
  double price = 0;
  bool operator==(const Item&) const = default;
};
// The four states an order is generated in, by the dataset's rows and by the
// payload family's documents alike (a payload's history adds "NEW" before
// them).
inline constexpr const char* kOrderStatuses[] = {"PAID", "SHIPPED", "DELIVERED",
                                                 "CANCELLED"};
struct Order {
  int64_t id = 0;
  std::string status;  // one of kOrderStatuses
  double total = 0;
  int64_t created_at = 0;
  std::vector<Item> items;
  bool operator==(const Order&) const = default;
};
struct Page {
  int64_t customer_id = 0;
  std::vector<Order> orders;  // newest first (created_at desc, id desc)
  bool operator==(const Page&) const = default;
};

inline constexpr int kPageOrders = 20;

enum class OrdersAccess {
  kIndex,  // orders(customer_id, created_at): a range read already in order
  kScan,   // NOT INDEXED: the seed's baseline, every row of orders examined
};

struct RepositoryOptions {
  OrdersAccess access = OrdersAccess::kIndex;
  // Prepare (parse and plan) every statement on every call and finalize it
  // after, as a driver without a statement cache does; false reuses them.
  bool prepare_per_call = false;
  // SQLite page cache of the connection. 64 MiB holds the whole 32 MB
  // database, as the seed's in-memory H2 held everything in the heap.
  int64_t page_cache_kib = int64_t{64} * 1024;
};

// Work counters since the last Reset; the benchmarks divide by pages.
struct QueryStats {
  int64_t statements = 0;      // statements executed
  int64_t rows_read = 0;       // result rows stepped through by the caller
  int64_t fullscan_steps = 0;  // SQLite's SQLITE_STMTSTATUS_FULLSCAN_STEP
  int64_t vm_steps = 0;        // SQLite's SQLITE_STMTSTATUS_VM_STEP
};

class OrderRepository {
 public:
  static absl::StatusOr<std::unique_ptr<OrderRepository>> Open(
      const std::string& path, const RepositoryOptions& options = {});

  // The seed's head query: newest 20 orders, items left empty.
  absl::StatusOr<std::vector<Order>> NewestOrders(int64_t customer_id);
  // 1 head query + 1 items query per order + 1 product query per item.
  absl::StatusOr<Page> LoadPageNPlusOne(int64_t customer_id);
  // One statement joining the 20-row subquery to order_items and products.
  absl::StatusOr<Page> LoadPageJoin(int64_t customer_id);

  const QueryStats& stats() const { return stats_; }
  void ResetStats() { stats_ = {}; }

 private:
  OrderRepository(Database db, RepositoryOptions options)
      : db_(std::move(db)), options_(options) {}
  // Returns the cached statement of `slot` (or a fresh one when preparing per
  // call, kept in `scratch` until the caller is done), reset and ready to bind.
  absl::StatusOr<sqlite3_stmt*> Get(int slot, Statement& scratch);
  void Account(sqlite3_stmt* stmt);

  Database db_;
  RepositoryOptions options_;
  Statement cached_[4];
  QueryStats stats_;
};

}  // namespace perflab::orders

#endif  // PERFLAB_BENCH_ORDER_SERVICE_ORDERS_H_
