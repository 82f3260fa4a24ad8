// The order service for real: an HTTP/1.1 front end on loopback in front of
// OrdersHandler, and the in-process inventory stub (http::HttpServer: 5 ms per
// call, headers and body as two small writes, TCP_NODELAY per the step) that
// every page miss calls over a real socket.
//
// The request model (the --threads step: a fixed pool of workers, or one OS
// thread per connection for threads == 0) is http::HttpFront's, described in
// bench/http/http_front.h. The service adds its settings of it: no keep-alive
// timeout (idle connections stay open until the client or Stop() ends them,
// or max_connections evicts the longest idle), TCP_NODELAY on its own
// accepted sockets.
//
// Public methods are thread-safe. Stop() (or destruction) closes every socket
// and joins every thread the service started, the stub's included.
#ifndef PERFLAB_BENCH_ORDER_SERVICE_SERVER_H_
#define PERFLAB_BENCH_ORDER_SERVICE_SERVER_H_

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "bench/http/request_parser.h"
#include "bench/order_service/handler.h"

namespace perflab::orders {

struct OrdersServiceOptions {
  std::string host = "127.0.0.1";  // a loopback address only
  uint16_t port = 0;               // 0 picks a free port; read it back
  int threads = 16;                // request workers; 0 = one per connection
  bool nodelay = false;            // the stub sets TCP_NODELAY
  double inventory_ms = 5;         // the stub's service time
  int max_connections = 1024;      // at the cap: evict the longest idle
  http::HttpLimits limits = {};    // what a request may be, and how slow
  HandlerOptions handler;          // its inventory_port is filled in here
};

struct OrdersServiceStats {
  HandlerStats handler;
  int64_t inventory_connections = 0;  // accepted by the stub
  int64_t connections = 0;            // accepted by the front end
  int64_t open_connections = 0;       // front end, right now
  int64_t refused_requests = 0;  // front end: 4xx/5xx of its own, failed writes
  int64_t header_timeouts = 0;   // front end: answered 408
  int64_t evicted = 0;           // front end: idle, closed at the cap
};

class OrdersService {
 public:
  // InvalidArgument for a non-loopback host, a port in use or a bad option;
  // the dataset's error if it cannot be opened. Returns once it accepts.
  static absl::StatusOr<std::unique_ptr<OrdersService>> Start(
      const OrdersServiceOptions& options);
  ~OrdersService();
  OrdersService(const OrdersService&) = delete;
  OrdersService& operator=(const OrdersService&) = delete;

  void Stop();
  uint16_t port() const;
  OrdersServiceStats stats() const;

  class Impl;

 private:
  explicit OrdersService(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// Restricts the calling thread (and every thread it starts afterwards) to the
// last `count` CPUs it may run on, leaving the first ones to a load generator
// (what the case study's run.sh does with taskset). InvalidArgument when
// `count` is < 1 or more than the CPUs available.
absl::Status PinToLastCpus(int count);
// Restricts the calling thread to the first `count` CPUs it may run on.
absl::Status PinToFirstCpus(int count);

}  // namespace perflab::orders

#endif  // PERFLAB_BENCH_ORDER_SERVICE_SERVER_H_
