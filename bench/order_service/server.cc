#include "bench/order_service/server.h"

#include <sched.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/strings/str_cat.h"
#include "bench/http/http_front.h"
#include "bench/http/http_server.h"
#include "core/mutex.h"

namespace perflab::orders {
namespace {

// Workers of the stub: enough that the 5 ms calls never queue there.
constexpr int kStubThreads = 64;

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
  void Stop() ABSL_LOCKS_EXCLUDED(mu_);
  uint16_t port() const { return front_->port(); }
  OrdersServiceStats stats() const ABSL_LOCKS_EXCLUDED(mu_);

 private:
  http::HttpFrontResponse Serve(const http::HttpFrontRequest& request);

  const OrdersServiceOptions options_;
  std::unique_ptr<http::HttpFront> front_;
  std::unique_ptr<http::HttpServer> stub_;

  mutable core::Mutex mu_;
  // Written under mu_: before the front end serves, and by Stop() once the
  // front end has joined its threads, which therefore read it without mu_.
  std::unique_ptr<OrdersHandler> handler_;
  HandlerStats final_stats_ ABSL_GUARDED_BY(mu_);  // the handler's, at Stop()
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
  // Listen first: a port in use is reported before the dataset is opened.
  absl::StatusOr<std::unique_ptr<http::HttpFront>> front =
      http::HttpFront::Listen(
          {.host = o.host,
           .port = o.port,
           .threads = o.threads,
           .keepalive_timeout_s = std::numeric_limits<double>::infinity(),
           .max_connections = o.max_connections,
           .tcp_nodelay = true,
           .limits = o.limits});
  if (!front.ok()) return front.status();
  front_ = std::move(*front);

  http::HttpServerOptions stub;
  stub.threads = kStubThreads;
  stub.handler_ms = o.inventory_ms;
  stub.writes = http::ResponseWrites::kHeadersThenBody;
  stub.tcp_nodelay = o.nodelay;
  absl::StatusOr<std::unique_ptr<http::HttpServer>> started =
      http::HttpServer::Start(stub);
  if (!started.ok()) return started.status();
  stub_ = std::move(*started);
  HandlerOptions ho = o.handler;
  ho.inventory_port = stub_->port();
  absl::StatusOr<std::unique_ptr<OrdersHandler>> handler =
      OrdersHandler::Create(ho);
  if (!handler.ok()) return handler.status();
  {
    core::MutexLock lock(&mu_);
    handler_ = std::move(*handler);
  }
  return front_->Serve(
      [this](const http::HttpFrontRequest& r) { return Serve(r); });
}

void OrdersService::Impl::Stop() {
  // Joins every thread that calls the handler before freeing it.
  if (front_ != nullptr) front_->Stop();
  std::unique_ptr<OrdersHandler> handler;
  {
    core::MutexLock lock(&mu_);
    if (handler_ != nullptr) final_stats_ = handler_->stats();
    handler = std::move(handler_);
  }
  // The handler's inventory clients close before the stub stops; its
  // counters stay readable.
  handler.reset();
  if (stub_ != nullptr) stub_->Stop();
}

OrdersServiceStats OrdersService::Impl::stats() const {
  OrdersServiceStats s;
  if (stub_ != nullptr) s.inventory_connections = stub_->stats().connections;
  const http::HttpFrontStats f = front_->stats();
  s.connections = f.connections;
  s.open_connections = f.open_connections;
  s.refused_requests = f.errors;
  s.header_timeouts = f.header_timeouts;
  s.evicted = f.evicted;
  core::MutexLock lock(&mu_);
  s.handler = handler_ != nullptr ? handler_->stats() : final_stats_;
  return s;
}

http::HttpFrontResponse OrdersService::Impl::Serve(
    const http::HttpFrontRequest& request) {
  http::HttpFrontResponse r;
  // Methods are case-sensitive (RFC 9110 9.1): "get" is not GET.
  if (request.method != "GET") {
    r.status = 405;
    r.body = "{\"error\":\"only GET\"}";
    r.allow = "GET";
  } else {
    const int64_t inventory =
        request.target == "/stats" ? stub_->stats().connections : 0;
    HandlerResponse h = handler_->Handle(request.target, inventory);
    r.status = h.status;
    r.body = std::move(h.body);
  }
  return r;
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

}  // namespace perflab::orders
