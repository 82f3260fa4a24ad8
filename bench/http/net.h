// A minimal HTTP/1.1 server and client over real TCP on 127.0.0.1, to measure
// what the case study's inventory call costs: a new connection per request vs
// a kept-alive one, the Nagle + delayed-ACK stall of a response written as two
// small writes without TCP_NODELAY, and the same over TLS.
//
// The server runs one thread, accepts on an ephemeral port and serves one
// connection at a time (the benchmarks' client is sequential). Stop() (or the
// destructor) ends it promptly even while a connection is open. Its public
// methods are thread-safe. An HttpClient is not thread-safe; use one per
// thread. Both ignore SIGPIPE process-wide (a peer's close must be an error,
// not a kill).
#ifndef PERFLAB_BENCH_HTTP_NET_H_
#define PERFLAB_BENCH_HTTP_NET_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "bench/http/response_writes.h"
#include "bench/http/tls.h"
#include "core/mutex.h"

namespace perflab::http {

struct ServerOptions {
  // Disable Nagle's algorithm on accepted sockets.
  bool tcp_nodelay = true;
  // kGathered is one writev (plain) or one TLS record.
  ResponseWrites writes = ResponseWrites::kGathered;
  // Size of the JSON body; small, like an inventory answer.
  size_t body_bytes = 256;
  // Serve TLS with these contexts; null serves plain TCP.
  std::shared_ptr<const TlsContexts> tls = nullptr;
};

class LoopbackServer {
 public:
  // Binds 127.0.0.1:0, starts the thread and returns once it listens.
  static absl::StatusOr<std::unique_ptr<LoopbackServer>> Start(
      const ServerOptions& options);
  ~LoopbackServer();
  void Stop() ABSL_LOCKS_EXCLUDED(active_mu_);

  uint16_t port() const { return port_; }
  int64_t responses() const { return responses_.load(); }
  int64_t connections() const { return connections_.load(); }
  // Connections dropped by an error (bad request, failed handshake).
  int64_t errors() const { return errors_.load(); }

 private:
  explicit LoopbackServer(ServerOptions options)
      : options_(std::move(options)) {}
  void Run() ABSL_LOCKS_EXCLUDED(active_mu_);
  void Serve(int fd);

  ServerOptions options_;
  std::string body_;
  int listen_fd_ = -1;
  uint16_t port_ = 0;
  std::thread thread_;
  std::atomic<bool> stop_{false};
  // The connection being served, for Stop() to shut down.
  core::Mutex active_mu_;
  int active_fd_ ABSL_GUARDED_BY(active_mu_) = -1;
  std::atomic<int64_t> responses_{0}, connections_{0}, errors_{0};
};

struct ClientOptions {
  // Reuse the connection; false sends "Connection: close" and reconnects for
  // every request, as the seed's baseline did.
  bool keep_alive = true;
  // Disable Nagle on the client socket too: with TLS the client writes its
  // Finished message and then the request, and Nagle would hold the request
  // behind the server's delayed ACK (the same ~40 ms stall, client side).
  bool tcp_nodelay = true;
  // Connect with TLS using these contexts (must match the server's).
  std::shared_ptr<const TlsContexts> tls = nullptr;
  // A loopback host (127.0.0.0/8, ::1, localhost); others fail to connect.
  std::string host = "127.0.0.1";
  // Bound on each send and receive; 0 waits forever.
  double timeout_ms = 0;
};

// Why the last Get() failed, for a load generator's "errors by kind".
enum class HttpError {
  kNone,
  kConnect,      // could not connect
  kStale,        // a reused connection was closed by the server (EOF/reset)
  kTimeout,      // no answer within timeout_ms
  kBadResponse,  // anything else: malformed, short, write failure
};

struct HttpResponse {
  int status = 0;
  std::string headers;  // status line and header lines, CRLF separated
  std::string body;
  bool connection_close = false;  // the server announced it will close
};

class HttpClient {
 public:
  HttpClient(uint16_t port, ClientOptions options);
  ~HttpClient();
  HttpClient(const HttpClient&) = delete;
  HttpClient& operator=(const HttpClient&) = delete;

  // Sends GET `path` and reads one complete response (status line, headers,
  // Content-Length body). Any malformed or short response is an error.
  absl::StatusOr<HttpResponse> Get(std::string_view path);
  void Close();
  int64_t connections_opened() const { return connections_opened_; }
  HttpError last_error() const { return last_error_; }
  // True when the next Get() reuses an open connection.
  bool connected() const { return fd_ >= 0; }

 private:
  absl::Status Connect();

  uint16_t port_;
  ClientOptions options_;
  int fd_ = -1;
  SSL* ssl_ = nullptr;  // set for TLS connections
  std::string buffer_;  // bytes read past the previous response
  int64_t connections_opened_ = 0;
  HttpError last_error_ = HttpError::kNone;
};

}  // namespace perflab::http

#endif  // PERFLAB_BENCH_HTTP_NET_H_
