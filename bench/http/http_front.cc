#include "bench/http/http_front.h"

#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <deque>
#include <map>
#include <set>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "bench/http/loopback.h"
#include "core/mutex.h"

namespace perflab::http {
namespace {

using Clock = std::chrono::steady_clock;
constexpr size_t kMaxHeaderBytes = size_t{16} * 1024;

int64_t NsSince(Clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - t)
      .count();
}

const char* Reason(int status) {
  switch (status) {
    case 200:
      return "OK";
    case 400:
      return "Bad Request";
    case 404:
      return "Not Found";
    case 405:
      return "Method Not Allowed";
    case 502:
      return "Bad Gateway";
    case 503:
      return "Service Unavailable";
    default:
      return "Internal Server Error";
  }
}

bool SendAll(int fd, std::string_view data) {
  size_t sent = 0;
  while (sent < data.size()) {
    ssize_t n =
        ::send(fd, data.data() + sent, data.size() - sent, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    sent += static_cast<size_t>(n);
  }
  return true;
}

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = absl::ascii_tolower(static_cast<unsigned char>(c));
  return out;
}

// Splits "METHOD SP TARGET SP HTTP/1.x" off the head.
HttpFrontRequest ParseHead(std::string_view head) {
  HttpFrontRequest r;
  r.head = head;
  const size_t eol = head.find("\r\n");
  const std::string_view line = head.substr(0, eol);
  const size_t sp1 = line.find(' ');
  const size_t sp2 = sp1 == line.npos ? sp1 : line.find(' ', sp1 + 1);
  if (sp2 == line.npos || !Lower(line.substr(sp2 + 1)).starts_with("http/1.")) {
    return r;
  }
  r.method = line.substr(0, sp1);
  r.target = line.substr(sp1 + 1, sp2 - sp1 - 1);
  r.well_formed = true;
  return r;
}

struct Conn {
  int fd = -1;
  std::string buffer;            // bytes read past the last request
  Clock::time_point idle_since;  // when it last became idle
  Clock::time_point ready_at;    // when it joined the worker queue
};

// Outcome of reading one request head from a connection.
enum class ReadResult { kRequest, kClosed, kError };

}  // namespace

class HttpFront::Impl {
 public:
  explicit Impl(HttpFrontOptions o) : options_(std::move(o)) {}
  ~Impl() { Stop(); }

  absl::Status Listen();
  void Serve(HttpFrontHandler handler);
  void Stop() ABSL_LOCKS_EXCLUDED(mu_);
  uint16_t port() const { return port_; }
  HttpFrontStats stats() const ABSL_LOCKS_EXCLUDED(mu_) {
    core::MutexLock lock(&mu_);
    HttpFrontStats s = stats_;
    s.open_connections = open_;
    return s;
  }

 private:
  void Poll() ABSL_LOCKS_EXCLUDED(mu_);
  void Work() ABSL_LOCKS_EXCLUDED(mu_);
  // Virtual mode: all of the connection's requests.
  void ServeConnection(int fd, int64_t id) ABSL_LOCKS_EXCLUDED(mu_);
  ReadResult ReadRequest(int fd, std::string& buffer, size_t& length);
  // Reads one request, answers it; false: close the connection.
  bool ServeOne(int fd, std::string& buffer) ABSL_LOCKS_EXCLUDED(mu_);
  void Rearm(std::unique_ptr<Conn> conn) ABSL_LOCKS_EXCLUDED(mu_);
  void Watch(int fd) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void CloseConn(int fd) ABSL_LOCKS_EXCLUDED(mu_);

  const HttpFrontOptions options_;
  HttpFrontHandler handler_;  // set by Serve() before any thread starts
  int listen_fd_ = -1;
  int epoll_fd_ = -1;
  int wake_fd_ = -1;  // eventfd: wakes the poller on Stop()
  uint16_t port_ = 0;
  std::thread poller_;
  std::vector<std::thread> workers_;

  mutable core::Mutex mu_;
  core::CondVar cv_;  // a connection is ready, or stop
  bool stop_ ABSL_GUARDED_BY(mu_) = false;
  bool stopped_ ABSL_GUARDED_BY(mu_) = false;
  // Idle connections watched by epoll, by fd (fixed-pool mode).
  std::map<int, std::unique_ptr<Conn>> idle_ ABSL_GUARDED_BY(mu_);
  // Connections with a request ready, oldest first (fixed-pool mode).
  std::deque<std::unique_ptr<Conn>> ready_ ABSL_GUARDED_BY(mu_);
  // Virtual mode: sockets to shut down on Stop(), the threads by id, and the
  // ids of those that ended (the poller joins them).
  std::set<int> live_fds_ ABSL_GUARDED_BY(mu_);
  std::map<int64_t, std::thread> conn_threads_ ABSL_GUARDED_BY(mu_);
  std::vector<int64_t> finished_ ABSL_GUARDED_BY(mu_);
  int64_t next_thread_id_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t open_ ABSL_GUARDED_BY(mu_) = 0;
  HttpFrontStats stats_ ABSL_GUARDED_BY(mu_);
};

absl::Status HttpFront::Impl::Listen() {
  const HttpFrontOptions& o = options_;
  if (o.threads < 0 || o.max_connections < 1 ||
      std::isnan(o.keepalive_timeout_s) || o.keepalive_timeout_s < 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "threads = ", o.threads, ", max_connections = ", o.max_connections,
        ", keepalive_timeout_s = ", o.keepalive_timeout_s,
        ": accepted threads >= 0, max_connections >= 1, a timeout >= 0"));
  }
  absl::StatusOr<SocketAddress> addr = LoopbackAddress(o.host, o.port);
  if (!addr.ok()) return addr.status();
  listen_fd_ =
      ::socket(addr->family(), SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (listen_fd_ < 0) {
    return absl::InternalError(absl::StrCat("socket: ", std::strerror(errno)));
  }
  if (::bind(listen_fd_, addr->get(), addr->length) != 0) {
    const int e = errno;
    return e == EADDRINUSE
               ? absl::InvalidArgumentError(absl::StrCat(
                     "port ", o.port, " on ", o.host,
                     " is in use; accepted: a free port, or 0 for any"))
               : absl::InternalError(
                     absl::StrCat("bind ", o.host, ": ", std::strerror(e)));
  }
  if (::listen(listen_fd_, 1024) != 0) {
    return absl::InternalError(absl::StrCat("listen: ", std::strerror(errno)));
  }
  sockaddr_storage bound{};
  socklen_t len = sizeof bound;
  ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&bound), &len);
  port_ = ntohs(bound.ss_family == AF_INET6
                    ? reinterpret_cast<sockaddr_in6*>(&bound)->sin6_port
                    : reinterpret_cast<sockaddr_in*>(&bound)->sin_port);
  epoll_fd_ = ::epoll_create1(EPOLL_CLOEXEC);
  wake_fd_ = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (epoll_fd_ < 0 || wake_fd_ < 0) {
    return absl::InternalError(absl::StrCat("epoll: ", std::strerror(errno)));
  }
  for (int fd : {listen_fd_, wake_fd_}) {
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.fd = fd;
    ::epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, fd, &ev);
  }
  return absl::OkStatus();
}

void HttpFront::Impl::Serve(HttpFrontHandler handler) {
  handler_ = std::move(handler);
  poller_ = std::thread([this] { Poll(); });
  for (int i = 0; i < options_.threads; ++i) {
    workers_.emplace_back([this] { Work(); });
  }
}

void HttpFront::Impl::Stop() {
  {
    core::MutexLock lock(&mu_);
    if (stopped_) return;
    stopped_ = stop_ = true;
    cv_.SignalAll();
    // Wakes connection threads blocked in poll or recv.
    for (int fd : live_fds_) ::shutdown(fd, SHUT_RDWR);
  }
  if (wake_fd_ >= 0) {
    uint64_t one = 1;
    (void)!::write(wake_fd_, &one, sizeof one);
  }
  if (poller_.joinable()) poller_.join();
  for (std::thread& t : workers_) t.join();
  std::map<int64_t, std::thread> threads;
  {
    // The poller has exited: no new connection thread can appear.
    core::MutexLock lock(&mu_);
    threads.swap(conn_threads_);
  }
  for (auto& [id, t] : threads) t.join();
  core::MutexLock lock(&mu_);
  for (auto& [fd, conn] : idle_) ::close(fd);
  for (auto& conn : ready_) ::close(conn->fd);
  open_ -= static_cast<int64_t>(idle_.size() + ready_.size());
  idle_.clear();
  ready_.clear();
  for (int* fd : {&listen_fd_, &epoll_fd_, &wake_fd_}) {
    if (*fd >= 0) ::close(*fd);
    *fd = -1;
  }
}

void HttpFront::Impl::CloseConn(int fd) {
  ::close(fd);
  core::MutexLock lock(&mu_);
  --open_;
}

void HttpFront::Impl::Watch(int fd) {
  epoll_event ev{};
  ev.events = EPOLLIN | EPOLLRDHUP;
  ev.data.fd = fd;
  ::epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, fd, &ev);
}

void HttpFront::Impl::Poll() {
  const bool pooled = options_.threads > 0;
  const bool sweep = std::isfinite(options_.keepalive_timeout_s);
  const auto keepalive =
      sweep ? std::chrono::duration_cast<Clock::duration>(
                  std::chrono::duration<double>(options_.keepalive_timeout_s))
            : Clock::duration::max();
  // The granularity of the keep-alive sweep; without one, only ended
  // connection threads wait for the tick to be joined.
  const int tick_ms = sweep ? 5 : 50;
  epoll_event events[64];
  for (;;) {
    const int n = ::epoll_wait(epoll_fd_, events, 64, tick_ms);
    std::vector<std::thread> done;
    {
      core::MutexLock lock(&mu_);
      if (stop_) return;
      for (int i = 0; i < n; ++i) {
        auto it = idle_.find(events[i].data.fd);
        if (it == idle_.end()) continue;  // the listener or the wake-up
        ::epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, it->first, nullptr);
        it->second->ready_at = Clock::now();
        ready_.push_back(std::move(it->second));
        idle_.erase(it);
        cv_.Signal();
      }
      const Clock::time_point now = Clock::now();
      for (auto it = idle_.begin(); sweep && it != idle_.end();) {
        if (now - it->second->idle_since < keepalive) {
          ++it;
          continue;
        }
        ::epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, it->first, nullptr);
        ::close(it->first);
        --open_;
        ++stats_.idle_closes;
        it = idle_.erase(it);
      }
      for (int64_t id : finished_) {
        done.push_back(std::move(conn_threads_[id]));
        conn_threads_.erase(id);
      }
      finished_.clear();
    }
    for (std::thread& t : done) t.join();  // reaps ended connection threads
    for (;;) {
      const int fd =
          ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
      if (fd < 0) break;  // EAGAIN: none pending (the listener is non-blocking)
      // Blocking reads bounded by a receive timeout: a client that sends
      // half a request cannot hold a thread for ever.
      ::fcntl(fd, F_SETFL, 0);
      timeval tv{2, 0};
      ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
      const int nodelay = options_.tcp_nodelay ? 1 : 0;
      ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &nodelay, sizeof nodelay);
      core::MutexLock lock(&mu_);
      if (open_ >= options_.max_connections) {
        ::close(fd);
        ++stats_.refused;
        continue;
      }
      ++open_;
      ++stats_.connections;
      if (pooled) {
        auto conn = std::make_unique<Conn>();
        conn->fd = fd;
        conn->idle_since = Clock::now();
        idle_[fd] = std::move(conn);
        Watch(fd);
      } else {
        live_fds_.insert(fd);
        const int64_t id = next_thread_id_++;
        conn_threads_[id] =
            std::thread([this, fd, id] { ServeConnection(fd, id); });
      }
    }
  }
}

void HttpFront::Impl::Work() {
  for (;;) {
    std::unique_ptr<Conn> conn;
    {
      core::MutexLock lock(&mu_);
      while (!stop_ && ready_.empty()) cv_.Wait(&mu_);
      if (stop_) return;
      conn = std::move(ready_.front());
      ready_.pop_front();
      stats_.queue_wait_ns += NsSince(conn->ready_at);
    }
    if (!ServeOne(conn->fd, conn->buffer)) {
      CloseConn(conn->fd);
      continue;
    }
    Rearm(std::move(conn));
  }
}

void HttpFront::Impl::Rearm(std::unique_ptr<Conn> conn) {
  core::MutexLock lock(&mu_);
  conn->idle_since = Clock::now();
  if (conn->buffer.find("\r\n\r\n") != std::string::npos) {
    // A pipelined request is already buffered: it is ready now.
    conn->ready_at = conn->idle_since;
    ready_.push_back(std::move(conn));
    cv_.Signal();
    return;
  }
  const int fd = conn->fd;
  idle_[fd] = std::move(conn);
  Watch(fd);
}

void HttpFront::Impl::ServeConnection(int fd, int64_t id) {
  std::string buffer;
  // The keep-alive timeout as a poll timeout; -1 waits for ever.
  const int timeout_ms =
      std::isfinite(options_.keepalive_timeout_s)
          ? static_cast<int>(std::min(options_.keepalive_timeout_s * 1e3, 2e9))
          : -1;
  bool idle_close = false;
  for (;;) {
    if (buffer.find("\r\n\r\n") == std::string::npos) {
      pollfd p{fd, POLLIN, 0};
      const int n = ::poll(&p, 1, timeout_ms);
      if (n == 0) {
        idle_close = true;
        break;
      }
      if (n < 0 && errno == EINTR) continue;
    }
    if (!ServeOne(fd, buffer)) break;
    core::MutexLock lock(&mu_);
    if (stop_) break;
  }
  core::MutexLock lock(&mu_);
  live_fds_.erase(fd);
  ::close(fd);
  --open_;
  if (idle_close) ++stats_.idle_closes;
  finished_.push_back(id);
}

ReadResult HttpFront::Impl::ReadRequest(int fd, std::string& buffer,
                                        size_t& length) {
  char chunk[4096];
  for (;;) {
    const size_t end = buffer.find("\r\n\r\n");
    if (end != std::string::npos) {
      length = end + 4;
      return ReadResult::kRequest;
    }
    if (buffer.size() > kMaxHeaderBytes) return ReadResult::kError;
    const ssize_t r = ::recv(fd, chunk, sizeof chunk, 0);
    if (r < 0 && errno == EINTR) continue;
    // Closed, reset, timed out or shut down: an error only mid-request.
    if (r <= 0)
      return buffer.empty() ? ReadResult::kClosed : ReadResult::kError;
    buffer.append(chunk, static_cast<size_t>(r));
  }
}

bool HttpFront::Impl::ServeOne(int fd, std::string& buffer) {
  size_t length = 0;
  const ReadResult read = ReadRequest(fd, buffer, length);
  HttpFrontResponse r;
  bool close = true;
  if (read == ReadResult::kRequest) {
    const HttpFrontRequest request =
        ParseHead(std::string_view(buffer).substr(0, length));
    close =
        Lower(request.head).find("\r\nconnection: close") != std::string::npos;
    r = handler_(request);
    buffer.erase(0, length);
  }
  bool ok = read == ReadResult::kRequest && r.status != 0;
  if (ok) {
    std::string head = absl::StrCat(
        "HTTP/1.1 ", r.status, " ", Reason(r.status),
        "\r\nContent-Type: ", r.content_type,
        "\r\nContent-Length: ", r.body.size(),
        "\r\nConnection: ", close ? "close" : "keep-alive", "\r\n\r\n");
    if (r.writes == ResponseWrites::kHeadersThenBody) {
      ok = SendAll(fd, head) && SendAll(fd, r.body);
    } else {
      head += r.body;
      ok = SendAll(fd, head);
    }
  }
  if (read == ReadResult::kClosed) return false;
  core::MutexLock lock(&mu_);
  ++(ok ? stats_.responses : stats_.errors);
  return ok && !close;
}

absl::StatusOr<std::unique_ptr<HttpFront>> HttpFront::Listen(
    const HttpFrontOptions& options) {
  auto impl = std::make_unique<Impl>(options);
  if (absl::Status s = impl->Listen(); !s.ok()) return s;
  return std::unique_ptr<HttpFront>(new HttpFront(std::move(impl)));
}

HttpFront::HttpFront(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
HttpFront::~HttpFront() = default;
void HttpFront::Serve(HttpFrontHandler handler) {
  impl_->Serve(std::move(handler));
}
void HttpFront::Stop() { impl_->Stop(); }
uint16_t HttpFront::port() const { return impl_->port(); }
HttpFrontStats HttpFront::stats() const { return impl_->stats(); }

}  // namespace perflab::http
