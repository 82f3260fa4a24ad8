#include "tools/perflab/reality_cases.h"

#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <future>
#include <optional>
#include <system_error>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "bench/http/http_server.h"
#include "bench/http/load_client.h"
#include "bench/http/wrk.h"
#include "core/parallel.h"
#include "sim/scenarios/scenario.h"
#include "tools/perflab/cli.h"

namespace perflab::cli {
namespace {

using core::Value;
using http::HttpServerOptions;
using http::LoadOptions;
using http::LoadResult;

constexpr double kNsPerMs = 1e6;

struct Row {
  std::string name, metric;
  double real = 0;
  std::optional<double> wrk;
  double sim = 0;
  std::string goal;
  bool ok = false;
  bool show_diff = true;
};

double DiffPct(double real, double sim) {
  return sim == 0 ? 0 : 100 * (real - sim) / sim;
}

// Within `pct` percent of the simulation, or within `abs` in absolute terms
// (small figures, such as a 5 ms service time, move by timer slack alone).
bool Near(double real, double sim, double pct, double abs = 0) {
  return std::fabs(real - sim) <= std::max(std::fabs(sim) * pct / 100, abs);
}

// Starts a server, runs the load against it, stops it.
absl::StatusOr<LoadResult> Run(const HttpServerOptions& so, LoadOptions lo,
                               http::HttpServerStats* stats = nullptr) {
  absl::StatusOr<std::unique_ptr<http::HttpServer>> server =
      http::HttpServer::Start(so);
  if (!server.ok()) return server.status();
  lo.port = (*server)->port();
  absl::StatusOr<LoadResult> r = http::RunLoad(lo);
  (*server)->Stop();
  if (stats != nullptr) *stats = (*server)->stats();
  return r;
}

absl::StatusOr<core::Document> Sim(const std::string& name,
                                   const std::vector<std::string>& sets) {
  return sim::RunScenario(name, sets, sim::kDefaultSeed);
}

double Field(const core::Document& d, std::string_view key) {
  const core::Field* f = d.FindField(key);
  return f == nullptr ? NAN : core::AsDouble(f->value);
}

int ColumnIndex(const core::Table& t, std::string_view key) {
  for (size_t i = 0; i < t.columns.size(); ++i) {
    if (t.columns[i].key == key) return static_cast<int>(i);
  }
  return -1;
}

// The cell of `column` in the first row of `table` whose column `match_col`
// equals `match`.
double Cell(const core::Document& d, std::string_view table,
            std::string_view match_col, const std::string& match,
            std::string_view column) {
  const core::Table* t = d.FindTable(table);
  if (t == nullptr) return NAN;
  const int mc = ColumnIndex(*t, match_col), vc = ColumnIndex(*t, column);
  if (mc < 0 || vc < 0) return NAN;
  for (const auto& row : t->rows) {
    const auto* s = std::get_if<std::string>(&row[static_cast<size_t>(mc)]);
    if (s != nullptr && *s == match) {
      return core::AsDouble(row[static_cast<size_t>(vc)]);
    }
  }
  return NAN;
}

double MeanMs(const LoadResult& r) { return r.latency_ns.Mean() / kNsPerMs; }
double P99Ms(const LoadResult& r) {
  return static_cast<double>(r.latency_ns.Percentile(99)) / kNsPerMs;
}

// 10 or 50 threads, 50 ms handler, 100 closed-loop clients.
absl::Status ThreadCap(int threads, const RealityOptions& o,
                       std::vector<Row>& rows,
                       std::vector<std::string>& notes) {
  const std::string name = absl::StrCat("thread cap ", threads);
  HttpServerOptions so{.threads = threads, .handler_ms = 50};
  LoadOptions lo{.connections = 100,
                 .duration_s = o.quick ? 3.0 : 6.0,
                 .warmup_s = 1,
                 .timeout_ms = 10000};
  absl::StatusOr<std::unique_ptr<http::HttpServer>> server =
      http::HttpServer::Start(so);
  if (!server.ok()) return server.status();
  lo.port = (*server)->port();
  absl::StatusOr<LoadResult> real = http::RunLoad(lo);
  if (!real.ok()) return real.status();
  std::optional<http::WrkResult> wrk;
  if (o.wrk) {
    absl::StatusOr<http::WrkResult> w =
        http::RunWrk({.url = absl::StrCat("http://127.0.0.1:", lo.port, "/"),
                      .threads = 2,
                      .connections = 100,
                      .duration_s = o.quick ? 3.0 : 5.0});
    if (w.ok()) {
      wrk = *w;
    } else {
      notes.push_back(absl::StrCat("wrk: ", w.status().message()));
    }
  }
  (*server)->Stop();
  absl::StatusOr<core::Document> sim = Sim(
      "thread-pool",
      {"clients=100", absl::StrCat("threads=", threads), "handler_ms=50",
       "handler_cv=0", "cpu_per_request_ms=0", "warmup_s=2", "duration_s=20"});
  if (!sim.ok()) return sim.status();
  const double thr = real->throughput_per_s(), mean = MeanMs(*real);
  const double sim_thr = Field(*sim, "throughput_per_s");
  const double sim_mean = Field(*sim, "mean_ms");
  rows.push_back({name, "throughput (req/s)", thr,
                  wrk ? std::optional(wrk->requests_per_s) : std::nullopt,
                  sim_thr, "±10 %", Near(thr, sim_thr, 10)});
  rows.push_back({name, "mean latency (ms)", mean,
                  wrk ? std::optional(wrk->mean_ms) : std::nullopt, sim_mean,
                  "±15 %", Near(mean, sim_mean, 15)});
  rows.push_back({name, "in flight L = λW", thr * mean / 1e3,
                  wrk ? std::optional(wrk->requests_per_s * wrk->mean_ms / 1e3)
                      : std::nullopt,
                  100, "±5 % of 100 clients", Near(thr * mean / 1e3, 100, 5)});
  return absl::OkStatus();
}

// Open schedule at 100 req/s, 5 ms handler, a 2 s freeze; three clients.
absl::Status CoordinatedOmission(const RealityOptions& o,
                                 std::vector<Row>& rows) {
  const double duration = o.quick ? 4 : 10, freeze_at = o.quick ? 1 : 3;
  const double freeze_for = 2, rate = 100;
  HttpServerOptions so{.threads = 0,
                       .handler_ms = 5,
                       .freeze_at_s = freeze_at,
                       .freeze_for_s = freeze_for,
                       .tcp_nodelay = true};
  LoadOptions base{
      .rate_per_s = rate, .duration_s = duration, .timeout_ms = 10000};
  LoadOptions intended = base, open = base;
  intended.open_loop = open.open_loop = true;
  // Enough connections to keep sending through the whole freeze.
  open.connections = static_cast<int>(rate * freeze_for) + 50;
  // Each client has its own server, as each has its own simulation. The
  // closed loop runs alone: its p99 is a 5 ms figure that the open loop's
  // burst of 200 answers after the freeze would disturb on a 2-core machine.
  // The two freeze-dominated clients run side by side to save time.
  absl::StatusOr<LoadResult> ra = Run(so, base);
  std::future<absl::StatusOr<LoadResult>> b, c;
  try {
    b = std::async(std::launch::async, [&] { return Run(so, intended); });
    c = std::async(std::launch::async, [&] { return Run(so, open); });
  } catch (const std::system_error& e) {
    // A started b's future waits for its run on the way out.
    return core::ThreadRefused("a load client's thread", e);
  }
  absl::StatusOr<LoadResult> rb = b.get(), rc = c.get();
  for (auto* r : {&ra, &rb, &rc}) {
    if (!r->ok()) return r->status();
  }
  absl::StatusOr<core::Document> sim = Sim(
      "coordinated-omission",
      {absl::StrCat("rate_per_s=", rate), absl::StrCat("duration_s=", duration),
       "service_ms=5", absl::StrCat("freeze_start_s=", freeze_at),
       absl::StrCat("freeze_ms=", freeze_for * 1e3)});
  if (!sim.ok()) return sim.status();
  struct {
    const char* sim_name;
    const char* metric;
    const LoadResult& r;
  } clients[] = {
      {"closed-actual", "closed loop, from actual send: p99 (ms)", *ra},
      {"closed-intended", "closed loop, from intended send: p99 (ms)", *rb},
      {"open", "open loop: p99 (ms)", *rc}};
  for (const auto& c : clients) {
    const double s = Cell(*sim, "clients", "name", c.sim_name, "p99_ms");
    rows.push_back({"coordinated omission", c.metric, P99Ms(c.r), std::nullopt,
                    s, "±15 % (or ±2 ms)", Near(P99Ms(c.r), s, 15, 2)});
  }
  const double sim_samples =
      Cell(*sim, "clients", "name", "closed-actual", "samples");
  rows.push_back({"coordinated omission", "closed loop, actual: samples",
                  static_cast<double>(ra->ok), std::nullopt, sim_samples,
                  "±5 %", Near(static_cast<double>(ra->ok), sim_samples, 5)});
  return absl::OkStatus();
}

// 16 request threads, of which 4 at a time may hold a 20 ms inner section.
absl::Status InnerPool(const RealityOptions& o, std::vector<Row>& rows) {
  HttpServerOptions so{
      .threads = 16, .handler_ms = 1, .inner_pool = 4, .inner_ms = 20};
  LoadOptions lo{.connections = 32,
                 .duration_s = o.quick ? 3.0 : 6.0,
                 .warmup_s = 0.5,
                 .timeout_ms = 10000};
  http::HttpServerStats st;
  absl::StatusOr<LoadResult> real = Run(so, lo, &st);
  if (!real.ok()) return real.status();
  absl::StatusOr<core::Document> sim =
      Sim("thread-pool", {"clients=32", "threads=16", "handler_ms=1",
                          "handler_cv=0", "cpu_per_request_ms=0", "db_pool=4",
                          "db_hold_ms=20", "warmup_s=2", "duration_s=20"});
  if (!sim.ok()) return sim.status();
  const std::string name = "inner pool 4 of 16";
  const double thr = real->throughput_per_s(), mean = MeanMs(*real);
  const double sim_thr = Field(*sim, "throughput_per_s");
  const double sim_mean = Field(*sim, "mean_ms");
  rows.push_back({name, "throughput (req/s)", thr, std::nullopt, sim_thr,
                  "±10 %", Near(thr, sim_thr, 10)});
  rows.push_back({name, "mean latency (ms)", mean, std::nullopt, sim_mean,
                  "±15 %", Near(mean, sim_mean, 15)});
  const double q = st.responses > 0
                       ? static_cast<double>(st.queue_wait_ns) /
                             static_cast<double>(st.responses) / kNsPerMs
                       : 0;
  const double w = st.inner_acquires > 0
                       ? static_cast<double>(st.inner_wait_ns) /
                             static_cast<double>(st.inner_acquires) / kNsPerMs
                       : 0;
  const double sim_q =
      Cell(*sim, "resources", "name", "request threads", "mean_wait_ms");
  const double sim_w =
      Cell(*sim, "resources", "name", "db connections", "mean_wait_ms");
  rows.push_back({name, "wait for a thread (ms)", q, std::nullopt, sim_q,
                  "±20 % (or ±3 ms)", Near(q, sim_q, 20, 3)});
  rows.push_back({name, "wait for the inner pool (ms)", w, std::nullopt, sim_w,
                  "±20 % (or ±3 ms)", Near(w, sim_w, 20, 3)});
  return absl::OkStatus();
}

// A kept-alive connection, response as two small writes, with and without
// TCP_NODELAY.
absl::Status Nagle(const RealityOptions& o, std::vector<Row>& rows) {
  const int calls = o.quick ? 15 : 40;
  HttpServerOptions so{.threads = 1,
                       .writes = http::ResponseWrites::kHeadersThenBody,
                       .tcp_nodelay = false};
  LoadOptions lo{.duration_s = 30, .timeout_ms = 2000, .max_requests = calls};
  absl::StatusOr<LoadResult> stalled = Run(so, lo);
  if (!stalled.ok()) return stalled.status();
  so.tcp_nodelay = true;
  lo.max_requests = 200;
  absl::StatusOr<LoadResult> fast = Run(so, lo);
  if (!fast.ok()) return fast.status();
  const double real_stall = MeanMs(*stalled), real_fast = MeanMs(*fast);
  absl::StatusOr<core::Document> sim =
      Sim("http-connections",
          {absl::StrCat("calls=", calls), absl::StrCat("call_ms=", real_fast),
           "delayed_ack_ms=40"});
  if (!sim.ok()) return sim.status();
  const double sim_stall =
      Cell(*sim, "rows", "connection", "keep-alive", "ms_per_request");
  const double sim_fast = Cell(*sim, "rows", "connection",
                               "keep-alive + TCP_NODELAY", "ms_per_request");
  // The goal is on the stall (the issue's "within 10 ms of the delayed-ACK
  // timer"); the per-request row shows the same figure the way users see it.
  const bool stall_ok = std::fabs(real_stall - real_fast - 40) <= 10;
  rows.push_back({"Nagle + delayed ACK", "two writes: ms per request",
                  real_stall, std::nullopt, sim_stall, "see the stall row",
                  stall_ok});
  rows.push_back({"Nagle + delayed ACK", "stall vs TCP_NODELAY (ms)",
                  real_stall - real_fast, std::nullopt, sim_stall - sim_fast,
                  "40 ms timer ±10 ms", stall_ok});
  return absl::OkStatus();
}

// Server keep-alive timeout against a client that reuses after an idle gap.
absl::Status KeepAliveRace(const RealityOptions& o, std::vector<Row>& rows,
                           std::vector<std::string>& notes) {
  // Quick scales every time by 1/10: the race depends on their order only.
  const double scale = o.quick ? 0.1 : 1, idle = 3 * scale;
  const double timeouts[] = {2 * scale, 4 * scale};
  const int64_t requests = 5;
  std::vector<std::future<absl::StatusOr<LoadResult>>> runs;
  for (double t : timeouts) {
    HttpServerOptions so{.threads = 2, .keepalive_timeout_s = t};
    LoadOptions lo{.duration_s = static_cast<double>(requests) * idle + 2,
                   .timeout_ms = 2000,
                   .idle_reuse_s = idle,
                   .max_requests = requests};
    try {
      runs.push_back(
          std::async(std::launch::async, [so, lo] { return Run(so, lo); }));
    } catch (const std::system_error& e) {
      return core::ThreadRefused("a load client's thread", e);
    }
  }
  absl::StatusOr<core::Document> sim = Sim(
      "keepalive-race", {absl::StrCat("rates_per_s=", 1 / idle),
                         absl::StrCat("client_idle_timeout_ms=", idle * 1e3),
                         absl::StrCat("server_keepalive_ms=", timeouts[0] * 1e3,
                                      ",", timeouts[1] * 1e3),
                         "duration_s=3600"});
  if (!sim.ok()) return sim.status();
  for (size_t i = 0; i < runs.size(); ++i) {
    absl::StatusOr<LoadResult> r = runs[i].get();
    if (!r.ok()) return r.status();
    const double real = r->reuses > 0 ? static_cast<double>(r->errors_stale) /
                                            static_cast<double>(r->reuses)
                                      : 0;
    // The rows table keys servers by a number, not a name.
    double stale = NAN;
    if (const core::Table* t = sim->FindTable("rows")) {
      const int k = ColumnIndex(*t, "server_keepalive_ms");
      const int v = ColumnIndex(*t, "stale_pct");
      for (const auto& row : t->rows) {
        if (k >= 0 && v >= 0 &&
            core::AsDouble(row[static_cast<size_t>(k)]) == timeouts[i] * 1e3) {
          stale = core::AsDouble(row[static_cast<size_t>(v)]) / 100;
        }
      }
    }
    rows.push_back({"keep-alive race",
                    absl::StrCat("failures per reuse, server ", timeouts[i],
                                 " s, reuse after ", idle, " s"),
                    real, std::nullopt, stale, "fails only where sim does",
                    (real > 0) == (stale > 0), false});
  }
  notes.push_back(absl::StrCat(
      "keep-alive race: the real client reuses after exactly ", idle,
      " s (every reuse fails when the server's timeout is shorter); the "
      "simulation sends Poisson traffic, so only some gaps fall between the "
      "two timeouts: compare failure or none, not the fraction."));
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<core::Document> RunReality(const RealityOptions& o) {
  const std::vector<std::string> all = {"thread-cap", "coordinated-omission",
                                        "inner-pool", "nagle",
                                        "keepalive-race"};
  std::vector<std::string> chosen = o.cases.empty() ? all : o.cases;
  for (const std::string& c : chosen) {
    if (std::find(all.begin(), all.end(), c) == all.end()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--case = '", c, "'; accepted: ", absl::StrJoin(all, ", ")));
    }
  }
  // A case named twice would run twice and print its rows twice.
  if (absl::Status s = EachNameOnce("--case", chosen); !s.ok()) return s;
  auto wants = [&](const char* c) {
    return std::find(chosen.begin(), chosen.end(), c) != chosen.end();
  };
  std::vector<Row> rows;
  std::vector<std::string> notes;
  absl::Status s;
  if (wants("thread-cap")) {
    for (int threads : {10, 50}) {
      if (s = ThreadCap(threads, o, rows, notes); !s.ok()) return s;
    }
  }
  if (wants("coordinated-omission") &&
      !(s = CoordinatedOmission(o, rows)).ok()) {
    return s;
  }
  if (wants("inner-pool") && !(s = InnerPool(o, rows)).ok()) return s;
  if (wants("nagle") && !(s = Nagle(o, rows)).ok()) return s;
  if (wants("keepalive-race") && !(s = KeepAliveRace(o, rows, notes)).ok()) {
    return s;
  }

  core::Document doc("Does the simulator match reality here?");
  doc.Set("quick", "quick runs", o.quick);
  doc.Set("cores", "CPU cores online",
          static_cast<int64_t>(::sysconf(_SC_NPROCESSORS_ONLN)));
  double load[1] = {0};
  if (::getloadavg(load, 1) == 1) {
    doc.Set("load_average_1m", "load average (1 min) at the end", load[0], 2);
  }
  int64_t within = 0;
  core::Table& t = doc.AddTable(
      "cases", "Real run (perflab client, wrk) against the simulation",
      {{"case", "case"},
       {"metric", "metric"},
       {"perflab", "perflab", 2},
       {"wrk", "wrk", 2},
       {"sim", "sim", 2},
       {"diff_pct", "diff (%)", 1},
       {"goal", "goal"},
       {"within_goal", "ok"}});
  for (const Row& r : rows) {
    within += r.ok ? 1 : 0;
    t.Add({r.name, r.metric, r.real, r.wrk ? Value(*r.wrk) : Value(), r.sim,
           r.show_diff ? Value(DiffPct(r.real, r.sim)) : Value(), r.goal,
           r.ok});
  }
  doc.Set("within_goal", "rows within their goal", within);
  doc.Set("rows", "rows", static_cast<int64_t>(rows.size()));
  for (const std::string& n : notes) doc.Note(n);
  doc.Note(
      "Real runs share this machine with whatever else runs on it: timer "
      "slack, scheduling and the loopback's own cost (tens of microseconds "
      "per request) make real figures slightly slower than the simulation's.");
  doc.Note(
      "The closed loop's p99 from the actual send is the third-highest of "
      "~200 samples of a 5 ms sleep: on a loaded machine (see the load "
      "average) it measures the scheduler, not the queue; the freeze rows "
      "are the ones that tell the three clients apart.");
  doc.Note(
      "wrk has no warm-up: its first round of requests waits less than the "
      "steady state, so its mean sits a few percent under perflab's, which "
      "discards the first second.");
  doc.Note(
      "The simulator's thread-pool scenario is run with handler_cv=0 and no "
      "CPU part, because the real handler sleeps a fixed time.");
  return doc;
}

}  // namespace perflab::cli
