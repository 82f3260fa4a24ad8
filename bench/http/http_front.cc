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
#include <iterator>
#include <map>
#include <set>
#include <system_error>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/strings/str_cat.h"
#include "bench/http/loopback.h"
#include "core/mutex.h"

namespace perflab::http {
namespace {

using Clock = std::chrono::steady_clock;
// How long a refused connection's input is drained before it is closed:
// closing with unread bytes would reset it and lose the answer.
constexpr auto kLinger = std::chrono::seconds(2);
// A worker's blocking write to a client that does not read.
constexpr timeval kSendTimeout{10, 0};
constexpr size_t kChunk = size_t{16} * 1024;

int64_t NsSince(Clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - t)
      .count();
}

Clock::duration Seconds(double s) {
  return std::isfinite(s) ? std::chrono::duration_cast<Clock::duration>(
                                std::chrono::duration<double>(s))
                          : Clock::duration::max();
}

// Milliseconds to `deadline` for poll(): at least 0, -1 for never.
int PollMs(Clock::time_point deadline) {
  if (deadline == Clock::time_point::max()) return -1;
  const auto ms =
      std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now())
          .count();
  return static_cast<int>(std::clamp<int64_t>(ms, 0, 1'000'000'000));
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
    case 408:
      return "Request Timeout";
    case 414:
      return "URI Too Long";
    case 431:
      return "Request Header Fields Too Large";
    case 501:
      return "Not Implemented";
    case 502:
      return "Bad Gateway";
    case 503:
      return "Service Unavailable";
    case 505:
      return "HTTP Version Not Supported";
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

// The front end's own answer to a refused request, then no more output: a
// small write that fits the socket buffer, so it never blocks.
void SendRefusal(int fd, int status, std::string_view why) {
  const std::string body = std::string(why) + "\n";
  const std::string out = absl::StrCat(
      "HTTP/1.1 ", status, " ", Reason(status),
      "\r\nContent-Type: text/plain\r\nContent-Length: ", body.size(),
      "\r\nConnection: close\r\n\r\n", body);
  (void)!::send(fd, out.data(), out.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
  ::shutdown(fd, SHUT_WR);
}

// Reads what is there without blocking, into `buffer` (or nowhere when
// `discard`), until none is left or `cap` bytes are buffered. False: the
// peer closed or the socket failed.
bool ReadAvailable(int fd, std::string& buffer, size_t cap, bool discard) {
  char chunk[kChunk];
  while (discard || buffer.size() < cap) {
    const ssize_t r = ::recv(fd, chunk, sizeof chunk, MSG_DONTWAIT);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return errno == EAGAIN || errno == EWOULDBLOCK;
    if (r == 0) return false;
    if (!discard) buffer.append(chunk, static_cast<size_t>(r));
  }
  return true;
}

// The most a connection buffers: one whole request and a pipelined start.
size_t BufferCap(const HttpLimits& l) {
  return l.max_request_line_bytes + l.max_header_bytes + l.max_body_bytes +
         kChunk;
}

struct Conn {
  int fd = -1;
  std::string buffer;            // bytes read and not yet served
  Clock::time_point idle_since;  // its last activity (a read, an answer)
  Clock::time_point started;     // the buffered partial request's first byte
  Clock::time_point ready_at;    // when it joined the worker queue
  bool peer_closed = false;      // EOF after a whole request: close after it
  bool draining = false;         // refused: input discarded until EOF
  Clock::time_point drain_until;

  // Since when it has waited without a request to serve: an idle one since
  // its last activity, a half-sent request since its first byte (a trickle
  // of bytes does not make it younger).
  Clock::time_point waiting_since() const {
    return buffer.empty() ? idle_since : started;
  }
};

// Virtual mode: a connection thread waiting in poll for a request to arrive
// (idle) or to be completed (partial).
struct Waiting {
  Clock::time_point since;
  bool partial = false;
};

}  // namespace

class HttpFront::Impl {
 public:
  explicit Impl(HttpFrontOptions o) : options_(std::move(o)) {}
  ~Impl() { Stop(); }

  absl::Status Listen();
  absl::Status Serve(HttpFrontHandler handler);
  void Stop() ABSL_LOCKS_EXCLUDED(mu_);
  uint16_t port() const { return port_; }
  HttpFrontStats stats() const ABSL_LOCKS_EXCLUDED(mu_) {
    core::MutexLock lock(&mu_);
    HttpFrontStats s = stats_;
    s.open_connections = open_;
    for (const auto& [fd, w] : idle_threads_) {
      ++(w.partial ? s.partial_connections : s.idle_connections);
    }
    for (const auto& [fd, c] : idle_) {
      if (c->draining) continue;
      ++(c->buffer.empty() ? s.idle_connections : s.partial_connections);
    }
    return s;
  }

 private:
  using IdleMap = std::map<int, std::unique_ptr<Conn>>;

  void Poll() ABSL_LOCKS_EXCLUDED(mu_);
  void Accept(int fd) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Fixed pool: reads a watched connection's input and routes it.
  void OnReadable(IdleMap::iterator it) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Fixed pool: a whole request goes to the workers, a bad one is refused,
  // a partial one stays watched.
  void Route(IdleMap::iterator it) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void Refuse(Conn& c, int status, std::string_view why)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void SweepTimeouts() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void CloseIdle(IdleMap::iterator it) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // At the cap: closes the connection that has waited longest without a
  // request to serve (idle or half-sent); false if every one is served.
  bool Evict() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void Work() ABSL_LOCKS_EXCLUDED(mu_);
  // Virtual mode: a thread's connections (one, then any handed over).
  void ServeConnection(int fd, int64_t id) ABSL_LOCKS_EXCLUDED(mu_);
  void ServeSocket(int fd) ABSL_LOCKS_EXCLUDED(mu_);
  // Answers the whole request at the start of `buffer` and removes it;
  // false: close the connection.
  bool ServeOne(int fd, std::string& buffer, bool peer_closed)
      ABSL_LOCKS_EXCLUDED(mu_);
  void Rearm(std::unique_ptr<Conn> conn) ABSL_LOCKS_EXCLUDED(mu_);
  void Watch(int fd) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void CloseConn(int fd) ABSL_LOCKS_EXCLUDED(mu_);

  const HttpFrontOptions options_;
  const Clock::duration keepalive_ = Seconds(options_.keepalive_timeout_s);
  const Clock::duration header_timeout_ =
      Seconds(options_.limits.header_timeout_s);
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
  // Connections watched by epoll, by fd (fixed-pool mode): idle, partial or
  // draining.
  IdleMap idle_ ABSL_GUARDED_BY(mu_);
  // Connections with a request ready, oldest first (fixed-pool mode).
  std::deque<std::unique_ptr<Conn>> ready_ ABSL_GUARDED_BY(mu_);
  // Virtual mode: sockets to shut down on Stop(), the ones waiting for a
  // request (the candidates for eviction), sockets admitted by an eviction
  // waiting for its thread, the threads by id, and the ids of those that
  // ended (the poller joins them).
  std::set<int> live_fds_ ABSL_GUARDED_BY(mu_);
  std::map<int, Waiting> idle_threads_ ABSL_GUARDED_BY(mu_);
  std::deque<int> handed_over_ ABSL_GUARDED_BY(mu_);
  std::map<int64_t, std::thread> conn_threads_ ABSL_GUARDED_BY(mu_);
  std::vector<int64_t> finished_ ABSL_GUARDED_BY(mu_);
  int64_t next_thread_id_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t threads_alive_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t open_ ABSL_GUARDED_BY(mu_) = 0;
  HttpFrontStats stats_ ABSL_GUARDED_BY(mu_);
};

absl::Status HttpFront::Impl::Listen() {
  const HttpFrontOptions& o = options_;
  const HttpLimits& l = o.limits;
  if (o.threads < 0 || o.max_connections < 1 ||
      std::isnan(o.keepalive_timeout_s) || o.keepalive_timeout_s < 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "threads = ", o.threads, ", max_connections = ", o.max_connections,
        ", keepalive_timeout_s = ", o.keepalive_timeout_s,
        ": accepted threads >= 0, max_connections >= 1, a timeout >= 0"));
  }
  if (l.max_request_line_bytes < 16 || l.max_header_bytes < 16 ||
      l.max_headers < 1 || l.max_virtual_threads < 1 ||
      !std::isfinite(l.header_timeout_s) || l.header_timeout_s <= 0 ||
      l.max_body_bytes > (size_t{1} << 30)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "limits: ", DescribeLimits(l),
        "; accepted: lines and headers >= 16 B, >= 1 header, >= 1 thread, "
        "a finite timeout > 0, a body <= 1 GiB"));
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

absl::Status HttpFront::Impl::Serve(HttpFrontHandler handler) {
  handler_ = std::move(handler);
  // A thread the system refuses (ulimit -u, memory) is one error, not an
  // abort: what was started is stopped and joined.
  try {
    poller_ = std::thread([this] { Poll(); });
    for (int i = 0; i < options_.threads; ++i) {
      workers_.emplace_back([this] { Work(); });
    }
  } catch (const std::system_error& e) {
    const size_t started = workers_.size();
    Stop();
    return absl::InvalidArgumentError(absl::StrCat(
        "cannot start a server thread (", started, " of ", options_.threads,
        " workers started): ", e.what(),
        "; accepted: a process limit (ulimit -u) and memory that allow the "
        "poller and every worker"));
  }
  return absl::OkStatus();
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
  for (int fd : handed_over_) ::close(fd);
  open_ -=
      static_cast<int64_t>(idle_.size() + ready_.size() + handed_over_.size());
  idle_.clear();
  ready_.clear();
  handed_over_.clear();
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

void HttpFront::Impl::CloseIdle(IdleMap::iterator it) {
  ::epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, it->first, nullptr);
  ::close(it->first);
  --open_;
  idle_.erase(it);
}

void HttpFront::Impl::Refuse(Conn& c, int status, std::string_view why) {
  SendRefusal(c.fd, status, why);
  c.buffer.clear();
  c.draining = true;
  c.drain_until = Clock::now() + kLinger;
  ++(status == 408 ? stats_.header_timeouts : stats_.errors);
}

void HttpFront::Impl::Route(IdleMap::iterator it) {
  Conn& c = *it->second;
  const ParsedRequest p = ParseRequest(c.buffer, options_.limits);
  if (p.state == ParseState::kError) {
    Refuse(c, p.status, p.error);
  } else if (p.state == ParseState::kComplete) {
    ::epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, it->first, nullptr);
    c.ready_at = Clock::now();
    ready_.push_back(std::move(it->second));
    idle_.erase(it);
    cv_.Signal();
  } else if (c.peer_closed) {
    if (!c.buffer.empty()) ++stats_.errors;  // ended halfway
    CloseIdle(it);
  }
}

void HttpFront::Impl::OnReadable(IdleMap::iterator it) {
  Conn& c = *it->second;
  const bool had_bytes = !c.buffer.empty();
  const bool open =
      ReadAvailable(c.fd, c.buffer, BufferCap(options_.limits), c.draining);
  if (c.draining) {
    if (!open) CloseIdle(it);
    return;
  }
  c.idle_since = Clock::now();
  if (!had_bytes) c.started = c.idle_since;
  c.peer_closed = !open;
  Route(it);
}

void HttpFront::Impl::SweepTimeouts() {
  const Clock::time_point now = Clock::now();
  for (auto it = idle_.begin(); it != idle_.end();) {
    auto next = std::next(it);
    Conn& c = *it->second;
    if (c.draining) {
      if (now >= c.drain_until) CloseIdle(it);
    } else if (!c.buffer.empty()) {
      if (now - c.started >= header_timeout_) {
        Refuse(c, 408, "request not received in time");
      }
    } else if (now - c.idle_since >= keepalive_) {
      CloseIdle(it);
      ++stats_.idle_closes;
    }
    it = next;
  }
}

bool HttpFront::Impl::Evict() {
  if (options_.threads == 0) {
    auto oldest = std::min_element(idle_threads_.begin(), idle_threads_.end(),
                                   [](const auto& a, const auto& b) {
                                     return a.second.since < b.second.since;
                                   });
    if (oldest == idle_threads_.end()) return false;
    ::shutdown(oldest->first, SHUT_RDWR);  // its thread closes it
    idle_threads_.erase(oldest);
    ++stats_.evicted;
    return true;
  }
  // A refused connection being drained first, then the one waiting longest,
  // idle or half-sent alike: a half-sent request kept at the cap would lock
  // new clients out until its header timeout.
  auto victim = idle_.end();
  for (auto it = idle_.begin(); it != idle_.end(); ++it) {
    if (it->second->draining) {
      victim = it;
      break;
    }
    if (victim == idle_.end() ||
        it->second->waiting_since() < victim->second->waiting_since()) {
      victim = it;
    }
  }
  if (victim == idle_.end()) return false;
  CloseIdle(victim);
  ++stats_.evicted;
  return true;
}

void HttpFront::Impl::Accept(int fd) {
  const bool pooled = options_.threads > 0;
  const int64_t cap = pooled ? options_.max_connections
                             : std::min(options_.max_connections,
                                        options_.limits.max_virtual_threads);
  const int64_t in_use = pooled ? open_ : threads_alive_;
  // In virtual mode an evicted thread takes the new socket over when it has
  // closed its own, so the thread count never passes the cap.
  const bool hand_over = in_use >= cap;
  if (hand_over && !Evict()) {
    ::close(fd);
    ++stats_.refused;
    return;
  }
  ++open_;
  ++stats_.connections;
  if (pooled) {
    auto conn = std::make_unique<Conn>();
    conn->fd = fd;
    conn->idle_since = Clock::now();
    idle_[fd] = std::move(conn);
    Watch(fd);
    return;
  }
  if (hand_over) {
    handed_over_.push_back(fd);
    return;
  }
  live_fds_.insert(fd);
  const int64_t id = next_thread_id_++;
  ++threads_alive_;
  stats_.peak_threads = std::max(stats_.peak_threads, threads_alive_);
  try {
    conn_threads_[id] =
        std::thread([this, fd, id] { ServeConnection(fd, id); });
  } catch (const std::system_error&) {
    // No thread for it (ulimit -u, memory): refused like a connection
    // beyond the cap, and the server goes on.
    conn_threads_.erase(id);
    live_fds_.erase(fd);
    --threads_alive_;
    --open_;
    --stats_.connections;
    ++stats_.refused;
    ::close(fd);
  }
}

void HttpFront::Impl::Poll() {
  epoll_event events[64];
  for (;;) {
    // 5 ms: the granularity of the header, keep-alive and drain timeouts.
    const int n = ::epoll_wait(epoll_fd_, events, 64, 5);
    std::vector<std::thread> done;
    {
      core::MutexLock lock(&mu_);
      if (stop_) return;
      for (int i = 0; i < n; ++i) {
        auto it = idle_.find(events[i].data.fd);
        if (it != idle_.end()) OnReadable(it);  // else the listener, wake-up
      }
      SweepTimeouts();
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
      // Blocking writes for the workers (bounded); every read is
      // non-blocking (MSG_DONTWAIT) and bounded by the poller's deadlines.
      ::fcntl(fd, F_SETFL, 0);
      ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &kSendTimeout,
                   sizeof kSendTimeout);
      const int nodelay = options_.tcp_nodelay ? 1 : 0;
      ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &nodelay, sizeof nodelay);
      core::MutexLock lock(&mu_);
      Accept(fd);
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
    if (!ServeOne(conn->fd, conn->buffer, conn->peer_closed)) {
      CloseConn(conn->fd);
      continue;
    }
    Rearm(std::move(conn));
  }
}

void HttpFront::Impl::Rearm(std::unique_ptr<Conn> conn) {
  core::MutexLock lock(&mu_);
  // Bytes already buffered start the next request now (pipelining).
  conn->idle_since = conn->started = Clock::now();
  const int fd = conn->fd;
  auto [it, inserted] = idle_.emplace(fd, std::move(conn));
  Watch(fd);
  if (!it->second->buffer.empty()) Route(it);
}

void HttpFront::Impl::ServeConnection(int fd, int64_t id) {
  for (;;) {
    ServeSocket(fd);
    core::MutexLock lock(&mu_);
    live_fds_.erase(fd);
    idle_threads_.erase(fd);
    ::close(fd);
    --open_;
    if (stop_ || handed_over_.empty()) break;
    fd = handed_over_.front();  // admitted by evicting this thread's socket
    handed_over_.pop_front();
    live_fds_.insert(fd);
  }
  core::MutexLock lock(&mu_);
  --threads_alive_;
  finished_.push_back(id);
}

void HttpFront::Impl::ServeSocket(int fd) {
  std::string buffer;
  Clock::time_point started;
  bool peer_closed = false;
  const size_t cap = BufferCap(options_.limits);
  for (;;) {
    {
      core::MutexLock lock(&mu_);
      if (stop_) return;
    }
    const ParsedRequest p = ParseRequest(buffer, options_.limits);
    if (p.state == ParseState::kComplete) {
      if (!ServeOne(fd, buffer, peer_closed)) return;
      started = Clock::now();
      continue;
    }
    int status = p.status;
    std::string_view why = p.error;
    if (p.state == ParseState::kIncomplete) {
      if (peer_closed) {
        if (buffer.empty()) return;
        core::MutexLock lock(&mu_);
        ++stats_.errors;  // ended halfway
        return;
      }
      const bool idle = buffer.empty();
      const Clock::time_point now = Clock::now();
      {
        core::MutexLock lock(&mu_);
        idle_threads_[fd] = Waiting{idle ? now : started, !idle};
      }
      const Clock::duration limit = idle ? keepalive_ : header_timeout_;
      const Clock::time_point from = idle ? now : started;
      const Clock::time_point deadline = limit == Clock::duration::max()
                                             ? Clock::time_point::max()
                                             : from + limit;
      pollfd pfd{fd, POLLIN, 0};
      const int n = ::poll(&pfd, 1, PollMs(deadline));
      const int poll_errno = errno;
      {
        core::MutexLock lock(&mu_);
        // Gone: evicted at the cap (its socket is shut down), so the thread
        // closes it without counting an error.
        if (idle_threads_.erase(fd) == 0) return;
        if (n == 0 && idle) ++stats_.idle_closes;
      }
      if (n < 0 && poll_errno == EINTR) continue;
      if (n == 0 && idle) return;
      if (n != 0) {
        peer_closed = !ReadAvailable(fd, buffer, cap, false);
        if (idle) started = Clock::now();
        continue;
      }
      status = 408;
      why = "request not received in time";
    }
    {
      // Counted before the answer is sent: a client that has read it finds
      // it counted.
      core::MutexLock lock(&mu_);
      ++(status == 408 ? stats_.header_timeouts : stats_.errors);
    }
    SendRefusal(fd, status, why);
    // Drains the input, so the close does not reset the answer away.
    const Clock::time_point until = Clock::now() + kLinger;
    std::string sink;
    for (;;) {
      pollfd pfd{fd, POLLIN, 0};
      const int n = ::poll(&pfd, 1, PollMs(until));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0 || !ReadAvailable(fd, sink, 0, true)) return;
    }
  }
}

bool HttpFront::Impl::ServeOne(int fd, std::string& buffer, bool peer_closed) {
  const ParsedRequest p = ParseRequest(buffer, options_.limits);
  const std::string_view all(buffer);
  const HttpFrontRequest request{
      .head = all.substr(0, p.head_length),
      .method = p.method,
      .target = p.target,
      .body = all.substr(p.head_length, p.body_length)};
  const HttpFrontResponse r = handler_(request);
  const bool close = !p.keep_alive || peer_closed;
  bool ok = r.status != 0;
  if (ok) {
    std::string head = absl::StrCat(
        "HTTP/1.1 ", r.status, " ", Reason(r.status),
        "\r\nContent-Type: ", r.content_type,
        "\r\nContent-Length: ", r.body.size(),
        r.allow.empty() ? "" : "\r\nAllow: ", r.allow,
        "\r\nConnection: ", close ? "close" : "keep-alive", "\r\n\r\n");
    // A HEAD answer states the body's length and sends none.
    const std::string_view body =
        p.method == "HEAD" ? std::string_view() : std::string_view(r.body);
    if (r.writes == ResponseWrites::kHeadersThenBody) {
      ok = SendAll(fd, head) && SendAll(fd, body);
    } else {
      head += body;
      ok = SendAll(fd, head);
    }
  }
  buffer.erase(0, p.length());
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
absl::Status HttpFront::Serve(HttpFrontHandler handler) {
  return impl_->Serve(std::move(handler));
}
void HttpFront::Stop() { impl_->Stop(); }
uint16_t HttpFront::port() const { return impl_->port(); }
HttpFrontStats HttpFront::stats() const { return impl_->stats(); }

}  // namespace perflab::http
