#include "tools/capstone/composer.h"

#include <algorithm>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/case_study.h"
#include "rapidjson/prettywriter.h"
#include "rapidjson/stringbuffer.h"

namespace perflab::capstone {
namespace {

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// Median over repeats of one metric of a block of results.
template <typename F>
double MedianOf(const std::vector<sim::OrderServiceResult>& results,
                size_t first, int repeats, F metric) {
  std::vector<double> v;
  v.reserve(repeats);
  for (int r = 0; r < repeats; ++r) v.push_back(metric(results[first + r]));
  return Median(std::move(v));
}

double Percent(double part, double whole) {
  return whole > 0 ? 100 * part / whole : 0;
}

double Ratio(double a, double b) { return b > 0 ? a / b : 0; }

sim::OrderServiceLoad ClosedLoad() {
  sim::OrderServiceLoad load;
  load.open = false;
  load.clients = case_study::kClosedLoopClients;
  load.warmup_s = case_study::kRigWarmupS;
  load.duration_s = case_study::kClosedLoopDurationS;
  return load;
}

sim::OrderServiceLoad OpenLoad() {
  sim::OrderServiceLoad load;
  load.open = true;
  load.rate_per_s = case_study::kOpenLoopRatePerS;
  load.warmup_s = case_study::kRigWarmupS;
  load.duration_s = case_study::kOpenLoopDurationS;
  return load;
}

const case_study::CapstoneStepFigures* CaseStudyRow(std::string_view name) {
  for (const auto& row : case_study::kCapstoneTable) {
    if (name == row.step) return &row;
  }
  return nullptr;
}

// A number, or an empty cell when it has no meaning (the first step's factor).
core::Value Maybe(bool present, double v) {
  core::Value value;
  if (present) value = v;
  return value;
}

bool InCaseStudyOrder(const std::vector<const Step*>& steps) {
  const std::vector<Step>& all = AllSteps();
  if (steps.size() != all.size()) return false;
  for (size_t i = 0; i < steps.size(); ++i) {
    if (steps[i] != &all[i]) return false;
  }
  return true;
}

}  // namespace

absl::StatusOr<Composition> Compose(const ComposeOptions& options,
                                    const StepRunner& runner,
                                    const Progress& progress) {
  if (options.steps.empty()) {
    return absl::InvalidArgumentError("capstone: no steps; accepted: >= 1");
  }
  if (options.repeats < 1 || options.jobs < 0) {
    return absl::InvalidArgumentError(
        "capstone: repeats must be >= 1 and jobs >= 0 (0: every core)");
  }
  if (!(options.sensitivity_delta > 0 && options.sensitivity_delta < 1)) {
    return absl::InvalidArgumentError(
        "capstone: sensitivity delta must be in (0, 1)");
  }
  if (!(options.sensitivity_window_s > 0)) {
    return absl::InvalidArgumentError(
        "capstone: sensitivity window must be > 0 s");
  }
  const int repeats = options.repeats;
  Composition c;
  c.steps = options.steps;
  for (int r = 0; r < repeats; ++r) c.seeds.push_back(options.seed + r);
  const std::vector<sim::OrderServiceConfig> configs =
      CumulativeConfigs(options.steps);
  const std::vector<sim::CalibrationField>& fields = sim::CalibrationFields();

  // Two batches, each on every core. First the closed repeats of every step
  // and, with sensitivity, per step and field the minus then the plus runs;
  // then the open repeats, each starting on the cache its closed run left
  // (the rig ran the open loop right after the closed one, in one JVM).
  // Results are put back per step as closed repeats then open repeats, and
  // the sensitivity runs after them.
  std::vector<Run> runs;
  for (const sim::OrderServiceConfig& config : configs) {
    for (uint64_t seed : c.seeds) {
      runs.push_back({options.calibration, config, ClosedLoad(), seed});
    }
  }
  // Sensitivity uses common random numbers: -delta and +delta run with the
  // first repeat's seed, the same as the step's own first closed run, so the
  // three differ only by the changed cost and one run each suffices (the
  // simulation is deterministic per seed). A zero cost, or one this step
  // never reads, has no +-delta: its elasticity is 0 without running.
  auto changed = [&](const sim::CalibrationField& f, double sign) {
    sim::Calibration c = options.calibration;
    c.*f.member *= 1 + sign * options.sensitivity_delta;
    return c;
  };
  // Also skipped: a variant that cannot differ from the base run, such as
  // 4 cores +-10 % (still 4 whole cores).
  auto varied = [&](const sim::OrderServiceConfig& config,
                    const sim::CalibrationField& f) {
    return options.calibration.*f.member != 0 &&
           sim::ReadsField(config, f.member) &&
           !(sim::SameRun(options.calibration, changed(f, -1), config) &&
             sim::SameRun(options.calibration, changed(f, 1), config));
  };
  // The +-delta runs keep the rig's warm-up (caches, GC) but measure a
  // shorter window: sharing a seed, their difference is mostly the change.
  sim::OrderServiceLoad varied_load = ClosedLoad();
  varied_load.duration_s = options.sensitivity_window_s;
  if (options.sensitivity) {
    for (const sim::OrderServiceConfig& config : configs) {
      for (const sim::CalibrationField& f : fields) {
        if (!varied(config, f)) continue;
        for (double sign : {-1.0, 1.0}) {
          runs.push_back(
              {changed(f, sign), config, varied_load, c.seeds.front()});
        }
      }
    }
  }
  const size_t closed_runs = configs.size() * c.seeds.size();
  const size_t total = runs.size() + closed_runs;
  Progress first_batch = nullptr;
  if (progress) {
    first_batch = [&](size_t done, size_t) { progress(done, total); };
  }
  absl::StatusOr<std::vector<sim::OrderServiceResult>> closed =
      ExecuteRuns(runs, runner, options.jobs, first_batch);
  if (!closed.ok()) return closed.status();
  std::vector<Run> open_runs;
  for (size_t k = 0; k < closed_runs; ++k) {
    Run open = runs[k];
    open.load = OpenLoad();
    const sim::OrderServiceLoad& before = runs[k].load;
    open.load.cache_prewarm_s = before.warmup_s + before.duration_s;
    open.load.cache_prewarm_requests =
        std::llround((*closed)[k].rps * open.load.cache_prewarm_s);
    open_runs.push_back(open);
  }
  const size_t first_done = runs.size();
  Progress second_batch = nullptr;
  if (progress) {
    second_batch = [&](size_t done, size_t) {
      progress(first_done + done, total);
    };
  }
  absl::StatusOr<std::vector<sim::OrderServiceResult>> opened =
      ExecuteRuns(open_runs, runner, options.jobs, second_batch);
  if (!opened.ok()) return opened.status();
  std::vector<sim::OrderServiceResult> res;
  res.reserve(total);
  const size_t repeats_n = c.seeds.size();
  for (size_t i = 0; i < configs.size(); ++i) {
    for (size_t r = 0; r < repeats_n; ++r) {
      res.push_back(std::move((*closed)[i * repeats_n + r]));
    }
    for (size_t r = 0; r < repeats_n; ++r) {
      res.push_back(std::move((*opened)[i * repeats_n + r]));
    }
  }
  for (size_t k = closed_runs; k < runs.size(); ++k) {
    res.push_back(std::move((*closed)[k]));
  }

  size_t at = 0;
  for (size_t i = 0; i < configs.size(); ++i) {
    StepFigures f;
    auto closed = [&](auto metric) {
      return MedianOf(res, at, repeats, metric);
    };
    using R = sim::OrderServiceResult;
    f.rps = closed([](const R& r) { return r.rps; });
    f.avg_ms = closed([](const R& r) { return r.avg_ms; });
    f.p95_ms = closed([](const R& r) { return r.p95_ms; });
    f.p99_ms = closed([](const R& r) { return r.p99_ms; });
    f.cpu_cores = closed([](const R& r) { return r.cpu_cores; });
    f.queries_per_request =
        closed([](const R& r) { return r.queries_per_request; });
    f.cache_hit_ratio = closed([](const R& r) { return r.cache_hit_ratio; });
    f.generator_utilisation =
        closed([](const R& r) { return r.generator_utilisation; });
    f.threads = res[at].threads;
    f.pool = configs[i].db_pool;
    f.app_cores = res[at].app_cores;
    f.threads_busy = closed([](const R& r) { return r.threads_busy; });
    f.thread_wait_ms = closed([](const R& r) { return r.thread_wait_ms; });
    f.pool_busy = closed([](const R& r) { return r.pool_busy; });
    f.pool_wait_ms = closed([](const R& r) { return r.pool_wait_ms; });
    // Shares: the median of each category's percentage over the repeats.
    f.cpu_share.database =
        closed([](const R& r) { return Percent(r.cpu.database, r.cpu_cores); });
    f.cpu_share.http =
        closed([](const R& r) { return Percent(r.cpu.http, r.cpu_cores); });
    f.cpu_share.serialisation = closed(
        [](const R& r) { return Percent(r.cpu.serialisation, r.cpu_cores); });
    f.cpu_share.gc =
        closed([](const R& r) { return Percent(r.cpu.gc, r.cpu_cores); });
    f.cpu_share.other =
        closed([](const R& r) { return Percent(r.cpu.other, r.cpu_cores); });
    for (int k = 0; k < 2 * repeats; ++k) {
      const sim::SteadyVerdict& v = res[at + k].steady;
      if (v.steady) continue;
      f.steady = false;
      for (const std::string& reason : v.reasons) {
        f.steady_reasons.push_back(
            absl::StrCat(k < repeats ? "closed" : "open", " loop, seed ",
                         c.seeds[k % repeats], ": ", reason));
      }
    }
    at += repeats;
    f.open_p99_ms =
        MedianOf(res, at, repeats, [](const R& r) { return r.p99_ms; });
    at += repeats;
    if (f.rps > 0) {
      absl::StatusOr<models::Cost> cost =
          models::CostPerMillion(f.rps, static_cast<double>(configs[i].cores),
                                 case_study::kCapstoneMemGib, options.cost);
      if (!cost.ok()) return cost.status();
      f.usd_per_million = cost->usd_per_million;
    }
    f.factor = i == 0 ? 0 : Ratio(f.rps, c.figures.back().rps);
    const size_t closed_first = at - 2 * repeats_n;
    for (size_t r = 0; r < repeats_n; ++r) {
      f.rps_repeats.push_back(res[closed_first + r].rps);
      if (i > 0) {
        f.factor_repeats.push_back(
            Ratio(f.rps_repeats.back(), c.figures.back().rps_repeats[r]));
      }
    }
    c.figures.push_back(f);
  }
  const StepFigures& first = c.figures.front();
  const StepFigures& last = c.figures.back();
  c.p99_x = Ratio(first.p99_ms, last.p99_ms);
  c.open_p99_x = Ratio(first.open_p99_ms, last.open_p99_ms);
  c.rps_x = Ratio(last.rps, first.rps);
  c.cost_x = Ratio(first.usd_per_million, last.usd_per_million);

  if (options.sensitivity) {
    c.sensitivity_delta = options.sensitivity_delta;
    c.sensitivity_window_s = options.sensitivity_window_s;
    for (size_t i = 0; i < configs.size(); ++i) {
      std::vector<Elasticity> row(fields.size());
      // The step's first closed run: same seed as its -delta and +delta.
      const double base_rps = res[i * 2 * repeats].rps;
      for (size_t k = 0; k < fields.size(); ++k) {
        if (!varied(configs[i], fields[k])) continue;
        row[k].minus_rps = res[at++].rps;
        row[k].plus_rps = res[at++].rps;
        row[k].elasticity = Ratio(row[k].plus_rps - row[k].minus_rps,
                                  2 * options.sensitivity_delta * base_rps);
      }
      c.sensitivity.push_back(std::move(row));
    }
  }
  return c;
}

std::vector<size_t> TopThree(const std::vector<Elasticity>& row) {
  std::vector<size_t> order;
  for (size_t k = 0; k < row.size(); ++k) {
    if (row[k].elasticity < 0) order.push_back(k);
  }
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return row[a].elasticity < row[b].elasticity;
  });
  if (order.size() > 3) order.resize(3);
  return order;
}

core::Document ToDocument(const Composition& c, const CalibrationIdentity& id,
                          const models::CostOptions& cost) {
  core::Document doc(
      "capstone: the case study's steps composed from a calibration");
  doc.Set("calibration", "calibration", id.name);
  doc.Set("calibration_path", "calibration file", id.path);
  doc.Set("calibration_hash", "calibration identity", id.hash);
  std::vector<std::string> seeds;
  for (uint64_t s : c.seeds) seeds.push_back(absl::StrCat(s));
  doc.Set("seeds", "seeds (one per repeat; median reported)",
          absl::StrJoin(seeds, ","));
  doc.Set("usd_per_vcpu_hour", "example price per vCPU-hour ($)",
          cost.usd_per_vcpu_hour, 4);
  doc.Set("usd_per_gib_hour", "example price per GiB-hour ($)",
          cost.usd_per_gib_hour, 4);
  doc.Set("target_utilisation", "target utilisation", cost.target_utilisation,
          2);

  core::Table& steps = doc.AddTable(
      "steps", "Per step (closed loop 32 clients; open loop 40 req/s)",
      {{"name", "step"},
       {"change", "change"},
       {"rps", "RPS", 0},
       {"avg_ms", "avg (ms)", 1},
       {"p95_ms", "p95 (ms)", 1},
       {"p99_ms", "p99 (ms)", 1},
       {"open_p99_ms", "open p99 (ms)", 1},
       {"cpu_cores", "CPU (cores)", 2},
       {"queries_per_request", "queries/req", 1},
       {"cache_hit_ratio", "hit ratio", 3},
       {"usd_per_million", "$/1M (example)", 3},
       {"factor", "factor", 2},
       {"case_study_factor", "case study", 2}});
  for (size_t i = 0; i < c.steps.size(); ++i) {
    const StepFigures& f = c.figures[i];
    const case_study::CapstoneStepFigures* cs = CaseStudyRow(c.steps[i]->name);
    steps.Add({std::string(c.steps[i]->name), StepChange(*c.steps[i]), f.rps,
               f.avg_ms, f.p95_ms, f.p99_ms, f.open_p99_ms, f.cpu_cores,
               f.queries_per_request, f.cache_hit_ratio, f.usd_per_million,
               Maybe(i > 0, f.factor),
               Maybe(i > 0 && cs != nullptr, cs != nullptr ? cs->factor : 0)});
  }
  core::Table& cpu = doc.AddTable(
      "cpu_share", "Application CPU by category (% of its cores used)",
      {{"name", "step"},
       {"database_pct", "database %", 1},
       {"http_pct", "HTTP + stub %", 1},
       {"serialisation_pct", "serialisation %", 1},
       {"gc_pct", "GC %", 1},
       {"other_pct", "other %", 1},
       {"generator_utilisation_pct", "load generator busy %", 1}});
  for (size_t i = 0; i < c.steps.size(); ++i) {
    const StepFigures& f = c.figures[i];
    cpu.Add({std::string(c.steps[i]->name), f.cpu_share.database,
             f.cpu_share.http, f.cpu_share.serialisation, f.cpu_share.gc,
             f.cpu_share.other, 100 * f.generator_utilisation});
  }
  core::Table& caps = doc.AddTable(
      "caps",
      "Caps in series (closed loop): each cap's size, mean busy and wait per "
      "request",
      {{"name", "step"},
       {"threads", "threads"},
       {"threads_busy", "busy", 1},
       {"thread_wait_ms", "wait (ms)", 2},
       {"pool", "pool"},
       {"pool_busy", "busy", 2},
       {"pool_wait_ms", "wait (ms)", 2},
       {"app_cores", "cores"},
       {"cores_busy", "busy", 2}});
  for (size_t i = 0; i < c.steps.size(); ++i) {
    const StepFigures& f = c.figures[i];
    const bool capped = f.threads > 0;
    caps.Add({std::string(c.steps[i]->name),
              capped ? core::Value(f.threads) : std::string("virtual"),
              Maybe(capped, f.threads_busy), Maybe(capped, f.thread_wait_ms),
              f.pool, f.pool_busy, f.pool_wait_ms, f.app_cores, f.cpu_cores});
  }
  core::Table& beside =
      doc.AddTable("case_study", "The case study's own figures for these steps",
                   {{"name", "step"},
                    {"rps", "RPS", 0},
                    {"p95_ms", "p95 (ms)", 1},
                    {"p99_ms", "p99 (ms)", 1},
                    {"open_p99_ms", "open p99 (ms)", 1},
                    {"cpu_cores", "CPU (cores)", 1},
                    {"queries_per_request", "queries/req", 0},
                    {"usd_per_million", "$/1M", 3}});
  for (const Step* s : c.steps) {
    const case_study::CapstoneStepFigures* cs = CaseStudyRow(s->name);
    if (cs == nullptr) continue;
    beside.Add({std::string(s->name), cs->rps, cs->p95_ms, cs->p99_ms,
                cs->open_p99_ms, cs->cpu_cores, cs->queries_per_request,
                cs->usd_per_million});
  }
  core::Table& outcomes =
      doc.AddTable("outcomes", "Outcomes: first step against last",
                   {{"metric", "metric"},
                    {"perflab_x", "perflab (x)", 1},
                    {"case_study_x", "case study (x)", 0}});
  outcomes.Add(
      {std::string("p99 lower"), c.p99_x, case_study::kCapstoneP99Outcome});
  outcomes.Add({std::string("open-loop p99 lower"), c.open_p99_x,
                case_study::kCapstoneOpenP99Outcome});
  outcomes.Add({std::string("throughput higher"), c.rps_x,
                case_study::kCapstoneRpsOutcome});
  outcomes.Add({std::string("cost per 1M lower"), c.cost_x,
                case_study::kCapstoneCostOutcome});

  const std::vector<sim::CalibrationField>& fields = sim::CalibrationFields();
  if (!c.sensitivity.empty()) {
    core::Table& next = doc.AddTable(
        "what_to_fix_next",
        absl::StrCat("What to fix next: elasticity of RPS to each cost (+-",
                     c.sensitivity_delta * 100, " %), most negative first"),
        {{"name", "step"},
         {"first", "first"},
         {"first_elasticity", "elasticity", 3},
         {"second", "second"},
         {"second_elasticity", "elasticity", 3},
         {"third", "third"},
         {"third_elasticity", "elasticity", 3}});
    core::Table& all =
        doc.AddTable("sensitivity",
                     "Elasticity of RPS to every cost the step reads (common "
                     "random numbers: one run per variant, first seed)",
                     {{"name", "step"},
                      {"field", "cost"},
                      {"minus_rps", "RPS at -delta", 0},
                      {"plus_rps", "RPS at +delta", 0},
                      {"elasticity", "elasticity", 3}});
    for (size_t i = 0; i < c.steps.size(); ++i) {
      std::vector<core::Value> row = {std::string(c.steps[i]->name)};
      std::vector<size_t> top = TopThree(c.sensitivity[i]);
      for (size_t k = 0; k < 3; ++k) {
        if (k < top.size()) {
          row.emplace_back(std::string(fields[top[k]].name));
          row.emplace_back(c.sensitivity[i][top[k]].elasticity);
        } else {
          row.emplace_back(std::string("-"));
          row.emplace_back(std::monostate{});
        }
      }
      next.Add(std::move(row));
      for (size_t k = 0; k < fields.size(); ++k) {
        const Elasticity& e = c.sensitivity[i][k];
        if (e.minus_rps == 0 && e.plus_rps == 0) continue;
        all.Add({std::string(c.steps[i]->name), std::string(fields[k].name),
                 e.minus_rps, e.plus_rps, e.elasticity});
      }
    }
  }
  doc.Note(
      "Each figure is the median of the repeats; factor = RPS / previous "
      "step's RPS; prices are EXAMPLE list prices (flags --usd-per-vcpu-hour, "
      "--usd-per-gib-hour, --target-utilisation).");
  doc.Note(
      "Caps: a cap busy near its size is the limit; a wait is per request (a "
      "request's statements' pool waits summed); busy cores queue as "
      "stretched work, not as a wait.");
  if (!c.sensitivity.empty()) {
    doc.Note(absl::StrCat(
        "Sensitivity: common random numbers. Each cost at -",
        c.sensitivity_delta * 100, " % and +", c.sensitivity_delta * 100,
        " % runs once, closed loop (", c.sensitivity_window_s,
        " s window after the warm-up), with the first seed (", c.seeds.front(),
        "); their difference is scaled by the step's own run with that "
        "seed. Costs that are zero, "
        "that a step never reads, or whose +-delta rounds to the same whole "
        "cores are not run (elasticity 0)."));
  }
  for (size_t i = 0; i < c.steps.size(); ++i) {
    for (const std::string& reason : c.figures[i].steady_reasons) {
      doc.Note(absl::StrCat("warning: step ", std::string(c.steps[i]->name),
                            " is not a steady result: ", reason, "."));
    }
  }
  if (!InCaseStudyOrder(c.steps)) {
    doc.Note(
        "The steps are not the case study's ten in its order: its factors "
        "and outcomes are for its own sequence, shown for reference only.");
  }
  return doc;
}

std::string ToJson(const Composition& c, const CalibrationIdentity& id,
                   const models::CostOptions& cost) {
  rapidjson::StringBuffer buffer;
  rapidjson::PrettyWriter<rapidjson::StringBuffer> w(buffer);
  w.SetIndent(' ', 2);
  auto key_double = [&w](const char* key, double v) {
    w.Key(key);
    w.Double(v);
  };
  w.StartObject();
  w.Key("calibration");
  w.StartObject();
  w.Key("name");
  w.String(id.name.c_str());
  w.Key("path");
  w.String(id.path.c_str());
  w.Key("hash");
  w.String(id.hash.c_str());
  w.EndObject();
  w.Key("seeds");
  w.StartArray();
  for (uint64_t s : c.seeds) w.Uint64(s);
  w.EndArray();
  w.Key("example_prices");
  w.StartObject();
  key_double("usd_per_vcpu_hour", cost.usd_per_vcpu_hour);
  key_double("usd_per_gib_hour", cost.usd_per_gib_hour);
  key_double("target_utilisation", cost.target_utilisation);
  w.EndObject();
  w.Key("steps");
  w.StartArray();
  for (size_t i = 0; i < c.steps.size(); ++i) {
    const StepFigures& f = c.figures[i];
    w.StartObject();
    w.Key("name");
    w.String(c.steps[i]->name.data(),
             static_cast<rapidjson::SizeType>(c.steps[i]->name.size()));
    w.Key("change");
    w.String(StepChange(*c.steps[i]).c_str());
    key_double("rps", f.rps);
    key_double("avg_ms", f.avg_ms);
    key_double("p95_ms", f.p95_ms);
    key_double("p99_ms", f.p99_ms);
    key_double("open_p99_ms", f.open_p99_ms);
    key_double("cpu_cores", f.cpu_cores);
    key_double("queries_per_request", f.queries_per_request);
    key_double("cache_hit_ratio", f.cache_hit_ratio);
    key_double("usd_per_million", f.usd_per_million);
    key_double("generator_utilisation", f.generator_utilisation);
    key_double("factor", f.factor);
    for (const auto& [key, values] :
         {std::pair{"rps_repeats", &f.rps_repeats},
          std::pair{"factor_repeats", &f.factor_repeats}}) {
      w.Key(key);
      w.StartArray();
      for (double v : *values) w.Double(v);
      w.EndArray();
    }
    w.Key("steady");
    w.Bool(f.steady);
    const case_study::CapstoneStepFigures* cs = CaseStudyRow(c.steps[i]->name);
    key_double("case_study_rps", cs != nullptr ? cs->rps : 0);
    key_double("case_study_factor", cs != nullptr ? cs->factor : 0);
    w.Key("caps");
    w.StartObject();
    for (const auto& [key, value] :
         {std::pair{"threads", f.threads}, std::pair{"pool", f.pool},
          std::pair{"app_cores", f.app_cores}}) {
      w.Key(key);
      w.Int64(value);
    }
    key_double("threads_busy", f.threads_busy);
    key_double("thread_wait_ms", f.thread_wait_ms);
    key_double("pool_busy", f.pool_busy);
    key_double("pool_wait_ms", f.pool_wait_ms);
    w.EndObject();
    w.Key("cpu_share");
    w.StartObject();
    key_double("database_pct", f.cpu_share.database);
    key_double("http_pct", f.cpu_share.http);
    key_double("serialisation_pct", f.cpu_share.serialisation);
    key_double("gc_pct", f.cpu_share.gc);
    key_double("other_pct", f.cpu_share.other);
    w.EndObject();
    if (!c.sensitivity.empty()) {
      const std::vector<sim::CalibrationField>& fields =
          sim::CalibrationFields();
      w.Key("elasticity");
      w.StartObject();
      for (size_t k = 0; k < fields.size(); ++k) {
        w.Key(fields[k].name.data(),
              static_cast<rapidjson::SizeType>(fields[k].name.size()));
        w.Double(c.sensitivity[i][k].elasticity);
      }
      w.EndObject();
      w.Key("what_to_fix_next");
      w.StartArray();
      for (size_t k : TopThree(c.sensitivity[i])) {
        w.String(fields[k].name.data(),
                 static_cast<rapidjson::SizeType>(fields[k].name.size()));
      }
      w.EndArray();
    }
    w.EndObject();
  }
  w.EndArray();
  w.Key("outcomes");
  w.StartObject();
  key_double("p99_x_lower", c.p99_x);
  key_double("open_p99_x_lower", c.open_p99_x);
  key_double("rps_x_higher", c.rps_x);
  key_double("cost_x_lower", c.cost_x);
  key_double("case_study_p99_x_lower", case_study::kCapstoneP99Outcome);
  key_double("case_study_open_p99_x_lower",
             case_study::kCapstoneOpenP99Outcome);
  key_double("case_study_rps_x_higher", case_study::kCapstoneRpsOutcome);
  key_double("case_study_cost_x_lower", case_study::kCapstoneCostOutcome);
  w.EndObject();
  if (!c.sensitivity.empty()) {
    key_double("sensitivity_delta", c.sensitivity_delta);
    key_double("sensitivity_window_s", c.sensitivity_window_s);
  }
  w.EndObject();
  return std::string(buffer.GetString(), buffer.GetSize()) + "\n";
}

}  // namespace perflab::capstone
