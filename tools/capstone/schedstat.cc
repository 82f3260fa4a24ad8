#include "tools/capstone/schedstat.h"

#include <charconv>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <system_error>

#include "absl/strings/str_cat.h"

namespace perflab::capstone {

absl::StatusOr<ThreadSched> ParseSchedstat(std::string_view line) {
  std::string_view text = line;
  if (text.ends_with('\n')) text.remove_suffix(1);
  ThreadSched t;
  int64_t* into[] = {&t.cpu_ns, &t.wait_ns, &t.slices};
  const char* at = text.data();
  const char* const end = text.data() + text.size();
  bool ok = true;
  for (size_t i = 0; ok && i < 3; ++i) {
    if (i > 0) ok = at < end && *at++ == ' ';
    const std::from_chars_result r = std::from_chars(at, end, *into[i]);
    ok = ok && r.ec == std::errc() && r.ptr != at && *into[i] >= 0 &&
         (*at != '-');
    at = r.ptr;
  }
  if (!ok || at != end) {
    return absl::InvalidArgumentError(
        absl::StrCat("schedstat: read '", std::string(text.substr(0, 80)),
                     "'; accepted: three whole numbers >= 0"));
  }
  return t;
}

absl::StatusOr<std::map<pid_t, ThreadSched>> ReadSchedstat(pid_t pid) {
  const std::string dir = absl::StrCat("/proc/", pid, "/task");
  std::error_code ec;
  std::filesystem::directory_iterator it(dir, ec);
  if (ec) {
    return absl::NotFoundError(
        absl::StrCat(dir, ": ", ec.message(), " (is the process running?)"));
  }
  std::map<pid_t, ThreadSched> out;
  for (const std::filesystem::directory_entry& e : it) {
    const std::string name = e.path().filename().string();
    pid_t tid = 0;
    const std::from_chars_result r =
        std::from_chars(name.data(), name.data() + name.size(), tid);
    if (r.ec != std::errc() || r.ptr != name.data() + name.size()) continue;
    std::ifstream in(e.path() / "schedstat");
    if (!in) continue;  // the thread exited since the listing
    std::stringstream text;
    text << in.rdbuf();
    if (text.str().empty()) continue;
    absl::StatusOr<ThreadSched> t = ParseSchedstat(text.str());
    if (!t.ok()) return t.status();
    out[tid] = *t;
  }
  if (out.empty()) {
    return absl::NotFoundError(
        absl::StrCat(dir,
                     "/*/schedstat: nothing to read (a kernel without "
                     "CONFIG_SCHED_INFO keeps no schedstat)"));
  }
  return out;
}

ThreadSched SchedDelta(const std::map<pid_t, ThreadSched>& before,
                       const std::map<pid_t, ThreadSched>& after) {
  ThreadSched sum;
  for (const auto& [tid, a] : after) {
    ThreadSched b;
    if (auto it = before.find(tid); it != before.end()) b = it->second;
    sum.cpu_ns += a.cpu_ns - b.cpu_ns;
    sum.wait_ns += a.wait_ns - b.wait_ns;
    sum.slices += a.slices - b.slices;
  }
  return sum;
}

}  // namespace perflab::capstone
