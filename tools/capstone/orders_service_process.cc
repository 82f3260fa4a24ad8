#include "tools/capstone/orders_service_process.h"

#include <unistd.h>  // sysconf

#include <chrono>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace perflab::capstone {
namespace {

constexpr char kListening[] = "listening on ";
constexpr char kListeningAt[] = "http://127.0.0.1:";

// Whether `text` holds the whole line that says where the service listens
// (a line before it, e.g. the database's, is not enough).
bool HasListeningLine(std::string_view text) {
  const size_t at = text.find(kListening);
  return at != std::string_view::npos &&
         text.find('\n', at) != std::string_view::npos;
}

}  // namespace

absl::StatusOr<OrdersServiceProcess> OrdersServiceProcess::Start(
    const std::string& binary, const std::vector<std::string>& flags,
    std::vector<int> cpus, const std::string& db) {
  if (db != "sqlite" && db != "postgres") {
    return absl::InvalidArgumentError(
        absl::StrCat("--db ", db, ": accepted sqlite or postgres"));
  }
  std::vector<std::string> args = {binary, "orders-service", "--port",
                                   "0",    "--max-seconds",  "3600"};
  if (db == "postgres") {
    args.insert(args.end(), {"--db", "postgres"});
  }
  args.insert(args.end(), flags.begin(), flags.end());
  absl::StatusOr<core::Subprocess> child = core::Subprocess::Spawn(
      std::move(args), {.stdout_to = core::Output::kDiscard,
                        .stderr_to = core::Output::kCapture,
                        .cpus = std::move(cpus)});
  if (!child.ok()) return absl::InvalidArgumentError(child.status().message());
  // 60 s covers a cold start; a cluster's start and COPY take longer on a
  // busy machine.
  const auto wait = std::chrono::seconds(db == "postgres" ? 180 : 60);
  absl::StatusOr<core::Subprocess::ReadEnd> read = child->ReadOutput(
      std::chrono::steady_clock::now() + wait, HasListeningLine);
  // What it writes later is not read: the pipe closes here.
  child->CloseOutput();
  const std::string& text = child->output();
  const size_t listening = text.find(kListening);
  const size_t at = listening == std::string::npos
                        ? std::string::npos
                        : text.find(kListeningAt, listening);
  const size_t from = at + std::strlen(kListeningAt);
  const size_t slash =
      at == std::string::npos ? std::string::npos : text.find('/', from);
  int port = 0;
  if (!read.ok() || slash == std::string::npos ||
      !absl::SimpleAtoi(text.substr(from, slash - from), &port) || port <= 0 ||
      port > 65535) {
    return absl::InternalError(
        absl::StrCat("orders-service did not start: ",
                     absl::StripTrailingAsciiWhitespace(text)));
  }
  return OrdersServiceProcess(*std::move(child), static_cast<uint16_t>(port));
}

OrdersServiceProcess::OrdersServiceProcess(core::Subprocess child,
                                           uint16_t port)
    : child_(std::move(child)), port_(port) {}

double OrdersServiceProcess::CpuSeconds() const {
  if (child_.pid() <= 0) return 0;
  std::ifstream in(absl::StrCat("/proc/", child_.pid(), "/stat"));
  const std::string s((std::istreambuf_iterator<char>(in)), {});
  // Fields after the command name, which is in parentheses and may hold
  // spaces: state is field 3, utime 14 and stime 15, in clock ticks.
  const size_t close = s.rfind(')');
  if (close == std::string::npos) return 0;
  std::istringstream rest(s.substr(close + 1));
  std::string field;
  double utime = 0, stime = 0;
  for (int i = 3; i <= 15 && rest >> field; ++i) {
    if (i == 14 && !absl::SimpleAtod(field, &utime)) return 0;
    if (i == 15 && !absl::SimpleAtod(field, &stime)) return 0;
  }
  return (utime + stime) / static_cast<double>(::sysconf(_SC_CLK_TCK));
}

}  // namespace perflab::capstone
