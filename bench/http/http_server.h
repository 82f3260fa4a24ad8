// A real HTTP/1.1 server on loopback for the reality checks (perflab serve):
// the simulator's queueing claims (a thread cap, a freeze, an inner pool,
// Nagle, keep-alive idle timeouts) reproduced with real sockets and real
// threads.
//
// The sockets, the threads and the request model (a fixed pool of `threads`
// workers, or one OS thread per connection for threads == 0) are
// http::HttpFront's, described in bench/http/http_front.h. This file adds the
// handler and its options: it answers GET only (any other method gets 405
// with "Allow: GET", on a connection that stays open), optionally waits for a
// whole-server freeze to end, burns `cpu_ms` of CPU, blocks `handler_ms`, and
// then holds one of `inner_pool` permits for `inner_ms` (the moved bottleneck).
//
// Every public method is thread-safe. The server binds loopback only and
// stops promptly on Stop() or destruction (a freeze or a permit wait ends at
// once), closing every socket and joining every thread it started.
#ifndef PERFLAB_BENCH_HTTP_HTTP_SERVER_H_
#define PERFLAB_BENCH_HTTP_HTTP_SERVER_H_

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "bench/http/request_parser.h"
#include "bench/http/response_writes.h"

namespace perflab::http {

struct HttpServerOptions {
  std::string host = "127.0.0.1";  // a loopback address (127.0.0.0/8 or ::1)
  uint16_t port = 0;               // 0 picks a free port; read it back
  int threads = 10;                // worker threads; 0 = one per connection
  double handler_ms = 0;           // blocking part of the handler (sleep)
  double cpu_ms = 0;               // CPU part of the handler (busy loop)
  int inner_pool = 0;              // permits of the inner section; 0 = none
  double inner_ms = 0;             // time each request holds a permit
  double freeze_at_s = -1;  // whole-server freeze start after Start(); <0 off
  double freeze_for_s = 0;  // freeze length
  double keepalive_timeout_s = 60;  // close connections idle this long
  // One write, or headers and body as two small writes (Nagle).
  ResponseWrites writes = ResponseWrites::kGathered;
  bool tcp_nodelay = true;     // TCP_NODELAY on accepted sockets
  int max_connections = 1024;  // at the cap: evict the longest idle
  HttpLimits limits = {};      // what a request may be, and how slow
};

// Counters since Start(); waits are sums so means can be derived.
struct HttpServerStats {
  int64_t responses = 0;
  int64_t connections = 0;      // accepted
  int64_t idle_closes = 0;      // closed by the keep-alive timeout
  int64_t refused = 0;          // at the cap with every connection busy
  int64_t evicted = 0;          // idle, closed at the cap for a new one
  int64_t header_timeouts = 0;  // answered 408: too slow to send a request
  int64_t errors = 0;           // refused requests (4xx/5xx), failed writes
  int64_t queue_wait_ns = 0;    // ready -> taken by a worker (fixed pool)
  int64_t inner_wait_ns = 0;    // waiting for an inner-pool permit
  int64_t inner_acquires = 0;
  int64_t open_connections = 0;  // right now
  // The most GET requests inside the handler at one moment: a count the
  // thread cap bounds whatever the machine's load (a rate or a latency
  // moves with it).
  int64_t peak_in_handler = 0;
};

class HttpServer {
 public:
  // Validates the options (InvalidArgument names the field: non-loopback
  // host, port in use, negative or non-finite times), binds, listens and
  // starts the threads. Returns once the server accepts connections.
  static absl::StatusOr<std::unique_ptr<HttpServer>> Start(
      const HttpServerOptions& options);
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // Closes the listener and every connection and joins all threads.
  void Stop();
  uint16_t port() const;
  HttpServerStats stats() const;

  class Impl;

 private:
  explicit HttpServer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace perflab::http

#endif  // PERFLAB_BENCH_HTTP_HTTP_SERVER_H_
