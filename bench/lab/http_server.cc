#include "bench/lab/http_server.h"

#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <map>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/strings/str_cat.h"
#include "bench/lab/loopback.h"

namespace perflab::lab {
namespace {

using Clock = std::chrono::steady_clock;
constexpr size_t kMaxHeaderBytes = 16 * 1024;
constexpr char kBody[] = "{\"ok\":true}";

int64_t NsSince(Clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - t)
      .count();
}

Clock::duration Ms(double ms) {
  return std::chrono::duration_cast<Clock::duration>(
      std::chrono::duration<double, std::milli>(ms));
}

// Burns `ms` of this thread's CPU time (not wall time: a descheduled thread
// must still do its full share of work, as a real handler would).
void BurnCpu(double ms) {
  if (ms <= 0) return;
  timespec t{};
  ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  const double end = static_cast<double>(t.tv_sec) * 1e9 +
                     static_cast<double>(t.tv_nsec) + ms * 1e6;
  volatile uint64_t sink = 0;
  for (;;) {
    for (int i = 0; i < 1000; ++i) sink = sink + static_cast<uint64_t>(i);
    ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    if (static_cast<double>(t.tv_sec) * 1e9 + static_cast<double>(t.tv_nsec) >=
        end) {
      return;
    }
  }
}

absl::Status CheckTime(const char* name, double v, bool allow_negative) {
  if (!std::isfinite(v) || (!allow_negative && v < 0)) {
    return absl::InvalidArgumentError(
        absl::StrCat(name, " = ", v, ": accepted a finite number >= 0"));
  }
  return absl::OkStatus();
}

struct Conn {
  int fd = -1;
  std::string buffer;            // bytes read past the last request
  Clock::time_point idle_since;  // when it last became idle
  Clock::time_point ready_at;    // when it joined the worker queue
};

// Outcome of reading one request from a connection.
enum class ReadResult { kRequest, kClosed, kError };

}  // namespace

class HttpServer::Impl {
 public:
  explicit Impl(HttpServerOptions o) : options_(std::move(o)) {}
  ~Impl() { Stop(); }

  absl::Status Listen();
  void StartThreads();
  void Stop();
  uint16_t port() const { return port_; }
  HttpServerStats stats() const {
    std::unique_lock<std::mutex> lock(mu_);
    HttpServerStats s = stats_;
    s.open_connections = open_;
    return s;
  }

 private:
  void Poll();
  void Work();
  void ServeConnection(int fd);  // virtual mode: the whole connection
  ReadResult ReadRequest(int fd, std::string& buffer, size_t& length);
  // Runs the handler and writes the response; false if the write failed or
  // the client asked to close.
  bool Handle(int fd, std::string& buffer, size_t length);
  void Rearm(std::unique_ptr<Conn> conn);
  void CloseConn(int fd);
  void WaitOutFreeze();

  const HttpServerOptions options_;
  int listen_fd_ = -1;
  int epoll_fd_ = -1;
  int wake_fd_ = -1;  // eventfd: wakes the poller on Stop()
  uint16_t port_ = 0;
  Clock::time_point started_;
  std::thread poller_;
  std::vector<std::thread> workers_;

  // std::mutex, not absl::Mutex: Debian's Abseil is not built with
  // ThreadSanitizer, which then cannot see absl::Mutex order its accesses.
  mutable std::mutex mu_;
  // Signalled on every change a waiter may wait for: a ready connection, a
  // released permit, stop.
  std::condition_variable cv_;
  bool stop_ ABSL_GUARDED_BY(mu_) = false;
  bool stopped_ ABSL_GUARDED_BY(mu_) = false;
  // Idle connections watched by epoll, by fd (fixed-pool mode).
  std::map<int, std::unique_ptr<Conn>> idle_ ABSL_GUARDED_BY(mu_);
  // Connections with a request ready, oldest first (fixed-pool mode).
  std::deque<std::unique_ptr<Conn>> ready_ ABSL_GUARDED_BY(mu_);
  // Sockets of connection threads (virtual mode), to shut down on Stop().
  std::set<int> live_fds_ ABSL_GUARDED_BY(mu_);
  std::vector<std::thread> conn_threads_ ABSL_GUARDED_BY(mu_);
  int inner_in_use_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t open_ ABSL_GUARDED_BY(mu_) = 0;
  HttpServerStats stats_ ABSL_GUARDED_BY(mu_);
};

absl::Status HttpServer::Impl::Listen() {
  const HttpServerOptions& o = options_;
  for (auto [name, v] : {std::pair{"handler_ms", o.handler_ms},
                         {"cpu_ms", o.cpu_ms},
                         {"inner_ms", o.inner_ms},
                         {"freeze_for_s", o.freeze_for_s},
                         {"keepalive_timeout_s", o.keepalive_timeout_s}}) {
    if (absl::Status s = CheckTime(name, v, false); !s.ok()) return s;
  }
  if (absl::Status s = CheckTime("freeze_at_s", o.freeze_at_s, true); !s.ok()) {
    return s;
  }
  if (o.threads < 0 || o.inner_pool < 0 || o.max_connections < 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "threads = ", o.threads, ", inner_pool = ", o.inner_pool,
        ", max_connections = ", o.max_connections,
        ": accepted threads >= 0, inner_pool >= 0, max_connections >= 1"));
  }
  absl::StatusOr<SocketAddress> addr = LoopbackAddress(o.host, o.port);
  if (!addr.ok()) return addr.status();
  listen_fd_ =
      ::socket(addr->family(), SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (listen_fd_ < 0) {
    return absl::InternalError(absl::StrCat("socket: ", std::strerror(errno)));
  }
  if (::bind(listen_fd_, addr->get(), addr->length) != 0) {
    int e = errno;
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
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.fd = listen_fd_;
  ::epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, listen_fd_, &ev);
  ev.data.fd = wake_fd_;
  ::epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, wake_fd_, &ev);
  return absl::OkStatus();
}

void HttpServer::Impl::StartThreads() {
  started_ = Clock::now();
  poller_ = std::thread([this] { Poll(); });
  for (int i = 0; i < options_.threads; ++i) {
    workers_.emplace_back([this] { Work(); });
  }
}

void HttpServer::Impl::Stop() {
  std::vector<std::thread> conn_threads;
  {
    std::unique_lock<std::mutex> lock(mu_);
    if (stopped_) return;
    stopped_ = stop_ = true;
    cv_.notify_all();
    // Wakes connection threads blocked in poll or recv.
    for (int fd : live_fds_) ::shutdown(fd, SHUT_RDWR);
  }
  if (wake_fd_ >= 0) {
    uint64_t one = 1;
    (void)!::write(wake_fd_, &one, sizeof one);
  }
  if (poller_.joinable()) poller_.join();
  for (std::thread& t : workers_) t.join();
  {
    // The poller has exited: no new connection thread can appear.
    std::unique_lock<std::mutex> lock(mu_);
    conn_threads.swap(conn_threads_);
  }
  for (std::thread& t : conn_threads) t.join();
  std::unique_lock<std::mutex> lock(mu_);
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

void HttpServer::Impl::CloseConn(int fd) {
  ::close(fd);
  std::unique_lock<std::mutex> lock(mu_);
  --open_;
}

void HttpServer::Impl::Poll() {
  const bool pooled = options_.threads > 0;
  const auto keepalive = Ms(options_.keepalive_timeout_s * 1e3);
  epoll_event events[64];
  for (;;) {
    // 5 ms: the granularity of the keep-alive sweep.
    int n = ::epoll_wait(epoll_fd_, events, 64, 5);
    std::vector<int> accepted;
    {
      std::unique_lock<std::mutex> lock(mu_);
      if (stop_) return;
      for (int i = 0; i < n; ++i) {
        int fd = events[i].data.fd;
        if (fd == listen_fd_ || fd == wake_fd_) continue;
        auto it = idle_.find(fd);
        if (it == idle_.end()) continue;
        ::epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, fd, nullptr);
        it->second->ready_at = Clock::now();
        ready_.push_back(std::move(it->second));
        idle_.erase(it);
        cv_.notify_all();
      }
      // The keep-alive timeout: close what has been idle too long.
      const Clock::time_point now = Clock::now();
      for (auto it = idle_.begin(); it != idle_.end();) {
        if (now - it->second->idle_since >= keepalive) {
          ::epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, it->first, nullptr);
          ::close(it->first);
          --open_;
          ++stats_.idle_closes;
          it = idle_.erase(it);
        } else {
          ++it;
        }
      }
    }
    for (;;) {
      int fd =
          ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
      if (fd < 0) break;  // EAGAIN: none pending (the listener is non-blocking)
      accepted.push_back(fd);
    }
    for (int fd : accepted) {
      // Workers read with blocking calls bounded by a receive timeout.
      ::fcntl(fd, F_SETFL, 0);
      timeval tv{2, 0};
      ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
      int nodelay = options_.tcp_nodelay ? 1 : 0;
      ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &nodelay, sizeof nodelay);
      std::unique_lock<std::mutex> lock(mu_);
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
        Conn* raw = conn.get();
        idle_[fd] = std::move(conn);
        epoll_event ev{};
        ev.events = EPOLLIN | EPOLLRDHUP;
        ev.data.fd = raw->fd;
        ::epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, fd, &ev);
      } else {
        live_fds_.insert(fd);
        conn_threads_.emplace_back([this, fd] { ServeConnection(fd); });
      }
    }
  }
}

void HttpServer::Impl::Work() {
  for (;;) {
    std::unique_ptr<Conn> conn;
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [this] { return stop_ || !ready_.empty(); });
      if (stop_) return;
      conn = std::move(ready_.front());
      ready_.pop_front();
      stats_.queue_wait_ns += NsSince(conn->ready_at);
    }
    size_t length = 0;
    ReadResult r = ReadRequest(conn->fd, conn->buffer, length);
    if (r != ReadResult::kRequest || !Handle(conn->fd, conn->buffer, length)) {
      if (r == ReadResult::kError) {
        std::unique_lock<std::mutex> lock(mu_);
        ++stats_.errors;
      }
      CloseConn(conn->fd);
      continue;
    }
    Rearm(std::move(conn));
  }
}

void HttpServer::Impl::Rearm(std::unique_ptr<Conn> conn) {
  std::unique_lock<std::mutex> lock(mu_);
  conn->idle_since = Clock::now();
  if (conn->buffer.find("\r\n\r\n") != std::string::npos) {
    // A pipelined request is already buffered: it is ready now.
    conn->ready_at = conn->idle_since;
    ready_.push_back(std::move(conn));
    cv_.notify_all();
    return;
  }
  int fd = conn->fd;
  idle_[fd] = std::move(conn);
  epoll_event ev{};
  ev.events = EPOLLIN | EPOLLRDHUP;
  ev.data.fd = fd;
  ::epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, fd, &ev);
}

void HttpServer::Impl::ServeConnection(int fd) {
  std::string buffer;
  const int timeout_ms =
      static_cast<int>(std::min(options_.keepalive_timeout_s * 1e3, 2e9));
  bool idle_close = false;
  for (;;) {
    if (buffer.find("\r\n\r\n") == std::string::npos) {
      pollfd p{fd, POLLIN, 0};
      int n = ::poll(&p, 1, timeout_ms);
      if (n == 0) {
        idle_close = true;
        break;
      }
      if (n < 0 && errno == EINTR) continue;
    }
    size_t length = 0;
    ReadResult r = ReadRequest(fd, buffer, length);
    if (r != ReadResult::kRequest || !Handle(fd, buffer, length)) {
      if (r == ReadResult::kError) {
        std::unique_lock<std::mutex> lock(mu_);
        ++stats_.errors;
      }
      break;
    }
  }
  std::unique_lock<std::mutex> lock(mu_);
  live_fds_.erase(fd);
  ::close(fd);
  --open_;
  if (idle_close) ++stats_.idle_closes;
}

ReadResult HttpServer::Impl::ReadRequest(int fd, std::string& buffer,
                                         size_t& length) {
  char chunk[4096];
  for (;;) {
    size_t end = buffer.find("\r\n\r\n");
    if (end != std::string::npos) {
      length = end + 4;
      return buffer.starts_with("GET ") ? ReadResult::kRequest
                                        : ReadResult::kError;
    }
    if (buffer.size() > kMaxHeaderBytes) return ReadResult::kError;
    ssize_t r = ::recv(fd, chunk, sizeof chunk, 0);
    if (r < 0 && errno == EINTR) continue;
    if (r == 0 && buffer.empty()) return ReadResult::kClosed;
    if (r <= 0)
      return buffer.empty() ? ReadResult::kClosed : ReadResult::kError;
    buffer.append(chunk, static_cast<size_t>(r));
  }
}

void HttpServer::Impl::WaitOutFreeze() {
  if (options_.freeze_at_s < 0 || options_.freeze_for_s <= 0) return;
  const Clock::time_point from = started_ + Ms(options_.freeze_at_s * 1e3);
  const Clock::time_point to = from + Ms(options_.freeze_for_s * 1e3);
  const Clock::time_point now = Clock::now();
  if (now < from || now >= to) return;
  // Wait on the mutex so Stop() ends a long freeze at once.
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait_until(lock, to, [this] { return stop_; });
}

bool HttpServer::Impl::Handle(int fd, std::string& buffer, size_t length) {
  std::string_view request(buffer.data(), length);
  const bool close =
      request.find("Connection: close") != std::string_view::npos ||
      request.find("connection: close") != std::string_view::npos;
  WaitOutFreeze();
  BurnCpu(options_.cpu_ms);
  if (options_.handler_ms > 0)
    std::this_thread::sleep_for(Ms(options_.handler_ms));
  if (options_.inner_pool > 0) {
    const Clock::time_point asked = Clock::now();
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock,
               [this] { return stop_ || inner_in_use_ < options_.inner_pool; });
      ++inner_in_use_;
      stats_.inner_wait_ns += NsSince(asked);
      ++stats_.inner_acquires;
    }
    std::this_thread::sleep_for(Ms(options_.inner_ms));
    std::unique_lock<std::mutex> lock(mu_);
    --inner_in_use_;
    cv_.notify_all();
  }
  buffer.erase(0, length);
  std::string head = absl::StrCat(
      "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: ",
      sizeof kBody - 1, "\r\nConnection: ", close ? "close" : "keep-alive",
      "\r\n\r\n");
  bool ok;
  if (options_.two_writes) {
    // Two small writes: without TCP_NODELAY the second waits for the ACK of
    // the first, which the client delays (the Nagle + delayed-ACK stall).
    ok = ::send(fd, head.data(), head.size(), MSG_NOSIGNAL) ==
             static_cast<ssize_t>(head.size()) &&
         ::send(fd, kBody, sizeof kBody - 1, MSG_NOSIGNAL) ==
             static_cast<ssize_t>(sizeof kBody - 1);
  } else {
    head += kBody;
    ok = ::send(fd, head.data(), head.size(), MSG_NOSIGNAL) ==
         static_cast<ssize_t>(head.size());
  }
  std::unique_lock<std::mutex> lock(mu_);
  if (ok) {
    ++stats_.responses;
  } else {
    ++stats_.errors;
  }
  return ok && !close;
}

absl::StatusOr<std::unique_ptr<HttpServer>> HttpServer::Start(
    const HttpServerOptions& options) {
  auto impl = std::make_unique<Impl>(options);
  if (absl::Status s = impl->Listen(); !s.ok()) return s;
  impl->StartThreads();
  return std::unique_ptr<HttpServer>(new HttpServer(std::move(impl)));
}

HttpServer::HttpServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
HttpServer::~HttpServer() = default;
void HttpServer::Stop() { impl_->Stop(); }
uint16_t HttpServer::port() const { return impl_->port(); }
HttpServerStats HttpServer::stats() const { return impl_->stats(); }

}  // namespace perflab::lab
