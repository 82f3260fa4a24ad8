// The HTTP/1.1 front end that the real servers share (http::HttpServer, the
// reality checks' server, and orders::OrdersService): it listens on loopback,
// reads request heads, hands each to a handler callback and writes its
// answer (in one write, or headers then body: ResponseWrites).
//
// The request model, the case study's two shapes (HttpFrontOptions::threads):
//  - threads > 0: a fixed pool of workers (Tomcat's NIO connector). One
//    poller thread accepts connections and watches the idle kept-alive ones
//    with epoll; a connection with a request ready joins a FIFO queue (the
//    simulator's accept queue), a worker takes it, serves that one request
//    and hands the connection back to the poller (or queues it again at once
//    when the next request is already buffered).
//  - threads == 0 ("virtual"): one OS thread per connection, started at
//    accept and serving every request of that connection, with no cap but
//    max_connections. With clients that keep one request in flight per
//    connection this is one thread per in-flight request: the unbounded
//    concurrency of Java's virtual threads, paid for with a kernel thread
//    each (there are no coroutines here).
// Keep-alive: a connection stays open between requests until the client
// sends "Connection: close" (or speaks HTTP/1.0 without keep-alive), a
// request fails, or it sits idle past keepalive_timeout_s (infinity: never).
//
// Hostile clients (limits: HttpLimits, bench/http/request_parser.h): requests
// are parsed strictly and refused with 400, 414, 431, 501 or 505 (then the
// connection is closed after its input is drained for up to 2 s, so the
// answer is not lost to a reset). The poller (or, for threads == 0, the
// connection's own thread, by deadline) reads every request whole before a
// worker sees it: a client that sends one byte a second holds no worker and
// is answered 408 and closed header_timeout_s after its request began. At
// max_connections (for threads == 0 also at max_virtual_threads) the
// connection that has waited longest without a request to serve is closed to
// admit the new one: an idle one (by its last answer) or one holding half a
// request (by that request's first byte), so clients that open connections
// and send half a request cannot lock new clients out until the header
// timeout. Only when every connection is being served is the new one
// refused. A worker's
// write to a client that does not read is bounded by a 10 s send timeout.
//
// Thread safety: every public method is thread-safe; the handler is called
// from many threads at once and must be too. Stop() (or destruction) closes
// every socket and joins every thread the front end started.
#ifndef PERFLAB_BENCH_HTTP_HTTP_FRONT_H_
#define PERFLAB_BENCH_HTTP_HTTP_FRONT_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "bench/http/request_parser.h"
#include "bench/http/response_writes.h"

namespace perflab::http {

struct HttpFrontOptions {
  std::string host = "127.0.0.1";   // a loopback address (127.0.0.0/8 or ::1)
  uint16_t port = 0;                // 0 picks a free port; read it back
  int threads = 10;                 // worker threads; 0 = one per connection
  double keepalive_timeout_s = 60;  // close idle connections; inf: never
  int max_connections = 1024;       // at the cap: evict the longest idle
  bool tcp_nodelay = true;          // TCP_NODELAY on accepted sockets
  HttpLimits limits = {};           // what a request may be, and how slow
};

// One well-formed request, as read (a malformed one never reaches the
// handler); the views point into the connection's buffer. The answer to a
// HEAD request is sent without its body (RFC 9110 9.3.2), whatever the
// handler puts in it.
struct HttpFrontRequest {
  std::string_view head;    // request line and headers, up to "\r\n\r\n"
  std::string_view method;  // as sent
  std::string_view target;  // as sent
  std::string_view body;    // Content-Length bytes (often none)
};

struct HttpFrontResponse {
  int status = 200;  // 0: no answer, close the connection (counted an error)
  std::string body;
  std::string content_type = "application/json";
  // One write, or headers then body as two (the Nagle + delayed-ACK stall
  // without TCP_NODELAY).
  ResponseWrites writes = ResponseWrites::kGathered;
  // Non-empty: an "Allow" header with these methods (a 405 must have one).
  std::string allow{};
};

using HttpFrontHandler =
    std::function<HttpFrontResponse(const HttpFrontRequest&)>;

// Counters since Serve(); queue_wait_ns is a sum so a mean can be derived.
struct HttpFrontStats {
  int64_t responses = 0;    // written in full
  int64_t connections = 0;  // accepted
  int64_t idle_closes = 0;  // closed by the keep-alive timeout
  int64_t refused = 0;      // at the cap with every connection busy
  int64_t evicted = 0;  // idle or half-sent, closed at the cap for a new one
  int64_t header_timeouts = 0;   // answered 408: too slow to send a request
  int64_t errors = 0;            // refused requests (4xx/5xx), failed writes
  int64_t peak_threads = 0;      // threads == 0: connection threads at once
  int64_t queue_wait_ns = 0;     // ready -> taken by a worker (fixed pool)
  int64_t open_connections = 0;  // right now
  int64_t idle_connections = 0;  // right now waiting for a request (evictable)
  int64_t partial_connections = 0;  // right now holding half a request
};

class HttpFront {
 public:
  // Validates the options (InvalidArgument: a non-loopback host, a port in
  // use, a bad count or timeout), binds and listens. Clients may connect at
  // once; nothing is read before Serve().
  static absl::StatusOr<std::unique_ptr<HttpFront>> Listen(
      const HttpFrontOptions& options);
  ~HttpFront();
  HttpFront(const HttpFront&) = delete;
  HttpFront& operator=(const HttpFront&) = delete;

  // Starts the poller and the workers; call once. InvalidArgument (one line)
  // when the system refuses a thread; nothing then runs. In virtual mode a
  // connection whose thread is refused is closed and counted refused.
  absl::Status Serve(HttpFrontHandler handler);
  // Closes the listener and every connection and joins all threads.
  void Stop();
  uint16_t port() const;
  HttpFrontStats stats() const;

  class Impl;

 private:
  explicit HttpFront(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace perflab::http

#endif  // PERFLAB_BENCH_HTTP_HTTP_FRONT_H_
