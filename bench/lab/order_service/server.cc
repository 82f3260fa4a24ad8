#include "bench/lab/order_service/server.h"

#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sched.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <map>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "bench/lab/http_server.h"
#include "bench/lab/loopback.h"

namespace perflab::lab {
namespace {

constexpr size_t kMaxHeaderBytes = size_t{16} * 1024;
// Workers of the stub: enough that the 5 ms calls never queue there.
constexpr int kStubThreads = 64;

struct Conn {
  int fd = -1;
  std::string buffer;  // bytes read past the last request
};

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

bool SendAll(int fd, const std::string& data) {
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

absl::Status Pin(int count, bool last) {
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  if (::sched_getaffinity(0, sizeof allowed, &allowed) != 0) {
    return absl::InternalError(
        absl::StrCat("sched_getaffinity: ", std::strerror(errno)));
  }
  std::vector<int> cpus;
  for (int c = 0; c < CPU_SETSIZE; ++c) {
    if (CPU_ISSET(c, &allowed)) cpus.push_back(c);
  }
  if (count < 1 || count > static_cast<int>(cpus.size())) {
    return absl::InvalidArgumentError(
        absl::StrCat("--cores ", count, ": accepted 1..", cpus.size(),
                     " (the CPUs this process may use)"));
  }
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int i = 0; i < count; ++i) {
    CPU_SET(last ? cpus[cpus.size() - 1 - static_cast<size_t>(i)]
                 : cpus[static_cast<size_t>(i)],
            &set);
  }
  if (::sched_setaffinity(0, sizeof set, &set) != 0) {
    return absl::InternalError(
        absl::StrCat("sched_setaffinity: ", std::strerror(errno)));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status PinToLastCpus(int count) { return Pin(count, true); }
absl::Status PinToFirstCpus(int count) { return Pin(count, false); }

class OrdersService::Impl {
 public:
  explicit Impl(OrdersServiceOptions o) : options_(std::move(o)) {}
  ~Impl() { Stop(); }

  absl::Status Start();
  void Stop();
  uint16_t port() const { return port_; }
  OrdersServiceStats stats() const;

 private:
  void Poll();
  void Work();
  void ServeConnection(int fd, int64_t id);
  // Reads up to one whole request head into `buffer`; its length, or 0 when
  // the peer closed or the bytes are not a request.
  size_t ReadRequest(int fd, std::string& buffer);
  // Answers the request at the front of `buffer`; false: close the socket.
  bool Serve(int fd, std::string& buffer, size_t length);
  void Rearm(std::unique_ptr<Conn> conn);
  void Close(int fd);

  const OrdersServiceOptions options_;
  std::unique_ptr<HttpServer> stub_;
  std::unique_ptr<OrdersHandler> handler_;
  HandlerStats final_stats_;  // the handler's, once Stop() has freed it
  int listen_fd_ = -1, epoll_fd_ = -1, wake_fd_ = -1;
  uint16_t port_ = 0;
  std::thread poller_;
  std::vector<std::thread> workers_;

  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false, stopped_ = false;                      // guarded by mu_
  std::map<int, std::unique_ptr<Conn>> idle_;                // guarded by mu_
  std::deque<std::unique_ptr<Conn>> ready_;                  // guarded by mu_
  std::set<int> live_fds_;                                   // guarded by mu_
  std::map<int64_t, std::thread> conn_threads_;              // guarded by mu_
  std::vector<int64_t> finished_;                            // guarded by mu_
  int64_t next_thread_id_ = 0, connections_ = 0, open_ = 0;  // mu_
};

absl::Status OrdersService::Impl::Start() {
  const OrdersServiceOptions& o = options_;
  if (o.threads < 0 || o.threads > 1024) {
    return absl::InvalidArgumentError(
        absl::StrCat("threads = ", o.threads,
                     ": accepted 1..1024, or 0 for one per connection"));
  }
  if (!std::isfinite(o.inventory_ms) || o.inventory_ms < 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "inventory_ms = ", o.inventory_ms, ": accepted a finite number >= 0"));
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
    if (e == EADDRINUSE) {
      return absl::InvalidArgumentError(
          absl::StrCat("port ", o.port, " on ", o.host,
                       " is in use; accepted: a free port, or 0 for any"));
    }
    return absl::InternalError(
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

  HttpServerOptions stub;
  stub.threads = kStubThreads;
  stub.handler_ms = o.inventory_ms;
  stub.two_writes = true;
  stub.tcp_nodelay = o.nodelay;
  absl::StatusOr<std::unique_ptr<HttpServer>> started = HttpServer::Start(stub);
  if (!started.ok()) return started.status();
  stub_ = std::move(*started);
  HandlerOptions ho = o.handler;
  ho.inventory_port = stub_->port();
  absl::StatusOr<std::unique_ptr<OrdersHandler>> handler =
      OrdersHandler::Create(ho);
  if (!handler.ok()) return handler.status();
  handler_ = std::move(*handler);

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
  poller_ = std::thread([this] { Poll(); });
  for (int i = 0; i < o.threads; ++i) {
    workers_.emplace_back([this] { Work(); });
  }
  return absl::OkStatus();
}

void OrdersService::Impl::Stop() {
  {
    std::unique_lock<std::mutex> lock(mu_);
    if (stopped_) return;
    stopped_ = stop_ = true;
    cv_.notify_all();
    // Wakes connection threads blocked in recv.
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
    std::unique_lock<std::mutex> lock(mu_);
    threads.swap(conn_threads_);
  }
  for (auto& [id, t] : threads) t.join();
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
  // The handler's inventory clients close before the stub stops; its
  // counters stay readable.
  if (handler_ != nullptr) final_stats_ = handler_->stats();
  std::unique_ptr<OrdersHandler> handler = std::move(handler_);
  lock.unlock();
  handler.reset();
  if (stub_ != nullptr) stub_->Stop();
}

OrdersServiceStats OrdersService::Impl::stats() const {
  OrdersServiceStats s;
  if (stub_ != nullptr) s.inventory_connections = stub_->stats().connections;
  std::unique_lock<std::mutex> lock(mu_);
  s.handler = handler_ != nullptr ? handler_->stats() : final_stats_;
  s.connections = connections_;
  s.open_connections = open_;
  return s;
}

void OrdersService::Impl::Close(int fd) {
  ::close(fd);
  std::unique_lock<std::mutex> lock(mu_);
  --open_;
}

void OrdersService::Impl::Poll() {
  const bool pooled = options_.threads > 0;
  epoll_event events[64];
  for (;;) {
    const int n = ::epoll_wait(epoll_fd_, events, 64, 50);
    std::vector<std::thread> done;
    {
      std::unique_lock<std::mutex> lock(mu_);
      if (stop_) return;
      for (int i = 0; i < n; ++i) {
        const int fd = events[i].data.fd;
        auto it = idle_.find(fd);
        if (it == idle_.end()) continue;
        ::epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, fd, nullptr);
        ready_.push_back(std::move(it->second));
        idle_.erase(it);
        cv_.notify_one();
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
      if (fd < 0) break;  // EAGAIN: none pending
      // Blocking reads bounded by a receive timeout: a client that sends
      // half a request cannot hold a worker for ever.
      ::fcntl(fd, F_SETFL, 0);
      timeval tv{2, 0};
      ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
      int one = 1;
      ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
      std::unique_lock<std::mutex> lock(mu_);
      ++open_;
      ++connections_;
      if (pooled) {
        auto conn = std::make_unique<Conn>();
        conn->fd = fd;
        idle_[fd] = std::move(conn);
        epoll_event ev{};
        ev.events = EPOLLIN | EPOLLRDHUP;
        ev.data.fd = fd;
        ::epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, fd, &ev);
      } else {
        live_fds_.insert(fd);
        const int64_t id = next_thread_id_++;
        conn_threads_[id] =
            std::thread([this, fd, id] { ServeConnection(fd, id); });
      }
    }
  }
}

void OrdersService::Impl::Work() {
  for (;;) {
    std::unique_ptr<Conn> conn;
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [this] { return stop_ || !ready_.empty(); });
      if (stop_) return;
      conn = std::move(ready_.front());
      ready_.pop_front();
    }
    const size_t length = ReadRequest(conn->fd, conn->buffer);
    if (length == 0 || !Serve(conn->fd, conn->buffer, length)) {
      Close(conn->fd);
      continue;
    }
    Rearm(std::move(conn));
  }
}

void OrdersService::Impl::Rearm(std::unique_ptr<Conn> conn) {
  std::unique_lock<std::mutex> lock(mu_);
  if (conn->buffer.find("\r\n\r\n") != std::string::npos) {
    ready_.push_back(std::move(conn));  // a pipelined request: ready now
    cv_.notify_one();
    return;
  }
  const int fd = conn->fd;
  idle_[fd] = std::move(conn);
  epoll_event ev{};
  ev.events = EPOLLIN | EPOLLRDHUP;
  ev.data.fd = fd;
  ::epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, fd, &ev);
}

void OrdersService::Impl::ServeConnection(int fd, int64_t id) {
  std::string buffer;
  for (;;) {
    const size_t length = ReadRequest(fd, buffer);
    if (length == 0 || !Serve(fd, buffer, length)) break;
    std::unique_lock<std::mutex> lock(mu_);
    if (stop_) break;
  }
  std::unique_lock<std::mutex> lock(mu_);
  live_fds_.erase(fd);
  ::close(fd);
  --open_;
  finished_.push_back(id);
}

size_t OrdersService::Impl::ReadRequest(int fd, std::string& buffer) {
  char chunk[4096];
  for (;;) {
    const size_t end = buffer.find("\r\n\r\n");
    if (end != std::string::npos) return end + 4;
    if (buffer.size() > kMaxHeaderBytes) return 0;
    const ssize_t r = ::recv(fd, chunk, sizeof chunk, 0);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return 0;  // closed, reset, timed out or shut down
    buffer.append(chunk, static_cast<size_t>(r));
  }
}

bool OrdersService::Impl::Serve(int fd, std::string& buffer, size_t length) {
  const std::string raw = buffer.substr(0, length);
  buffer.erase(0, length);
  const std::string head = absl::AsciiStrToLower(raw);
  const bool close = head.find("\r\nconnection: close") != std::string::npos;
  HandlerResponse r;
  // "GET <target> HTTP/1.x": anything else is a 400 (or 405 for a method).
  const size_t sp1 = head.find(' ');
  const size_t sp2 = sp1 == std::string::npos ? sp1 : head.find(' ', sp1 + 1);
  const size_t eol = head.find("\r\n");
  if (sp1 == std::string::npos || sp2 == std::string::npos || sp2 > eol ||
      !std::string_view(head)
           .substr(sp2 + 1, eol - sp2 - 1)
           .starts_with("http/1.")) {
    r = {400, "{\"error\":\"malformed request line\"}"};
  } else if (head.substr(0, sp1) != "get") {
    r = {405, "{\"error\":\"only GET\"}"};
  } else {
    // The target as sent (paths are case-sensitive): same offsets.
    const std::string_view target =
        std::string_view(raw).substr(sp1 + 1, sp2 - sp1 - 1);
    const int64_t inventory =
        target == "/stats" ? stub_->stats().connections : 0;
    r = handler_->Handle(target, inventory);
  }
  std::string out = absl::StrCat(
      "HTTP/1.1 ", r.status, " ", Reason(r.status),
      "\r\nContent-Type: application/json\r\nContent-Length: ", r.body.size(),
      "\r\nConnection: ", close ? "close" : "keep-alive", "\r\n\r\n", r.body);
  return SendAll(fd, out) && !close;
}

absl::StatusOr<std::unique_ptr<OrdersService>> OrdersService::Start(
    const OrdersServiceOptions& options) {
  auto impl = std::make_unique<Impl>(options);
  if (absl::Status s = impl->Start(); !s.ok()) return s;
  return std::unique_ptr<OrdersService>(new OrdersService(std::move(impl)));
}

OrdersService::OrdersService(std::unique_ptr<Impl> impl)
    : impl_(std::move(impl)) {}
OrdersService::~OrdersService() = default;
void OrdersService::Stop() { impl_->Stop(); }
uint16_t OrdersService::port() const { return impl_->port(); }
OrdersServiceStats OrdersService::stats() const { return impl_->stats(); }

}  // namespace perflab::lab
