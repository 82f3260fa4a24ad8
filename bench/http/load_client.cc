#include "bench/http/load_client.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <system_error>
#include <thread>
#include <tuple>
#include <vector>

#include "absl/strings/str_cat.h"
#include "bench/http/loopback.h"
#include "bench/http/net.h"
#include "core/parallel.h"

namespace perflab::http {
namespace {

using Clock = std::chrono::steady_clock;

Clock::duration Sec(double s) {
  return std::chrono::duration_cast<Clock::duration>(
      std::chrono::duration<double>(s));
}

int64_t Ns(Clock::duration d) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(d).count();
}

absl::StatusOr<models::Histogram> NewHistogram() {
  // 1 us resolution up to an hour, 3 significant digits.
  return models::Histogram::Create({1000, int64_t{3600} * 1000000000, 3});
}

// One client thread's results; merged after the join (histograms are not
// thread-safe, so each thread owns its own).
using Part = LoadResult;

absl::Status Validate(const LoadOptions& o) {
  for (auto [name, v, lo] : {std::tuple{"duration_s", o.duration_s, 0.0},
                             {"warmup_s", o.warmup_s, 0.0},
                             {"timeout_ms", o.timeout_ms, 0.0},
                             {"rate_per_s", o.rate_per_s, 0.0},
                             {"idle_reuse_s", o.idle_reuse_s, 0.0}}) {
    if (!std::isfinite(v) || v < lo) {
      return absl::InvalidArgumentError(
          absl::StrCat(name, " = ", v, ": accepted a finite number >= 0"));
    }
  }
  if (o.duration_s <= 0 || o.warmup_s >= o.duration_s) {
    return absl::InvalidArgumentError(
        absl::StrCat("duration_s = ", o.duration_s, ", warmup_s = ", o.warmup_s,
                     ": accepted 0 <= warmup_s < duration_s"));
  }
  if (o.connections < 1 || o.connections > 1024) {
    return absl::InvalidArgumentError(absl::StrCat(
        "connections = ", o.connections, ": accepted an integer in [1, 1024]"));
  }
  if (o.open_loop && o.rate_per_s <= 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "rate_per_s = ", o.rate_per_s, ": an open loop needs a rate > 0"));
  }
  if (o.max_requests < 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "max_requests = ", o.max_requests, ": accepted an integer >= 1"));
  }
  return LoopbackAddress(o.host, o.port).status();
}

// Sends one request and books its outcome; returns the answer time.
Clock::time_point Exchange(HttpClient& client, const LoadOptions& o,
                           Clock::time_point timed_from,
                           Clock::time_point warmup_end, Part& part) {
  LoadResult& c = part;
  ++c.sent;
  if (client.connected()) ++c.reuses;
  const Clock::time_point sent = Clock::now();
  absl::StatusOr<HttpResponse> r =
      client.Get(o.next_path ? o.next_path() : o.path);
  const Clock::time_point done = Clock::now();
  if (timed_from < warmup_end) return done;
  if (r.ok() && r->status >= 200 && r->status < 300) {
    ++c.ok;
    part.latency_ns.Record(Ns(done - timed_from));
    part.latency_from_send_ns.Record(Ns(done - sent));
    return done;
  }
  switch (r.ok() ? HttpError::kBadResponse : client.last_error()) {
    case HttpError::kConnect:
      ++c.errors_connect;
      break;
    case HttpError::kStale:
      ++c.errors_stale;
      break;
    case HttpError::kTimeout:
      ++c.errors_timeout;
      break;
    default:
      ++c.errors_other;
      break;
  }
  return done;
}

}  // namespace

absl::StatusOr<LoadResult> RunLoad(const LoadOptions& o) {
  if (absl::Status s = Validate(o); !s.ok()) return s;
  ClientOptions co;
  co.host = o.host;
  co.timeout_ms = o.timeout_ms;
  const Clock::time_point start = Clock::now();
  const Clock::time_point end = start + Sec(o.duration_s);
  const Clock::time_point warmup_end = start + Sec(o.warmup_s);
  const Clock::duration interval =
      o.rate_per_s > 0 ? Sec(1.0 / o.rate_per_s) : Clock::duration::zero();
  std::atomic<int64_t> budget{o.max_requests};  // requests left to send
  std::atomic<int64_t> next_slot{0};            // open loop: schedule index

  std::vector<Part> parts;
  parts.reserve(static_cast<size_t>(o.connections));
  for (int i = 0; i < o.connections; ++i) {
    parts.push_back(Part{*NewHistogram(), *NewHistogram()});
  }
  auto closed = [&](Part& part) {
    HttpClient client(o.port, co);
    Clock::time_point next = start;
    while (budget.fetch_sub(1) > 0) {
      next = std::max(next, Clock::now());
      if (next >= end) break;
      std::this_thread::sleep_until(next);
      const Clock::time_point sent = Clock::now();
      const Clock::time_point done =
          Exchange(client, o, sent, warmup_end, part);
      // Paced: the next slot, or at once if already late (no catching up).
      next = std::max(next + interval, done) + Sec(o.idle_reuse_s);
    }
    part.connections_opened = client.connections_opened();
  };
  auto open = [&](Part& part) {
    HttpClient client(o.port, co);
    while (budget.fetch_sub(1) > 0) {
      // Each free connection takes the next slot of the schedule; a late
      // slot is sent at once and still timed from when it was due.
      const Clock::time_point due = start + next_slot.fetch_add(1) * interval;
      // A connection behind the schedule stops at the end of the run too:
      // it would otherwise send late slots for as long as the budget lasts
      // (minutes at a high rate), whatever --duration-s said.
      if (due >= end || Clock::now() >= end) break;
      std::this_thread::sleep_until(due);
      Exchange(client, o, due, warmup_end, part);
    }
    part.connections_opened = client.connections_opened();
  };
  std::vector<std::thread> threads;
  absl::Status refused;
  try {
    for (Part& part : parts) {
      if (o.open_loop) {
        threads.emplace_back([&open, &part] { open(part); });
      } else {
        threads.emplace_back([&closed, &part] { closed(part); });
      }
    }
  } catch (const std::system_error& e) {
    // The started connections send nothing more; joined before the error.
    budget.store(0);
    refused = core::ThreadRefused(
        absl::StrCat("connection thread ", threads.size() + 1, " of ",
                     o.connections, " (one per connection)"),
        e);
  }
  for (std::thread& t : threads) t.join();
  if (!refused.ok()) return refused;

  LoadResult out{*NewHistogram(), *NewHistogram()};
  out.window_s = o.duration_s - o.warmup_s;
  int64_t due_slots = o.max_requests;  // slots k with start + k interval < end
  if (o.open_loop && interval.count() > 0) {
    due_slots = std::min<int64_t>(
        due_slots,
        ((end - start).count() + interval.count() - 1) / interval.count());
  }
  for (Part& p : parts) {
    if (absl::Status s = out.latency_ns.Merge(p.latency_ns); !s.ok()) return s;
    if (absl::Status s = out.latency_from_send_ns.Merge(p.latency_from_send_ns);
        !s.ok()) {
      return s;
    }
    const LoadResult& c = p;
    out.ok += c.ok;
    out.sent += c.sent;
    out.reuses += c.reuses;
    out.connections_opened += c.connections_opened;
    out.errors_connect += c.errors_connect;
    out.errors_stale += c.errors_stale;
    out.errors_timeout += c.errors_timeout;
    out.errors_other += c.errors_other;
  }
  if (o.open_loop) out.unsent = std::max<int64_t>(0, due_slots - out.sent);
  return out;
}

}  // namespace perflab::http
