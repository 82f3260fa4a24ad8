#include "bench/http/http_server.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <string>
#include <thread>
#include <utility>

#include "absl/base/thread_annotations.h"
#include "absl/strings/str_cat.h"
#include "bench/http/http_front.h"
#include "core/cpu_time.h"
#include "core/mutex.h"

namespace perflab::http {
namespace {

using Clock = std::chrono::steady_clock;
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
  const double end = core::ThreadCpuSeconds() + ms * 1e-3;
  volatile uint64_t sink = 0;
  while (core::ThreadCpuSeconds() < end) {
    for (int i = 0; i < 1000; ++i) sink = sink + static_cast<uint64_t>(i);
  }
}

absl::Status CheckTime(const char* name, double v, bool allow_negative) {
  if (!std::isfinite(v) || (!allow_negative && v < 0)) {
    return absl::InvalidArgumentError(
        absl::StrCat(name, " = ", v, ": accepted a finite number >= 0"));
  }
  return absl::OkStatus();
}

}  // namespace

class HttpServer::Impl {
 public:
  explicit Impl(HttpServerOptions o) : options_(std::move(o)) {}
  ~Impl() { Stop(); }

  absl::Status Start();
  void Stop() ABSL_LOCKS_EXCLUDED(mu_);
  uint16_t port() const { return front_->port(); }
  HttpServerStats stats() const ABSL_LOCKS_EXCLUDED(mu_);

 private:
  HttpFrontResponse Handle(const HttpFrontRequest& request)
      ABSL_LOCKS_EXCLUDED(mu_);
  void WaitOutFreeze() ABSL_LOCKS_EXCLUDED(mu_);

  const HttpServerOptions options_;
  std::unique_ptr<HttpFront> front_;
  Clock::time_point started_;  // set before the front end's threads start

  // The handler's own waits (the freeze, the inner pool); the front end has
  // its own lock.
  mutable core::Mutex mu_;
  core::CondVar cv_;  // a permit released, or stop
  bool stop_ ABSL_GUARDED_BY(mu_) = false;
  int inner_in_use_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t inner_wait_ns_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t inner_acquires_ ABSL_GUARDED_BY(mu_) = 0;
  // Counted without the lock: every GET passes here, and a lock taken twice
  // per request would be a cost of the server the benchmarks measure.
  std::atomic<int64_t> in_handler_{0};
  std::atomic<int64_t> peak_in_handler_{0};
};

absl::Status HttpServer::Impl::Start() {
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
  absl::StatusOr<std::unique_ptr<HttpFront>> front =
      HttpFront::Listen({.host = o.host,
                         .port = o.port,
                         .threads = o.threads,
                         .keepalive_timeout_s = o.keepalive_timeout_s,
                         .max_connections = o.max_connections,
                         .tcp_nodelay = o.tcp_nodelay,
                         .limits = o.limits});
  if (!front.ok()) return front.status();
  front_ = std::move(*front);
  started_ = Clock::now();
  return front_->Serve([this](const HttpFrontRequest& r) { return Handle(r); });
}

void HttpServer::Impl::Stop() {
  {
    // Ends a freeze and an inner-pool wait at once.
    core::MutexLock lock(&mu_);
    stop_ = true;
    cv_.SignalAll();
  }
  if (front_ != nullptr) front_->Stop();
}

HttpServerStats HttpServer::Impl::stats() const {
  const HttpFrontStats f = front_->stats();
  HttpServerStats s{.responses = f.responses,
                    .connections = f.connections,
                    .idle_closes = f.idle_closes,
                    .refused = f.refused,
                    .evicted = f.evicted,
                    .header_timeouts = f.header_timeouts,
                    .errors = f.errors,
                    .queue_wait_ns = f.queue_wait_ns,
                    .open_connections = f.open_connections};
  s.peak_in_handler = peak_in_handler_.load(std::memory_order_relaxed);
  core::MutexLock lock(&mu_);
  s.inner_wait_ns = inner_wait_ns_;
  s.inner_acquires = inner_acquires_;
  return s;
}

void HttpServer::Impl::WaitOutFreeze() {
  if (options_.freeze_at_s < 0 || options_.freeze_for_s <= 0) return;
  const Clock::time_point from = started_ + Ms(options_.freeze_at_s * 1e3);
  const Clock::time_point to = from + Ms(options_.freeze_for_s * 1e3);
  const Clock::time_point now = Clock::now();
  if (now < from || now >= to) return;
  // Wait on the mutex so Stop() ends a long freeze at once.
  core::MutexLock lock(&mu_);
  while (!stop_) {
    if (!cv_.WaitUntil(&mu_, to)) break;  // the freeze is over
  }
}

HttpFrontResponse HttpServer::Impl::Handle(const HttpFrontRequest& request) {
  // Methods are case-sensitive (RFC 9110 9.1): "get" is not GET.
  if (request.method != "GET") {
    HttpFrontResponse refused;
    refused.status = 405;
    refused.body = "{\"error\":\"only GET\"}";
    refused.allow = "GET";
    return refused;
  }
  // Each count is one point of in_handler_'s single order of changes, so the
  // largest of them is the peak, relaxed as it is.
  const int64_t inside =
      in_handler_.fetch_add(1, std::memory_order_relaxed) + 1;
  int64_t peak = peak_in_handler_.load(std::memory_order_relaxed);
  while (peak < inside && !peak_in_handler_.compare_exchange_weak(
                              peak, inside, std::memory_order_relaxed)) {
  }
  WaitOutFreeze();
  BurnCpu(options_.cpu_ms);
  if (options_.handler_ms > 0)
    std::this_thread::sleep_for(Ms(options_.handler_ms));
  if (options_.inner_pool > 0) {
    const Clock::time_point asked = Clock::now();
    {
      core::MutexLock lock(&mu_);
      while (!stop_ && inner_in_use_ >= options_.inner_pool) cv_.Wait(&mu_);
      ++inner_in_use_;
      inner_wait_ns_ += NsSince(asked);
      ++inner_acquires_;
    }
    std::this_thread::sleep_for(Ms(options_.inner_ms));
    core::MutexLock lock(&mu_);
    --inner_in_use_;
    cv_.SignalAll();
  }
  in_handler_.fetch_sub(1, std::memory_order_relaxed);
  HttpFrontResponse r;
  r.body = kBody;
  r.writes = options_.writes;
  return r;
}

absl::StatusOr<std::unique_ptr<HttpServer>> HttpServer::Start(
    const HttpServerOptions& options) {
  auto impl = std::make_unique<Impl>(options);
  if (absl::Status s = impl->Start(); !s.ok()) return s;
  return std::unique_ptr<HttpServer>(new HttpServer(std::move(impl)));
}

HttpServer::HttpServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
HttpServer::~HttpServer() = default;
void HttpServer::Stop() { impl_->Stop(); }
uint16_t HttpServer::port() const { return impl_->port(); }
HttpServerStats HttpServer::stats() const { return impl_->stats(); }

}  // namespace perflab::http
