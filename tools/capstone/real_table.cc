// ToRealDocument: the real and composed capstone tables side by side, the
// difference per cell and the agreement summary (see real_run.h).
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <string>
#include <tuple>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/case_study.h"
#include "tools/calibration/calibration_io.h"
#include "tools/capstone/pg_compose.h"
#include "tools/capstone/real_run.h"
#include "tools/capstone/thresholds.h"

namespace perflab::capstone {
namespace {

// (composed - real) / real in percent; 0 when real is 0.
double DiffPct(double real, double composed) {
  return real != 0 ? (composed - real) / real * 100 : 0;
}

std::vector<core::Column> FigureColumns() {
  return {{"step", "step"},
          {"rps", "RPS", 1},
          {"avg_ms", "avg (ms)", 2},
          {"p95_ms", "p95 (ms)", 2},
          {"p99_ms", "p99 (ms)", 2},
          {"open_p99_ms", "open p99 (ms)", 2},
          {"cpu_cores", "CPU (cores)", 2},
          {"queries_per_request", "queries/req", 2},
          {"cache_hit_ratio", "cache hits", 3},
          {"usd_per_million", "$/1M", 3}};
}

void AddFigures(core::Table& t, const Step& step, const RealFigures& f) {
  t.Add({std::string(step.name), f.rps, f.avg_ms, f.p95_ms, f.p99_ms,
         f.open_p99_ms, f.cpu_cores, f.queries_per_request, f.cache_hit_ratio,
         f.usd_per_million});
}

// Why the RPS agree or not: the kernel's view of each request on both sides.
void AddMechanisms(core::Document& doc, const RealComparison& c, size_t steps) {
  core::Table& t = doc.AddTable(
      "mechanisms",
      "Per request, closed loop: CPU, run-queue wait and slices (real: the "
      "service's /proc/PID/task/*/schedstat; composed: the simulated CPU)",
      {{"step", "step"},
       {"real_cpu_us", "real CPU (us)", 1},
       {"composed_cpu_us", "composed CPU (us)", 1},
       {"cpu_pct", "CPU %", 1},
       {"real_wait_us", "real wait (us)", 1},
       {"composed_wait_us", "composed wait (us)", 1},
       {"wait_pct", "wait %", 1},
       {"real_slices", "real slices", 2},
       {"composed_slices", "composed slices", 2},
       {"slices_pct", "slices %", 1}});
  int cpu20 = 0, wait20 = 0;
  for (size_t i = 0; i < steps; ++i) {
    const RealFigures& r = c.real[i];
    const RealFigures& m = c.composed[i];
    const double cpu = DiffPct(r.cpu_us_per_request, m.cpu_us_per_request);
    const double wait = DiffPct(r.wait_us_per_request, m.wait_us_per_request);
    cpu20 += r.cpu_us_per_request > 0 && std::fabs(cpu) <= 20;
    wait20 += r.wait_us_per_request > 0 && std::fabs(wait) <= 20;
    t.Add({std::string(c.steps[i]->name), r.cpu_us_per_request,
           m.cpu_us_per_request, cpu, r.wait_us_per_request,
           m.wait_us_per_request, wait, r.slices_per_request,
           m.slices_per_request,
           DiffPct(r.slices_per_request, m.slices_per_request)});
  }
  doc.Set("steps_cpu_within_20_pct",
          "steps with composed CPU per request within 20 %",
          static_cast<int64_t>(cpu20));
  doc.Set("steps_wait_within_20_pct",
          "steps with composed run-queue wait per request within 20 %",
          static_cast<int64_t>(wait20));
}

// The drift canary per step: how far the machine was from the calibration
// then, and by how much that step's composed costs were scaled.
void AddCanaries(core::Document& doc, const RealComparison& c) {
  if (c.canaries.empty()) return;
  core::Table& t = doc.AddTable(
      "canary",
      absl::StrCat("Drift canary before each step: its costs rerun now over "
                   "the calibration (the composed step scaled by it; "
                   "flagged beyond ",
                   std::llround(kCanaryFlag * 100), " %)"),
      {{"step", "step"},
       {"ratio", "ratio", 3},
       {"flagged", "flagged"},
       {"fields", "each cost now / calibrated"}});
  int64_t flagged = 0;
  for (size_t i = 0; i < c.canaries.size() && i < c.steps.size(); ++i) {
    const CanaryResult& k = c.canaries[i];
    std::string each;
    for (const auto& [name, ratio] : k.fields) {
      absl::StrAppend(&each, each.empty() ? "" : ", ", name, " x",
                      absl::StrFormat("%.3f", ratio));
    }
    flagged += k.flagged();
    t.Add({std::string(c.steps[i]->name), k.ratio,
           std::string(k.flagged() ? "yes" : "no"),
           each.empty() ? std::string("(not run)") : each});
  }
  doc.Set("steps_canary_flagged", "steps whose canary moved beyond 10 %",
          flagged);
}

// On PostgreSQL: the database's share of each side's CPU.
void AddDatabase(core::Document& doc, const RealComparison& c, size_t steps) {
  if (c.db != "postgres") return;
  core::Table& t = doc.AddTable(
      "database",
      "PostgreSQL's CPU, included in CPU (cores) above (real: its server "
      "processes, /proc/PID/stat; composed: the statements' CPU)",
      {{"step", "step"},
       {"real_db_cpu_cores", "real db CPU (cores)", 3},
       {"composed_db_cpu_cores", "composed db CPU (cores)", 3}});
  for (size_t i = 0; i < steps; ++i) {
    t.Add({std::string(c.steps[i]->name), c.real[i].db_cpu_cores,
           c.composed[i].db_cpu_cores});
  }
  doc.Note(
      "--db postgres: the service's pool is libpq sessions to a throwaway "
      "cluster it started; the composed side pays the calibration's "
      "pg_round_trip_ms per statement (81 per N+1 page, 1 per join) and "
      "pg_item_statement_us less it per follow-up statement.");
}

// Why the two sides agree or not: the kernel's view and the drift.
void AddWhy(core::Document& doc, const RealComparison& c, size_t steps) {
  AddMechanisms(doc, c, steps);
  AddDatabase(doc, c, steps);
  AddCanaries(doc, c);
}

// How the run was scaled to this machine, and where the generator's cost
// comes from.
void AddScalingNotes(core::Document& doc, const RealComparison& c) {
  doc.Note(absl::StrCat(
      "Scaled to this machine: the service is pinned to ", c.service_cores,
      " core and the load generator and wrk to ",
      c.generator_cores > 0 ? "the other" : "the same (only one CPU here)",
      "; the composed model runs with cores = 1 at every step. 'right-size' "
      "cannot halve one core, so it changes nothing but the price ($/1M at "
      "the case study's 8 -> 4 vCPU + 1 GiB in both tables). The heap step "
      "is the service's --arena (per-request arena for the page's object "
      "graph)."));
  doc.Note(absl::StrCat(
      "The load generator's CPU per request: ", c.generator_cpu_per_request_us,
      " us measured in this run's closed loops, shown only; the composed "
      "side reads the calibration's cpp_generator_cpu_us (perflab's client "
      "against a server on another core, measured alone), and nothing else "
      "of this run."));
}

// The keys name the bands ("steps_within_30_pct"): they are stable, so a
// new band is a new key.
static_assert(100 * kWithinLoose == 30 && 100 * kWithinTight == 15);
std::string WithinLabel(double band) {
  return absl::StrCat("steps with composed RPS within ", 100 * band, " %");
}

std::string DirectionNote() {
  return absl::StrCat(
      "A step's direction: up or down when its median RPS moves more than ",
      100 * kFlatBand,
      " % from the previous step's and its repeats' range does not overlap "
      "the previous step's; flat otherwise (within the repeats' spread a "
      "move is the machine's noise).");
}

// The real and the composed figures, a table each. Each table is filled
// before the next is added: AddTable may move the earlier ones.
void AddSides(core::Document& doc, const RealComparison& c,
              const std::string& calibration_name, size_t steps) {
  const std::string composed_title =
      absl::StrCat("Composed (calibration ", calibration_name,
                   ", scaled to the same cores)");
  for (const auto& [key, title, figures] :
       {std::tuple{"real", std::string("Real (median of repeats)"), &c.real},
        {"composed", composed_title, &c.composed}}) {
    core::Table& t = doc.AddTable(key, title, FigureColumns());
    for (size_t i = 0; i < steps; ++i)
      AddFigures(t, *c.steps[i], (*figures)[i]);
  }
}

// How many steps agree: RPS within the two bands, and the step directions
// that agree of those with a direction on both sides.
struct RealAgreement {
  int within30 = 0, within15 = 0, same = 0, directions = 0;
};

// The difference per cell, composed minus real in % of real.
RealAgreement AddDifference(core::Document& doc, const RealComparison& c,
                            size_t steps) {
  core::Table& diff =
      doc.AddTable("difference", "Composed minus real, in % of real",
                   {{"step", "step"},
                    {"rps_pct", "RPS %", 1},
                    {"avg_pct", "avg %", 1},
                    {"p95_pct", "p95 %", 1},
                    {"p99_pct", "p99 %", 1},
                    {"open_p99_pct", "open p99 %", 1},
                    {"cpu_pct", "CPU %", 1},
                    {"queries_pct", "queries %", 1},
                    {"real_factor", "real factor", 2},
                    {"composed_factor", "composed factor", 2},
                    {"same_direction", "same direction"}});
  RealAgreement a;
  for (size_t i = 0; i < steps; ++i) {
    const RealFigures& r = c.real[i];
    const RealFigures& m = c.composed[i];
    const double rps_pct = DiffPct(r.rps, m.rps);
    a.within30 += std::fabs(rps_pct) <= 100 * kWithinLoose;
    a.within15 += std::fabs(rps_pct) <= 100 * kWithinTight;
    double rf = 0, mf = 0;
    std::string direction = "-";
    if (i > 0 && c.real[i - 1].rps > 0 && c.composed[i - 1].rps > 0) {
      rf = r.rps / c.real[i - 1].rps;
      mf = m.rps / c.composed[i - 1].rps;
      const bool agree = StepDirection(c.real[i - 1], r) ==
                         StepDirection(c.composed[i - 1], m);
      a.same += agree;
      ++a.directions;
      direction = agree ? "yes" : "no";
    }
    diff.Add({std::string(c.steps[i]->name), rps_pct,
              DiffPct(r.avg_ms, m.avg_ms), DiffPct(r.p95_ms, m.p95_ms),
              DiffPct(r.p99_ms, m.p99_ms),
              DiffPct(r.open_p99_ms, m.open_p99_ms),
              DiffPct(r.cpu_cores, m.cpu_cores),
              DiffPct(r.queries_per_request, m.queries_per_request), rf, mf,
              direction});
  }
  return a;
}

// wrk's closed loop beside perflab's client, and the client's errors.
void AddWitness(core::Document& doc, const RealComparison& c, size_t steps) {
  core::Table& wrk = doc.AddTable("witness", "Closed-loop witness (wrk)",
                                  {{"step", "step"},
                                   {"wrk_rps", "wrk RPS", 1},
                                   {"wrk_p99_ms", "wrk p99 (ms)", 2},
                                   {"errors", "perflab client errors"}});
  for (size_t i = 0; i < steps; ++i) {
    wrk.Add({std::string(c.steps[i]->name), c.real[i].wrk_rps,
             c.real[i].wrk_p99_ms, c.real[i].errors});
  }
}

void SetSummary(core::Document& doc, const RealComparison& c,
                const RealAgreement& a) {
  const int64_t n = static_cast<int64_t>(c.real.size());
  doc.Set("steps_within_30_pct", WithinLabel(kWithinLoose),
          static_cast<int64_t>(a.within30));
  doc.Set("steps_within_15_pct", WithinLabel(kWithinTight),
          static_cast<int64_t>(a.within15));
  doc.Set("steps", "steps", n);
  doc.Set("generator_cpu_per_request_us",
          "load generator CPU per request, measured (us)",
          c.generator_cpu_per_request_us, 1);
  doc.Set("same_direction", "step directions that agree (of the changes)",
          absl::StrCat(a.same, " of ", a.directions));
}

// What the composed C++ service is made of, and what the parts miss.
std::string PartsNote() {
  return absl::StrCat(
      "The composed service is C++ like the real one: no garbage collection "
      "(alloc_per_request_mib = 0), and each request's CPU is the sum of "
      "parts measured alone, none on the whole service: the front end with "
      "an empty handler (bench_net BM_HttpFront_EmptyHandler), the poller's "
      "hand-off to a worker when pooled (the same front end pooled minus per "
      "connection), "
      "the lookup, join, serialisation and kept-alive inventory call of the "
      "calibration, and per miss the page's object graph (bench_payload "
      "BM_MaterialisePage) and one thread woken on an idle core when the "
      "stub's sleep ends (bench_runtime BM_Wake_IdleCore). The whole "
      "service, BM_OrdersService (this service run as here, ",
      case_study::kClosedLoopClients,
      " clients, the 5 ms stub), is only shown beside them; what the parts "
      "miss of it is what no part's benchmark sees (locks and cache lines "
      "shared by 16 threads, the kernel's scheduling of many sleepers on one "
      "core). Without the parts, the front end is the server's half of a "
      "kept-alive loopback request (inventory_cpu_us / 2).");
}

}  // namespace

int StepDirection(const RealFigures& before, const RealFigures& after) {
  if (before.rps <= 0) return 0;
  const int way = FactorWay(after.rps / before.rps);
  if (way > 0 && after.rps_min > before.rps_max) return 1;
  if (way < 0 && after.rps_max < before.rps_min) return -1;
  return 0;
}

void AddWholeAndParts(core::Document& doc, const CppWholeAndParts& w) {
  core::Table& t = doc.AddTable(
      "whole_and_parts",
      "The C++ service's CPU per request: the whole (bench_net "
      "BM_OrdersService) beside the sum of the parts capstone --real's "
      "composed side reads",
      {{"request", "request"},
       {"whole_us", "whole (us)", 1},
       {"parts_us", "parts (us)", 1},
       {"gap_pct", "parts - whole, % of whole", 1}});
  for (const CppWholeAndParts::Row& r : w.rows) {
    t.Add({r.what, r.whole_us, r.parts_us, DiffPct(r.whole_us, r.parts_us)});
  }
}

core::Document ToRealDocument(const RealComparison& c,
                              const std::string& calibration_name) {
  core::Document doc(
      "perflab capstone --real: the order service measured on this machine "
      "beside the composed model");
  const size_t steps = std::min(c.real.size(), c.composed.size());
  AddSides(doc, c, calibration_name, steps);
  const RealAgreement agreement = AddDifference(doc, c, steps);
  AddWhy(doc, c, steps);
  AddWitness(doc, c, steps);
  SetSummary(doc, c, agreement);
  AddScalingNotes(doc, c);
  AddWholeAndParts(doc, c.whole_and_parts);
  doc.Note(PartsNote());
  doc.Note(DirectionNote());
  return doc;
}

}  // namespace perflab::capstone

namespace perflab::capstone {

absl::StatusOr<core::Document> RunRealCapstone(const RealCliArgs& a) {
  if (absl::Status s = CheckDb(a.db); !s.ok()) return s;
  absl::StatusOr<std::vector<const Step*>> steps = ParseSteps(a.steps);
  if (!steps.ok()) return steps.status();
  std::string path = a.calibration;
  if (path.empty()) {
    path = kDefaultCalibrationPath;
    if (!std::filesystem::exists(path)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--calibration: none given and ", kDefaultCalibrationPath,
          " is missing; accepted: a calibration file (run perflab calibrate "
          "--quick first, or pass "
          "fixtures/calibration/reference-xeon-2vcpu-2026-12.json)"));
    }
  }
  absl::StatusOr<CalibrationFile> file = ReadCalibrationFile(path);
  if (!file.ok()) return absl::InvalidArgumentError(file.status().message());
  if (a.db == "postgres") {
    if (absl::Status s = CheckPostgresCalibration(*file, path); !s.ok()) {
      return s;
    }
  }
  RealOptions o;
  o.db = a.db;
  o.steps = *steps;
  o.calibration = file->values;
  o.wrk = !a.no_wrk;
  if (!a.no_canary) {
    absl::StatusOr<sim::Calibration> reference = CanaryReferenceOf(*file);
    if (!reference.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat(path, ": ", reference.status().message()));
    }
    o.canary_reference = *reference;
    CalibrateOptions canary;
    canary.map_path = DefaultMapPath();
    canary.bench_dir = DefaultBenchDir();
    canary.seed_path = DefaultSeedPath();
    o.canary = canary;
  }
  std::error_code ec;
  o.service_binary = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (a.quick) o = QuickRealOptions(o);
  o.progress = [](std::string_view line) { std::cerr << line << "\n"; };
  absl::StatusOr<RealComparison> c = RunReal(o);
  if (!c.ok()) return c.status();
  return ToRealDocument(*c, absl::StrCat(file->name, " (", path, ")"));
}

}  // namespace perflab::capstone
