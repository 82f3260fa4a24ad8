// What the long-running server commands (perflab serve, perflab
// orders-service) share: the --threads flag ("virtual" or a count), the
// --two-writes flag, the request limits in --help and the wait for SIGINT,
// SIGTERM or --max-seconds. Not thread-safe: for the command's own thread.
#ifndef PERFLAB_TOOLS_PERFLAB_SERVE_FLAGS_H_
#define PERFLAB_TOOLS_PERFLAB_SERVE_FLAGS_H_

#include <signal.h>

#include <string>

#include "CLI/CLI.hpp"
#include "absl/status/statusor.h"
#include "bench/http/request_parser.h"
#include "bench/http/response_writes.h"

namespace perflab::cli {

// --max-seconds when not given: how long a server command runs at most.
inline constexpr double kDefaultMaxSeconds = 60;

// "virtual" is 0 (one thread per connection); otherwise an integer in
// [1, max]. InvalidArgument names --threads, the value and what is accepted.
absl::StatusOr<int> ParseThreadsFlag(const std::string& value, int max);

// Adds --two-writes to `command`: given, `writes` becomes kHeadersThenBody
// (headers and body as two small writes, the Nagle stall without
// --nodelay); absent, it keeps its value.
void AddTwoWritesFlag(CLI::App& command, http::ResponseWrites& writes);

// Lists what the server holds a client to (`limits` and the connection cap)
// in `command`'s --help.
void AddLimitsHelp(CLI::App& command, const http::HttpLimits& limits,
                   int max_connections);

// Blocks SIGINT and SIGTERM in the calling thread while it lives. Create it
// before starting a server: its threads inherit the mask, so the signal is
// left to Wait() (sigtimedwait) here. The destructor restores the old mask.
class StopSignals {
 public:
  StopSignals();
  ~StopSignals();
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;

  // Returns SIGINT or SIGTERM, or 0 once `max_seconds` have passed.
  int Wait(double max_seconds);
  // "SIGINT", "SIGTERM" or "--max-seconds" (for 0): the stopped_by field.
  static std::string StoppedBy(int signal);

 private:
  sigset_t signals_;
  sigset_t old_;
};

}  // namespace perflab::cli

#endif  // PERFLAB_TOOLS_PERFLAB_SERVE_FLAGS_H_
