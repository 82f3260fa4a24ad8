#include "tools/perflab/serve_flags.h"

#include <pthread.h>
#include <time.h>

#include <cerrno>
#include <cmath>
#include <cstdint>
#include <optional>

#include "absl/strings/str_cat.h"
#include "core/number.h"

namespace perflab::cli {

absl::StatusOr<int> ParseThreadsFlag(const std::string& value, int max) {
  if (value == "virtual") return 0;
  // Decimal digits only (core/number.h): " 16", "+16" and "0x10" are
  // refused, not read as 16.
  const std::optional<int64_t> threads = core::ParseDecimalInteger(value);
  if (!threads || *threads < 1 || *threads > max) {
    return absl::InvalidArgumentError(
        absl::StrCat("--threads = '", value, "'; accepted: an integer in [1, ",
                     max, "] or 'virtual'"));
  }
  return static_cast<int>(*threads);
}

void AddTwoWritesFlag(CLI::App& command, http::ResponseWrites& writes) {
  command.add_flag_callback(
      "--two-writes",
      [&writes] { writes = http::ResponseWrites::kHeadersThenBody; },
      "headers and body as two writes (Nagle)");
}

void AddLimitsHelp(CLI::App& command, const http::HttpLimits& limits,
                   int max_connections) {
  // One limit a line: the description's clauses are separated by "; ".
  std::string text = absl::StrCat(http::DescribeLimits(limits),
                                  "; connection cap: ", max_connections);
  for (size_t at = text.find("; "); at != std::string::npos;
       at = text.find("; ", at)) {
    text.replace(at, 2, "\n  ");
  }
  command.footer(text);
}

StopSignals::StopSignals() {
  sigemptyset(&signals_);
  sigaddset(&signals_, SIGINT);
  sigaddset(&signals_, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals_, &old_);
}

StopSignals::~StopSignals() { pthread_sigmask(SIG_SETMASK, &old_, nullptr); }

int StopSignals::Wait(double max_seconds) {
  const double whole = std::floor(max_seconds);
  const timespec limit{static_cast<time_t>(whole),
                       static_cast<long>((max_seconds - whole) * 1e9)};
  int sig;
  do {
    sig = sigtimedwait(&signals_, nullptr, &limit);
  } while (sig < 0 && errno == EINTR);
  return sig < 0 ? 0 : sig;
}

std::string StopSignals::StoppedBy(int signal) {
  return signal == SIGINT    ? "SIGINT"
         : signal == SIGTERM ? "SIGTERM"
                             : "--max-seconds";
}

}  // namespace perflab::cli
