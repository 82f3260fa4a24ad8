#include "bench/http/net.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/err.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "bench/http/loopback.h"

namespace perflab::http {
namespace {

constexpr size_t kMaxHeaderBytes = size_t{16} * 1024;

void IgnoreSigpipe() {
  static const bool once = [] {
    ::signal(SIGPIPE, SIG_IGN);
    return true;
  }();
  (void)once;
}

absl::Status Errno(std::string_view what) {
  return absl::InternalError(
      absl::StrCat(std::string(what), ": ", std::strerror(errno)));
}

// One connection's byte stream, plain or TLS.
struct Stream {
  int fd;
  SSL* ssl;

  // > 0 bytes, 0 on orderly close, < 0 on error.
  ssize_t Read(char* buf, size_t n) {
    if (ssl != nullptr) {
      int r = SSL_read(ssl, buf, static_cast<int>(n));
      if (r > 0) return r;
      int e = SSL_get_error(ssl, r);
      ERR_clear_error();
      return e == SSL_ERROR_ZERO_RETURN ? 0 : -1;
    }
    for (;;) {
      ssize_t r = ::recv(fd, buf, n, 0);
      if (r >= 0 || errno != EINTR) return r;
    }
  }

  bool WriteAll(const char* data, size_t n) {
    while (n > 0) {
      ssize_t w;
      if (ssl != nullptr) {
        int r = SSL_write(ssl, data, static_cast<int>(n));
        if (r <= 0) {
          ERR_clear_error();
          return false;
        }
        w = r;
      } else {
        w = ::send(fd, data, n, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return false;
      }
      data += w;
      n -= static_cast<size_t>(w);
    }
    return true;
  }

  // Headers and body in one system call (plain) or one TLS record.
  bool WriteGathered(std::string_view a, std::string_view b) {
    if (ssl != nullptr) {
      std::string joined = absl::StrCat(std::string(a), std::string(b));
      return WriteAll(joined.data(), joined.size());
    }
    iovec iov[2] = {{const_cast<char*>(a.data()), a.size()},
                    {const_cast<char*>(b.data()), b.size()}};
    size_t total = a.size() + b.size();
    ssize_t w;
    do {
      w = ::writev(fd, iov, 2);
    } while (w < 0 && errno == EINTR);
    if (w < 0) return false;
    if (static_cast<size_t>(w) == total) return true;
    // Short write (never for these sizes): finish with plain writes.
    size_t done = static_cast<size_t>(w);
    if (done < a.size()) {
      if (!WriteAll(a.data() + done, a.size() - done)) return false;
      done = a.size();
    }
    return WriteAll(b.data() + (done - a.size()), b.size() - (done - a.size()));
  }
};

// Reads into `buffer` until it holds "\r\n\r\n"; returns the header length
// (including the blank line), 0 on a clean close before any byte, -1 on error.
ssize_t ReadHeaders(Stream& s, std::string& buffer) {
  char chunk[4096];
  for (;;) {
    size_t end = buffer.find("\r\n\r\n");
    if (end != std::string::npos) return static_cast<ssize_t>(end + 4);
    if (buffer.size() > kMaxHeaderBytes) return -1;
    ssize_t r = s.Read(chunk, sizeof chunk);
    if (r == 0) return buffer.empty() ? 0 : -1;
    if (r < 0) return -1;
    buffer.append(chunk, static_cast<size_t>(r));
  }
}

bool HasHeader(std::string_view headers, std::string_view line) {
  return absl::StrContains(absl::AsciiStrToLower(std::string(headers)),
                           absl::AsciiStrToLower(std::string(line)));
}

}  // namespace

absl::StatusOr<std::unique_ptr<LoopbackServer>> LoopbackServer::Start(
    const ServerOptions& options) {
  IgnoreSigpipe();
  std::unique_ptr<LoopbackServer> server(new LoopbackServer(options));
  // A JSON body of exactly body_bytes (at least the fixed part).
  std::string head = "{\"sku\":\"inventory\",\"in_stock\":true,\"pad\":\"";
  std::string tail = "\"}";
  size_t fixed = head.size() + tail.size();
  server->body_ =
      head +
      std::string(options.body_bytes > fixed ? options.body_bytes - fixed : 0,
                  'x') +
      tail;
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return Errno("socket");
  server->listen_fd_ = fd;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;  // ephemeral
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    return Errno("bind 127.0.0.1:0");
  }
  if (::listen(fd, 128) != 0) return Errno("listen");
  socklen_t len = sizeof addr;
  if (::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    return Errno("getsockname");
  }
  server->port_ = ntohs(addr.sin_port);
  server->thread_ = std::thread([s = server.get()] { s->Run(); });
  return server;
}

LoopbackServer::~LoopbackServer() {
  Stop();
  if (listen_fd_ >= 0) ::close(listen_fd_);
}

void LoopbackServer::Stop() {
  if (stop_.exchange(true)) {
    if (thread_.joinable()) thread_.join();
    return;
  }
  // Wakes a blocked accept() (EINVAL) and a blocked read on the open
  // connection.
  if (listen_fd_ >= 0) ::shutdown(listen_fd_, SHUT_RDWR);
  {
    core::MutexLock lock(&active_mu_);
    if (active_fd_ >= 0) ::shutdown(active_fd_, SHUT_RDWR);
  }
  if (thread_.joinable()) thread_.join();
}

void LoopbackServer::Run() {
  while (!stop_.load()) {
    int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EINTR || errno == ECONNABORTED) continue;
      return;  // shut down (or a fatal error): stop serving
    }
    {
      core::MutexLock lock(&active_mu_);
      if (stop_.load()) {
        ::close(fd);
        return;
      }
      active_fd_ = fd;
    }
    ++connections_;
    int one = options_.tcp_nodelay ? 1 : 0;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    Serve(fd);
    {
      core::MutexLock lock(&active_mu_);
      active_fd_ = -1;
    }
    ::close(fd);
  }
}

void LoopbackServer::Serve(int fd) {
  SSL* ssl = nullptr;
  if (options_.tls != nullptr) {
    ssl = SSL_new(options_.tls->server());
    SSL_set_fd(ssl, fd);
    if (SSL_accept(ssl) != 1) {
      ERR_clear_error();
      SSL_free(ssl);
      ++errors_;
      return;
    }
  }
  Stream s{fd, ssl};
  std::string buffer;
  for (;;) {
    ssize_t n = ReadHeaders(s, buffer);
    if (n == 0) break;  // client closed between requests
    if (n < 0 || !absl::StartsWith(buffer, "GET ")) {
      ++errors_;
      break;
    }
    std::string_view request(buffer.data(), static_cast<size_t>(n));
    bool close = HasHeader(request, "\r\nConnection: close\r\n");
    std::string headers = absl::StrCat(
        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: ",
        body_.size(), "\r\nConnection: ", close ? "close" : "keep-alive",
        "\r\n\r\n");
    bool ok = options_.writes == ResponseWrites::kGathered
                  ? s.WriteGathered(headers, body_)
                  : s.WriteAll(headers.data(), headers.size()) &&
                        s.WriteAll(body_.data(), body_.size());
    if (!ok) {
      ++errors_;
      break;
    }
    ++responses_;
    buffer.erase(0, static_cast<size_t>(n));
    if (close) break;
  }
  if (ssl != nullptr) {
    SSL_shutdown(ssl);  // send close_notify; do not wait for the peer's
    ERR_clear_error();
    SSL_free(ssl);
  }
}

HttpClient::HttpClient(uint16_t port, ClientOptions options)
    : port_(port), options_(std::move(options)) {
  IgnoreSigpipe();
}

HttpClient::~HttpClient() { Close(); }

void HttpClient::Close() {
  if (ssl_ != nullptr) {
    SSL_shutdown(ssl_);
    ERR_clear_error();
    SSL_free(ssl_);
    ssl_ = nullptr;
  }
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  buffer_.clear();
}

absl::Status HttpClient::Connect() {
  absl::StatusOr<SocketAddress> addr = LoopbackAddress(options_.host, port_);
  if (!addr.ok()) return addr.status();
  fd_ = ::socket(addr->family(), SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd_ < 0) return Errno("socket");
  int rc;
  do {
    rc = ::connect(fd_, addr->get(), addr->length);
  } while (rc != 0 && errno == EINTR);
  if (rc != 0) {
    absl::Status s = Errno(absl::StrCat("connect ", options_.host, ":", port_));
    Close();
    return s;
  }
  if (options_.timeout_ms > 0) {
    const auto us = static_cast<int64_t>(options_.timeout_ms * 1e3);
    timeval tv{static_cast<time_t>(us / 1000000),
               static_cast<suseconds_t>(us % 1000000)};
    ::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    ::setsockopt(fd_, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  }
  ++connections_opened_;
  int nodelay = options_.tcp_nodelay ? 1 : 0;
  ::setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &nodelay, sizeof nodelay);
  if (options_.tls != nullptr) {
    ssl_ = SSL_new(options_.tls->client());
    SSL_set_fd(ssl_, fd_);
    SSL_set1_host(ssl_, "localhost");
    if (SSL_connect(ssl_) != 1) {
      char buf[256] = "handshake failed";
      if (unsigned long e = ERR_get_error(); e != 0) {
        ERR_error_string_n(e, buf, sizeof buf);
      }
      Close();
      return absl::UnavailableError(absl::StrCat("TLS connect: ", buf));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<HttpResponse> HttpClient::Get(std::string_view path) {
  last_error_ = HttpError::kNone;
  const bool reused = fd_ >= 0;
  if (!reused) {
    if (absl::Status s = Connect(); !s.ok()) {
      last_error_ = HttpError::kConnect;
      return s;
    }
  }
  std::string request = absl::StrCat(
      "GET ", std::string(path), " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: ",
      options_.keep_alive ? "keep-alive" : "close", "\r\n\r\n");
  Stream s{fd_, ssl_};
  auto fail = [this, reused](std::string_view why) {
    // EAGAIN is the receive timeout; EOF or a reset before any byte of the
    // answer on a reused connection is the keep-alive race.
    const int e = errno;
    last_error_ = (e == EAGAIN || e == EWOULDBLOCK) ? HttpError::kTimeout
                  : (reused && buffer_.empty())     ? HttpError::kStale
                                                    : HttpError::kBadResponse;
    Close();
    return absl::DataLossError(
        absl::StrCat("bad response: ", std::string(why)));
  };
  errno = 0;
  if (!s.WriteAll(request.data(), request.size())) return fail("write failed");
  ssize_t n = ReadHeaders(s, buffer_);
  if (n <= 0) return fail("no complete header block");
  HttpResponse response;
  response.headers = buffer_.substr(0, static_cast<size_t>(n) - 4);
  if (!absl::StartsWith(response.headers, "HTTP/1.1 ") ||
      response.headers.size() < 12 ||
      !absl::SimpleAtoi(response.headers.substr(9, 3), &response.status)) {
    return fail("status line");
  }
  // Content-Length is required: this server never sends chunked bodies.
  std::string lower = absl::AsciiStrToLower(response.headers);
  size_t at = lower.find("\r\ncontent-length:");
  if (at == std::string::npos) return fail("no Content-Length");
  size_t value = at + 17;
  size_t eol = lower.find("\r\n", value);
  size_t length = 0;
  if (!absl::SimpleAtoi(absl::StripAsciiWhitespace(lower.substr(
                            value, eol == std::string::npos ? std::string::npos
                                                            : eol - value)),
                        &length)) {
    return fail("Content-Length value");
  }
  response.connection_close =
      HasHeader(response.headers + "\r\n", "\r\nConnection: close\r\n");
  buffer_.erase(0, static_cast<size_t>(n));
  char chunk[4096];
  while (buffer_.size() < length) {
    ssize_t r = s.Read(chunk, sizeof chunk);
    if (r <= 0) return fail("body shorter than Content-Length");
    buffer_.append(chunk, static_cast<size_t>(r));
  }
  response.body = buffer_.substr(0, length);
  buffer_.erase(0, length);
  if (!options_.keep_alive || response.connection_close) Close();
  return response;
}

}  // namespace perflab::http
