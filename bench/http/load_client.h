// A load generator on real sockets, for checking the simulator's load models
// against a real server: a closed loop (each client waits for its answer,
// optionally paced to a rate, timed from the actual send) or an open loop
// (requests on a fixed schedule, timed from the intended send as wrk2 does, so
// a stalled server cannot hide its stall by slowing the client down).
//
// Latencies go into models::Histogram in nanoseconds. RunLoad is bounded in
// time (duration plus one timeout) and count, talks to loopback only, and
// joins every thread and closes every socket before it returns. Thread-safe:
// concurrent RunLoad calls share nothing.
#ifndef PERFLAB_BENCH_HTTP_LOAD_CLIENT_H_
#define PERFLAB_BENCH_HTTP_LOAD_CLIENT_H_

#include <cstdint>
#include <functional>
#include <string>

#include "absl/status/statusor.h"
#include "models/histogram.h"

namespace perflab::http {

struct LoadOptions {
  std::string host = "127.0.0.1";  // loopback only (127.0.0.0/8, ::1)
  uint16_t port = 0;
  std::string path = "/";
  // The path of each request, when set (called from every client thread, so
  // it must be thread-safe); null sends `path` every time.
  std::function<std::string()> next_path = nullptr;
  bool open_loop = false;  // false: closed loop of `connections` clients
  int connections = 1;     // clients (closed) or connections (open), 1..1024
  // Open: total arrival rate. Closed: each client's pace (a late client sends
  // at once and resumes the schedule from there); 0 = back to back.
  double rate_per_s = 0;
  double duration_s = 5;     // sending stops after this
  double warmup_s = 0;       // requests sent before this are not recorded
  double timeout_ms = 2000;  // per request; a timeout is an error
  // Closed: idle this long between a client's requests on its kept-alive
  // connection (the keep-alive race); 0 = no idle gap.
  double idle_reuse_s = 0;
  int64_t max_requests = 1000000;  // stop sending after this many in total
};

struct LoadResult {
  // Open loop: from the intended send; closed loop: from the actual send.
  models::Histogram latency_ns;
  // From the actual send in both modes (open loop: what a naive client sees).
  models::Histogram latency_from_send_ns;
  int64_t ok = 0;      // 2xx answers recorded after warm-up
  int64_t sent = 0;    // requests attempted (all, warm-up included)
  int64_t reuses = 0;  // requests sent on an already open connection
  int64_t connections_opened = 0;
  int64_t errors_connect = 0;  // errors by kind (after warm-up)
  int64_t errors_stale = 0;    // reused connection closed by the server
  int64_t errors_timeout = 0;
  int64_t errors_other = 0;  // malformed answers, non-2xx
  // Open loop: slots due within the run that were never sent, because the
  // connections fell behind the schedule and the run ended first.
  int64_t unsent = 0;
  double window_s = 0;  // measured window (duration - warm-up)
  double throughput_per_s() const {
    return window_s > 0 ? static_cast<double>(ok) / window_s : 0;
  }
  int64_t errors() const {
    return errors_connect + errors_stale + errors_timeout + errors_other;
  }
};

// Validates the options (InvalidArgument names the field: non-loopback host,
// negative or non-finite times, zero connections) and runs the load.
absl::StatusOr<LoadResult> RunLoad(const LoadOptions& options);

}  // namespace perflab::http

#endif  // PERFLAB_BENCH_HTTP_LOAD_CLIENT_H_
