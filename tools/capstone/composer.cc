#include "tools/capstone/composer.h"

#include <algorithm>
#include <cmath>
#include <mutex>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/case_study.h"
#include "core/parallel.h"
#include "models/median.h"
#include "tools/capstone/mva_estimate.h"

namespace perflab::capstone {
namespace {

// Median over repeats of one metric of a block of results.
template <typename F>
double MedianOf(const std::vector<sim::OrderServiceResult>& results,
                size_t first, int repeats, F metric) {
  std::vector<double> v;
  v.reserve(repeats);
  for (int r = 0; r < repeats; ++r) v.push_back(metric(results[first + r]));
  return models::Median(std::move(v));
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
  load.latency_histogram = false;  // the table reads the summary alone
  return load;
}

sim::OrderServiceLoad OpenLoad() {
  sim::OrderServiceLoad load;
  load.open = true;
  load.rate_per_s = case_study::kOpenLoopRatePerS;
  load.warmup_s = case_study::kRigWarmupS;
  load.duration_s = case_study::kOpenLoopDurationS;
  load.latency_histogram = false;
  return load;
}

// Options out of range, refused before any run with what is accepted.
absl::Status CheckOptions(const ComposeOptions& options) {
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
  if (!(options.sensitivity_warmup_s > 0)) {
    return absl::InvalidArgumentError(
        "capstone: sensitivity warm-up must be > 0 s");
  }
  if (options.sensitivity_seeds < 1 ||
      options.sensitivity_seeds > options.repeats) {
    return absl::InvalidArgumentError(
        absl::StrCat("capstone: sensitivity seeds ", options.sensitivity_seeds,
                     "; accepted: 1 to the repeats (", options.repeats, ")"));
  }
  return absl::OkStatus();
}

// The calibration with one cost moved by `sign` x delta.
sim::Calibration Changed(const ComposeOptions& options,
                         const sim::CalibrationField& f, double sign) {
  sim::Calibration c = options.calibration;
  c.*f.member *= 1 + sign * options.sensitivity_delta;
  return c;
}

// Whether a step gets +-delta runs for a cost. A zero cost, or one this
// step never reads, has no +-delta: its elasticity is 0 without running.
// Also skipped: a variant that cannot differ from the base run, such as
// 4 cores +-10 % (still 4 whole cores).
bool Varied(const ComposeOptions& options,
            const sim::OrderServiceConfig& config,
            const sim::CalibrationField& f) {
  return options.calibration.*f.member != 0 &&
         sim::ReadsField(config, f.member) &&
         !(sim::SameRun(options.calibration, Changed(options, f, -1), config) &&
           sim::SameRun(options.calibration, Changed(options, f, 1), config));
}

// The first batch: the closed repeats of every step, then with sensitivity,
// per step, field and sensitivity seed, the minus then the plus run.
// Sensitivity uses common random numbers: -delta and +delta run with a
// repeat's seed, the same as the step's own closed run with it, so the
// three differ only by the changed cost and one run each suffices (the
// simulation is deterministic per seed).
std::vector<Run> ClosedAndVariedRuns(
    const ComposeOptions& options,
    const std::vector<sim::OrderServiceConfig>& configs,
    const std::vector<uint64_t>& seeds) {
  std::vector<Run> runs;
  for (const sim::OrderServiceConfig& config : configs) {
    for (uint64_t seed : seeds) {
      runs.push_back({options.calibration, config, ClosedLoad(), seed});
    }
  }
  if (!options.sensitivity) return runs;
  // The +-delta runs measure a shorter window: sharing a seed, their
  // difference is mostly the change. Where the cache is on they keep the
  // rig's warm-up, as the cache is still filling at its end.
  for (const sim::OrderServiceConfig& config : configs) {
    sim::OrderServiceLoad varied_load = ClosedLoad();
    varied_load.duration_s = options.sensitivity_window_s;
    if (!config.cache) varied_load.warmup_s = options.sensitivity_warmup_s;
    for (const sim::CalibrationField& f : sim::CalibrationFields()) {
      if (!Varied(options, config, f)) continue;
      for (int r = 0; r < options.sensitivity_seeds; ++r) {
        for (double sign : {-1.0, 1.0}) {
          runs.push_back({Changed(options, f, sign), config, varied_load,
                          seeds[static_cast<size_t>(r)]});
        }
      }
    }
  }
  return runs;
}

// The open loop of a closed run: the same step and seed, starting on the
// cache its closed run left (the rig ran the open loop right after the
// closed one, in one JVM).
Run OpenRun(const Run& closed_run, const sim::OrderServiceResult& closed) {
  Run open = closed_run;
  open.load = OpenLoad();
  sim::StartOnClosedLoopsCache(closed_run.load, closed.rps, open.load);
  return open;
}

// One composition's runs and, once they ran, their results.
struct Plan {
  std::vector<sim::OrderServiceConfig> configs;
  std::vector<uint64_t> seeds;
  // The closed repeats of every step (the first closed_runs), then the
  // +-delta runs (ClosedAndVariedRuns).
  std::vector<Run> runs;
  size_t closed_runs = 0;
  std::vector<absl::StatusOr<sim::OrderServiceResult>> results;  // per run
  std::vector<absl::StatusOr<sim::OrderServiceResult>> open;     // per closed
};

Plan MakePlan(const ComposeOptions& options) {
  Plan p;
  for (int r = 0; r < options.repeats; ++r) p.seeds.push_back(options.seed + r);
  p.configs = CumulativeConfigs(options.steps);
  p.runs = ClosedAndVariedRuns(options, p.configs, p.seeds);
  p.closed_runs = p.configs.size() * p.seeds.size();
  p.results.assign(p.runs.size(), absl::UnknownError("not run"));
  p.open.assign(p.closed_runs, absl::UnknownError("not run"));
  return p;
}

// Runs every plan's runs on one pool of `jobs` workers. A task is a closed
// run followed, on the same worker, by its open run (which needs the closed
// run's RPS), or one +-delta run; the closed runs' tasks come first, as the
// longest. Each result lands in its own slot, so nothing depends on the
// number of workers or on which finished first. Errors are per plan, in
// plan order: the lowest failing closed or +-delta run's, else the lowest
// failing open run's, as if the open runs were a second batch.
absl::Status RunPlans(std::vector<Plan>& plans,
                      const std::vector<StepRunner>& runners, int jobs,
                      const Progress& progress) {
  struct Task {
    size_t plan, run;
  };
  std::vector<Task> tasks;
  size_t total = 0;
  for (size_t p = 0; p < plans.size(); ++p) {
    total += plans[p].runs.size() + plans[p].closed_runs;
    for (size_t k = 0; k < plans[p].closed_runs; ++k) tasks.push_back({p, k});
  }
  for (size_t p = 0; p < plans.size(); ++p) {
    for (size_t k = plans[p].closed_runs; k < plans[p].runs.size(); ++k) {
      tasks.push_back({p, k});
    }
  }
  std::mutex mu;
  size_t done = 0;
  auto finished = [&] {
    if (!progress) return;
    std::lock_guard<std::mutex> lock(mu);
    progress(++done, total);
  };
  auto run = [&](const StepRunner& runner, const Run& r) {
    return runner(r.calibration, r.config, r.load, r.seed);
  };
  // Every task runs whatever failed elsewhere, so the error chosen below
  // does not depend on which tasks a failure would have skipped.
  absl::Status refused = core::ParallelFor(
      std::ssize(tasks), jobs, [&](int64_t i) -> absl::Status {
        const Task t = tasks[static_cast<size_t>(i)];
        Plan& plan = plans[t.plan];
        const StepRunner& runner = runners[t.plan];
        plan.results[t.run] = run(runner, plan.runs[t.run]);
        finished();
        if (t.run < plan.closed_runs && plan.results[t.run].ok()) {
          plan.open[t.run] =
              run(runner, OpenRun(plan.runs[t.run], *plan.results[t.run]));
          finished();
        }
        return absl::OkStatus();
      });
  if (!refused.ok()) return refused;
  for (const Plan& plan : plans) {
    for (const auto& r : plan.results) {
      if (!r.ok()) return r.status();
    }
    for (const auto& r : plan.open) {
      if (!r.ok()) return r.status();
    }
  }
  return absl::OkStatus();
}

// A plan's results as the summaries read them: per step its closed repeats
// then its open repeats, and the +-delta runs after every step's.
std::vector<sim::OrderServiceResult> Ordered(Plan& plan) {
  const size_t repeats = plan.seeds.size();
  std::vector<sim::OrderServiceResult> res;
  res.reserve(plan.runs.size() + plan.closed_runs);
  for (size_t i = 0; i < plan.configs.size(); ++i) {
    for (size_t r = 0; r < repeats; ++r) {
      res.push_back(*std::move(plan.results[i * repeats + r]));
    }
    for (size_t r = 0; r < repeats; ++r) {
      res.push_back(*std::move(plan.open[i * repeats + r]));
    }
  }
  for (size_t k = plan.closed_runs; k < plan.runs.size(); ++k) {
    res.push_back(*std::move(plan.results[k]));
  }
  return res;
}

// The closed loop's medians over the repeats from `first`, the caps'
// capacities from its first repeat (the same in every repeat).
StepFigures ClosedMedians(const std::vector<sim::OrderServiceResult>& res,
                          size_t first, int repeats) {
  using R = sim::OrderServiceResult;
  auto closed = [&](auto metric) {
    return MedianOf(res, first, repeats, metric);
  };
  StepFigures f;
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
  f.threads = res[first].threads;
  f.app_cores = res[first].app_cores;
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
  return f;
}

// The reasons of every repeat of both loops that failed the steady-state
// check, each prefixed with its loop and seed.
void AddSteadyReasons(const std::vector<sim::OrderServiceResult>& res,
                      size_t first, const std::vector<uint64_t>& seeds,
                      StepFigures& f) {
  const int repeats = static_cast<int>(seeds.size());
  for (int k = 0; k < 2 * repeats; ++k) {
    const sim::SteadyVerdict& v = res[first + k].steady;
    if (v.steady) continue;
    f.steady = false;
    for (const std::string& reason : v.reasons) {
      f.steady_reasons.push_back(
          absl::StrCat(k < repeats ? "closed" : "open", " loop, seed ",
                       seeds[k % repeats], ": ", reason));
    }
  }
}

// One step's figures from its closed and open repeats at `first`, against
// the previous step's (nullptr for the first step).
absl::StatusOr<StepFigures> SummariseStep(
    const ComposeOptions& options, const sim::OrderServiceConfig& config,
    const std::vector<sim::OrderServiceResult>& res, size_t first,
    const std::vector<uint64_t>& seeds, const StepFigures* previous) {
  using R = sim::OrderServiceResult;
  const int repeats = options.repeats;
  StepFigures f = ClosedMedians(res, first, repeats);
  f.pool = config.db_pool;
  // As the model rounds them (sim/order_service/model.cc).
  f.generator_cores = std::llround(options.calibration.generator_cores);
  f.miss_wait_ms = MissWaitMs(options.calibration, config);
  AddSteadyReasons(res, first, seeds, f);
  const size_t open_first = first + static_cast<size_t>(repeats);
  f.open_p99_ms =
      MedianOf(res, open_first, repeats, [](const R& r) { return r.p99_ms; });
  f.open_rps =
      MedianOf(res, open_first, repeats, [](const R& r) { return r.rps; });
  if (f.rps > 0) {
    absl::StatusOr<models::Cost> cost =
        models::CostPerMillion(f.rps, static_cast<double>(config.cores),
                               case_study::kCapstoneMemGib, options.cost);
    if (!cost.ok()) return cost.status();
    f.usd_per_million = cost->usd_per_million;
  }
  f.factor = previous == nullptr ? 0 : Ratio(f.rps, previous->rps);
  for (size_t r = 0; r < seeds.size(); ++r) {
    f.rps_repeats.push_back(res[first + r].rps);
    if (previous != nullptr) {
      f.factor_repeats.push_back(
          Ratio(f.rps_repeats.back(), previous->rps_repeats[r]));
    }
  }
  return f;
}

// Per step, the elasticity of RPS to each cost from its -delta and +delta
// runs, which follow every step's repeats in `res` from `at`.
std::vector<std::vector<Elasticity>> Elasticities(
    const ComposeOptions& options,
    const std::vector<sim::OrderServiceConfig>& configs,
    const std::vector<sim::OrderServiceResult>& res, size_t at) {
  const std::vector<sim::CalibrationField>& fields = sim::CalibrationFields();
  std::vector<std::vector<Elasticity>> rows;
  for (size_t i = 0; i < configs.size(); ++i) {
    std::vector<Elasticity> row(fields.size());
    for (size_t k = 0; k < fields.size(); ++k) {
      if (!Varied(options, configs[i], fields[k])) continue;
      const int seeds = options.sensitivity_seeds;
      double minus = 0, plus = 0, sum = 0;
      for (int r = 0; r < seeds; ++r) {
        // The step's closed run with seed r: the same as its -delta and
        // +delta runs'.
        const double base_rps =
            res[i * 2 * static_cast<size_t>(options.repeats) +
                static_cast<size_t>(r)]
                .rps;
        const double m = res[at++].rps;
        const double p = res[at++].rps;
        const double e = Ratio(p - m, 2 * options.sensitivity_delta * base_rps);
        minus += m;
        plus += p;
        sum += e;
        row[k].lowest = r == 0 ? e : std::min(row[k].lowest, e);
        row[k].highest = r == 0 ? e : std::max(row[k].highest, e);
      }
      // Divided even when one seed ran: x / 1 is x, to the bit.
      const auto n = static_cast<double>(seeds);
      row[k].minus_rps = minus / n;
      row[k].plus_rps = plus / n;
      row[k].elasticity = sum / n;
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

// The composition from a plan whose runs all succeeded.
absl::StatusOr<Composition> Summarise(const ComposeOptions& options,
                                      Plan& plan) {
  Composition c;
  c.steps = options.steps;
  c.calibration = options.calibration;
  c.seeds = plan.seeds;
  const std::vector<sim::OrderServiceConfig>& configs = plan.configs;
  const std::vector<sim::OrderServiceResult> res = Ordered(plan);
  // Each step's closed then open repeats.
  const size_t per_step = 2 * c.seeds.size();
  for (size_t i = 0; i < configs.size(); ++i) {
    absl::StatusOr<StepFigures> f =
        SummariseStep(options, configs[i], res, i * per_step, c.seeds,
                      i == 0 ? nullptr : &c.figures.back());
    if (!f.ok()) return f.status();
    c.figures.push_back(*std::move(f));
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
    c.sensitivity_warmup_s = options.sensitivity_warmup_s;
    c.sensitivity_seeds = options.sensitivity_seeds;
    c.sensitivity =
        Elasticities(options, configs, res, configs.size() * per_step);
  }
  return c;
}

}  // namespace

absl::StatusOr<std::vector<Composition>> ComposeAll(
    const std::vector<Composing>& compositions, int jobs,
    const Progress& progress) {
  if (jobs < 0) {
    return absl::InvalidArgumentError(
        "capstone: jobs must be >= 0 (0: every core)");
  }
  std::vector<Plan> plans;
  std::vector<StepRunner> runners;
  for (const Composing& one : compositions) {
    if (absl::Status s = CheckOptions(one.options); !s.ok()) return s;
    plans.push_back(MakePlan(one.options));
    runners.push_back(one.runner);
  }
  if (absl::Status s = RunPlans(plans, runners, jobs, progress); !s.ok()) {
    return s;
  }
  std::vector<Composition> out;
  for (size_t i = 0; i < plans.size(); ++i) {
    absl::StatusOr<Composition> c =
        Summarise(compositions[i].options, plans[i]);
    if (!c.ok()) return c.status();
    out.push_back(*std::move(c));
  }
  return out;
}

absl::StatusOr<Composition> Compose(const ComposeOptions& options,
                                    const StepRunner& runner,
                                    const Progress& progress) {
  if (absl::Status s = CheckOptions(options); !s.ok()) return s;
  absl::StatusOr<std::vector<Composition>> c =
      ComposeAll({{options, runner}}, options.jobs, progress);
  if (!c.ok()) return c.status();
  return std::move(c->front());
}

}  // namespace perflab::capstone
