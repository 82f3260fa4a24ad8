// The independent witness: runs `wrk` (Debian's package, a load generator
// nobody here wrote) against a loopback URL and parses its --latency report,
// so perflab's own client can be checked against it side by side.
// Functions are thread-safe; RunWrk starts one child process and always reaps
// it (killed if it outlives its duration by more than 10 s).
#ifndef PERFLAB_BENCH_HTTP_WRK_H_
#define PERFLAB_BENCH_HTTP_WRK_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace perflab::http {

struct WrkOptions {
  std::string url;        // http://127.0.0.1:PORT/ (loopback only)
  std::string script{};   // wrk -s (a Lua script choosing paths); "" = none
  int threads = 2;        // wrk -t
  int connections = 10;   // wrk -c (closed loop: one request per connection)
  double duration_s = 3;  // wrk -d, whole seconds (wrk's own resolution)
  double timeout_s = 10;  // wrk --timeout; slower answers count as timeouts
};

// What `wrk --latency` prints, in milliseconds and per second.
struct WrkResult {
  double mean_ms = 0, stdev_ms = 0, max_ms = 0;
  double p50_ms = 0, p75_ms = 0, p90_ms = 0, p99_ms = 0;
  int64_t requests = 0;
  double duration_s = 0;
  double requests_per_s = 0;
  int64_t errors_connect = 0, errors_read = 0, errors_write = 0;
  int64_t errors_timeout = 0, non_2xx = 0;
};

// Parses wrk 4's report; InvalidArgument names the first line it cannot read
// or the first field that is missing.
absl::StatusOr<WrkResult> ParseWrkOutput(std::string_view text);

// Runs wrk --latency and parses its report. NotFound when wrk is not
// installed (apt-get install wrk; tools/lab installs it).
absl::StatusOr<WrkResult> RunWrk(const WrkOptions& options);

}  // namespace perflab::http

#endif  // PERFLAB_BENCH_HTTP_WRK_H_
