#include "bench/http/wrk.h"

#include <cctype>
#include <chrono>
#include <cmath>
#include <cstring>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "bench/http/loopback.h"
#include "core/subprocess.h"

namespace perflab::http {
namespace {

// "136.43us", "1.03ms", "2.00s", "1.50m" -> milliseconds.
bool ParseTimeMs(std::string_view text, double& ms) {
  struct Unit {
    const char* suffix;
    double ms;
  };
  // Longest suffixes first: "ms" and "us" end in "s" too.
  for (Unit u : {Unit{"us", 1e-3}, Unit{"ms", 1}, Unit{"s", 1e3},
                 Unit{"m", 60e3}, Unit{"h", 3600e3}}) {
    if (text.ends_with(u.suffix)) {
      double v = 0;
      if (!absl::SimpleAtod(
              std::string(text.substr(0, text.size() - std::strlen(u.suffix))),
              &v)) {
        return false;
      }
      ms = v * u.ms;
      return true;
    }
  }
  return false;
}

std::string_view StripComma(std::string_view t) {
  return t.ends_with(",") ? t.substr(0, t.size() - 1) : t;
}

bool ParseInt(std::string_view text, int64_t& v) {
  return absl::SimpleAtoi(std::string(StripComma(text)), &v);
}

}  // namespace

absl::StatusOr<WrkResult> ParseWrkOutput(std::string_view text) {
  WrkResult r;
  bool have_latency = false, have_rate = false, have_total = false;
  int percentiles = 0;
  for (absl::string_view piece :
       absl::StrSplit(absl::string_view(text.data(), text.size()), '\n')) {
    std::string_view raw(piece.data(), piece.size());
    std::string_view line = raw;
    while (!line.empty() && (line.front() == ' ' || line.front() == '\t')) {
      line.remove_prefix(1);
    }
    while (!line.empty() &&
           std::isspace(static_cast<unsigned char>(line.back()))) {
      line.remove_suffix(1);
    }
    std::vector<std::string_view> w;
    for (absl::string_view piece :
         absl::StrSplit(absl::string_view(line.data(), line.size()), ' ',
                        absl::SkipEmpty())) {
      w.emplace_back(piece.data(), piece.size());
    }
    if (w.empty()) continue;
    auto bad = [&] {
      return absl::InvalidArgumentError(
          absl::StrCat("wrk output: cannot read line '", std::string(line),
                       "'; accepted: wrk 4 --latency report"));
    };
    if (w[0] == "Latency" && w.size() >= 4) {
      if (!ParseTimeMs(w[1], r.mean_ms) || !ParseTimeMs(w[2], r.stdev_ms) ||
          !ParseTimeMs(w[3], r.max_ms)) {
        return bad();
      }
      have_latency = true;
    } else if (w.size() == 2 && w[0].ends_with("%")) {
      double* slot = w[0] == "50%"   ? &r.p50_ms
                     : w[0] == "75%" ? &r.p75_ms
                     : w[0] == "90%" ? &r.p90_ms
                     : w[0] == "99%" ? &r.p99_ms
                                     : nullptr;
      if (slot == nullptr || !ParseTimeMs(w[1], *slot)) return bad();
      ++percentiles;
    } else if (w.size() >= 4 && w[1] == "requests" && w[2] == "in") {
      double ms = 0;
      if (!ParseInt(w[0], r.requests) || !ParseTimeMs(StripComma(w[3]), ms)) {
        return bad();
      }
      r.duration_s = ms / 1e3;
      have_total = true;
    } else if (w[0] == "Requests/sec:" && w.size() == 2) {
      if (!absl::SimpleAtod(std::string(w[1]), &r.requests_per_s)) return bad();
      have_rate = true;
    } else if (w[0] == "Socket" && w.size() == 10) {
      // Socket errors: connect 0, read 0, write 0, timeout 0
      if (!ParseInt(w[3], r.errors_connect) || !ParseInt(w[5], r.errors_read) ||
          !ParseInt(w[7], r.errors_write) ||
          !ParseInt(w[9], r.errors_timeout)) {
        return bad();
      }
    } else if (line.starts_with("Non-2xx or 3xx responses:")) {
      if (!ParseInt(w.back(), r.non_2xx)) return bad();
    }
  }
  const char* missing = !have_latency ? "the Latency line"
                        : percentiles != 4
                            ? "the Latency Distribution (--latency)"
                        : !have_total ? "the 'N requests in' line"
                        : !have_rate  ? "Requests/sec"
                                      : nullptr;
  if (missing != nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(
        "wrk output: missing ", missing, "; accepted: wrk 4 --latency report"));
  }
  return r;
}

absl::StatusOr<WrkResult> RunWrk(const WrkOptions& o) {
  if (absl::StatusOr<Url> url = ParseLoopbackUrl(o.url); !url.ok()) {
    return url.status();
  }
  if (!(o.duration_s >= 1 && o.duration_s <= 3600) || o.threads < 1 ||
      o.connections < o.threads || !(o.timeout_s > 0)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "wrk: duration_s = ", o.duration_s, ", threads = ", o.threads,
        ", connections = ", o.connections,
        ": accepted duration in [1, 3600] s and connections >= threads >= 1"));
  }
  const auto seconds = static_cast<int64_t>(std::llround(o.duration_s));
  std::vector<std::string> args = {
      "wrk",
      "--latency",
      absl::StrCat("-t", o.threads),
      absl::StrCat("-c", o.connections),
      absl::StrCat("-d", seconds, "s"),
      absl::StrCat("--timeout=", std::llround(std::ceil(o.timeout_s)), "s"),
      o.url};
  if (!o.script.empty()) args.insert(args.begin() + 1, {"-s", o.script});
  absl::StatusOr<core::Subprocess> child = core::Subprocess::Spawn(
      std::move(args), {.stdout_to = core::Output::kCapture,
                        .stderr_to = core::Output::kCapture,
                        .search_path = true});
  if (!child.ok()) {
    return child.status().code() == absl::StatusCode::kNotFound
               ? absl::NotFoundError(
                     "wrk is not installed; apt-get install wrk "
                     "(tools/lab installs it)")
               : child.status();
  }
  // Read the report; bounded: a wrk that outlives its run by 10 s is killed.
  absl::StatusOr<core::Subprocess::ReadEnd> read = child->ReadOutput(
      std::chrono::steady_clock::now() + std::chrono::seconds(seconds + 10));
  if (!read.ok()) return read.status();
  if (*read == core::Subprocess::ReadEnd::kDeadline) {
    child->Kill();
    return absl::DeadlineExceededError(
        absl::StrCat("wrk ran past its ", seconds, " s run by 10 s; killed"));
  }
  absl::StatusOr<core::ExitStatus> status = child->Wait();
  if (!status.ok()) return status.status();
  const std::string& text = child->output();
  if (!status->ok()) {
    return absl::InternalError(absl::StrCat("wrk failed (", status->ToString(),
                                            "): ", text.substr(0, 200)));
  }
  return ParseWrkOutput(text);
}

}  // namespace perflab::http
