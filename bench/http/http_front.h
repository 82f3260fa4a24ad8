// The HTTP/1.1 front end that the real servers share (http::HttpServer, the
// reality checks' server, and http::OrdersService): it listens on loopback,
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
// sends "Connection: close", a request fails, or it sits idle past
// keepalive_timeout_s (infinity: never). Connections beyond max_connections
// are closed at accept and counted as refused. A client that stops sending
// halfway through a request is dropped after 2 s without a byte (a receive
// timeout), so it cannot hold a thread for ever.
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
#include "bench/http/response_writes.h"

namespace perflab::http {

struct HttpFrontOptions {
  std::string host = "127.0.0.1";   // a loopback address (127.0.0.0/8 or ::1)
  uint16_t port = 0;                // 0 picks a free port; read it back
  int threads = 10;                 // worker threads; 0 = one per connection
  double keepalive_timeout_s = 60;  // close idle connections; inf: never
  int max_connections = 1024;       // open connections beyond this are refused
  bool tcp_nodelay = true;          // TCP_NODELAY on accepted sockets
};

// One request head, as read; the views point into `head`.
struct HttpFrontRequest {
  std::string_view head;    // request line and headers, up to "\r\n\r\n"
  std::string_view method;  // as sent; empty when the line is malformed
  std::string_view target;  // as sent; empty when the line is malformed
  // The request line is "METHOD SP TARGET SP HTTP/1.x".
  bool well_formed = false;
};

struct HttpFrontResponse {
  int status = 200;  // 0: no answer, close the connection (counted an error)
  std::string body;
  std::string content_type = "application/json";
  // One write, or headers then body as two (the Nagle + delayed-ACK stall
  // without TCP_NODELAY).
  ResponseWrites writes = ResponseWrites::kGathered;
};

using HttpFrontHandler =
    std::function<HttpFrontResponse(const HttpFrontRequest&)>;

// Counters since Serve(); queue_wait_ns is a sum so a mean can be derived.
struct HttpFrontStats {
  int64_t responses = 0;         // written in full
  int64_t connections = 0;       // accepted
  int64_t idle_closes = 0;       // closed by the keep-alive timeout
  int64_t refused = 0;           // over max_connections
  int64_t errors = 0;            // malformed requests, failed writes
  int64_t queue_wait_ns = 0;     // ready -> taken by a worker (fixed pool)
  int64_t open_connections = 0;  // right now
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

  // Starts the poller and the workers; call once.
  void Serve(HttpFrontHandler handler);
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
