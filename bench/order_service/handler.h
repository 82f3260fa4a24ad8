// The order service's request logic, without the HTTP front end: parses the
// request target, serves GET /customers/{id}/orders from the page cache or
// from a bounded pool of database connections (SQLite by default, or any
// PageStore, e.g. PostgreSQL over libpq) plus one inventory call over
// real HTTP on loopback, and /stats. A database server that goes away makes
// the pages 503 (with one line in the log), never a hang or a crash. Each step
// of the case study is one field of HandlerOptions, so a run changes exactly
// one thing at a time.
//
// OrdersHandler is thread-safe: the pool, the cache and the inventory clients
// are shared under their own locks; counters are atomics.
#ifndef PERFLAB_BENCH_ORDER_SERVICE_HANDLER_H_
#define PERFLAB_BENCH_ORDER_SERVICE_HANDLER_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "bench/http/net.h"
#include "bench/order_service/borrow_pool.h"
#include "bench/order_service/orders.h"
#include "bench/order_service/page_store.h"
#include "bench/order_service/ttl_lru_cache.h"
#include "core/mutex.h"

namespace perflab::orders {

struct HandlerOptions {
  std::string dataset_path;  // a database CheckDataset accepts
  bool index = false;        // orders(customer_id, created_at); false scans
  bool join = false;         // one join; false: N+1 (1 + 20 + 60 statements)
  bool keep_alive = false;   // reuse inventory connections; false: one each
  int db_pool = 4;           // SQLite connections, each used by one request
  double db_acquire_timeout_ms = 30'000;  // bounded acquire (Hikari's 30 s)
  bool cache = false;           // 30 s TTL, 10,000-entry page cache in front
  bool arena = false;           // per-request arena for the page's object graph
  uint16_t inventory_port = 0;  // the inventory stub on 127.0.0.1
  double inventory_timeout_ms = 5'000;
  // Opens one connection of the pool (called db_pool times by Create).
  // Empty: a SQLite connection to dataset_path, scanning or using the index
  // as `index` says; another engine decides that by its own schema.
  std::function<absl::StatusOr<std::unique_ptr<PageStore>>()> open_store{};
  // Where the one line about a lost database connection goes; empty:
  // stderr.
  std::function<void(std::string_view)> log{};
};

// Counters since construction.
struct HandlerStats {
  int64_t requests = 0;  // every request, /stats excluded
  int64_t pages = 0;     // 200 answers of /customers/{id}/orders
  int64_t queries = 0;   // SQL statements executed
  int64_t cache_hits = 0, cache_misses = 0;
  int64_t inventory_calls = 0;
  int64_t db_timeouts = 0;  // pool acquisitions that gave up (503)
  int64_t db_lost = 0;      // pages refused: the connection was gone (503)
  int64_t not_found = 0, bad_requests = 0, errors = 0;  // 404, 400, 5xx
  int64_t arena_bytes = 0;  // bytes the arenas handed out
};

// The counters behind /stats: adjacent atomics every worker updates on
// every request (bench_contention measures what sharing them costs).
struct RequestCounters {
  std::atomic<int64_t> requests{0}, pages{0}, queries{0}, hits{0}, misses{0},
      inventory_calls{0}, db_timeouts{0}, not_found{0}, bad_requests{0},
      errors{0}, arena_bytes{0}, db_lost{0};
};

struct HandlerResponse {
  int status = 200;
  std::string body;  // JSON
};

class OrdersHandler {
 public:
  // Opens db_pool connections (InvalidArgument for db_pool < 1 or a bad
  // timeout; the dataset's own error if it cannot be opened).
  static absl::StatusOr<std::unique_ptr<OrdersHandler>> Create(
      const HandlerOptions& options);
  ~OrdersHandler();

  // `target` is the request target ("/customers/7/orders", "/stats").
  // `inventory_connections` is what /stats reports for the stub (the front
  // end knows it). Never throws; every failure is a status code.
  HandlerResponse Handle(std::string_view target,
                         int64_t inventory_connections = 0);
  HandlerStats stats() const;

 private:
  explicit OrdersHandler(HandlerOptions options);
  // Null on timeout.
  PageStore* Acquire();
  void Release(PageStore* repo);
  // Counts a page refused for a lost connection; logs the first one only.
  HandlerResponse Lost(const absl::Status& why);
  HandlerResponse Orders(int64_t customer_id);
  absl::Status CallInventory(int64_t customer_id)
      ABSL_LOCKS_EXCLUDED(clients_mu_);
  std::string StatsJson(int64_t inventory_connections) const;

  const HandlerOptions options_;
  std::vector<std::unique_ptr<PageStore>> repos_;
  BorrowPool<PageStore> pool_;
  // The page itself, serialised again on every hit: the case study caches
  // its Page record and Jackson writes it per response.
  std::unique_ptr<TtlLruCache<Page>> cache_;
  core::Mutex clients_mu_;
  // Idle, kept alive.
  std::vector<std::unique_ptr<http::HttpClient>> clients_
      ABSL_GUARDED_BY(clients_mu_);
  RequestCounters counters_;
};

// The customer id of "/customers/{id}/orders" (id: 1 to 18 decimal digits,
// no sign, no leading zero); InvalidArgument for anything else.
absl::StatusOr<int64_t> ParseOrdersTarget(std::string_view target);

}  // namespace perflab::orders

#endif  // PERFLAB_BENCH_ORDER_SERVICE_HANDLER_H_
