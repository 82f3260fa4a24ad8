#include "bench/order_service/orders_service_process.h"

#include <unistd.h>  // sysconf

#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace perflab::orders {
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

std::optional<ProcStat> ParseProcStat(std::string_view line) {
  const size_t open = line.find(" (");
  const size_t close = line.rfind(')');
  if (open == std::string_view::npos || close == std::string_view::npos ||
      close < open) {
    return std::nullopt;
  }
  ProcStat p;
  if (!absl::SimpleAtoi(std::string(line.substr(0, open)), &p.pid)) {
    return std::nullopt;
  }
  // After the command: state is field 3, ppid 4, utime 14, stime 15,
  // cutime 16, cstime 17.
  std::istringstream rest{std::string(line.substr(close + 1))};
  std::string field;
  int i = 3;
  for (; i <= 17 && rest >> field; ++i) {
    int64_t v = 0;
    if (i == 4 && !absl::SimpleAtoi(field, &p.ppid)) return std::nullopt;
    if (i >= 14) {
      if (!absl::SimpleAtoi(field, &v) || v < 0) return std::nullopt;
      p.ticks += v;
    }
  }
  if (i <= 17) return std::nullopt;
  return p;
}

int64_t DescendantTicks(pid_t root, const std::vector<ProcStat>& procs) {
  std::vector<pid_t> frontier = {root};
  int64_t ticks = 0;
  // Breadth first; a pid is a child of one parent, so none is seen twice.
  for (size_t at = 0; at < frontier.size(); ++at) {
    for (const ProcStat& p : procs) {
      if (p.ppid != frontier[at] || p.pid == root) continue;
      ticks += p.ticks;
      frontier.push_back(p.pid);
    }
  }
  return ticks;
}

double OrdersServiceProcess::DatabaseCpuSeconds() const {
  if (child_.pid() <= 0) return 0;
  std::vector<ProcStat> procs;
  std::error_code ec;
  // Non-throwing: /proc changes while it is listed.
  for (std::filesystem::directory_iterator it("/proc", ec), end;
       !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.empty() || name[0] < '0' || name[0] > '9') continue;
    std::ifstream in(it->path() / "stat");
    std::string line;
    // A process that ended since the listing is skipped.
    if (!std::getline(in, line)) continue;
    if (std::optional<ProcStat> p = ParseProcStat(line)) procs.push_back(*p);
  }
  return static_cast<double>(DescendantTicks(child_.pid(), procs)) /
         static_cast<double>(::sysconf(_SC_CLK_TCK));
}

}  // namespace perflab::orders
