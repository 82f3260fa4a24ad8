// bench_sweep: what the experiment runner costs and how it scales.
//  - BM_SweepReplications/J: short M/M/1 runs (20,000 customers) through
//    RunRuns with J = 1 and J = 2 side by side; counter replications_per_s
//    (wall clock, so J = 2 over J = 1 is the scaling on this machine);
//    BM_ScalingSideBySide alternates the two in every iteration.
//  - BM_RunnerOverhead/J: runs whose simulation is a copy of a finished
//    Document, so all that is timed is the runner itself (ticket, thread
//    hand-off, result extraction and collection): counter overhead_ns_per_run.
//  - BM_OutsideSimulations: 1,000 short runs as a whole sweep (runner and
//    statistics) against the same 1,000 simulations called in a plain loop;
//    counter outside_sim_pct = (sweep - loop) / sweep, and runner_work_pct:
//    the runner and statistics timed alone (copied Documents) over the sweep.
// Lives in tools/sweep/ (not bench/) because bench/ may not include tools/.
#include <benchmark/benchmark.h>

#include <chrono>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "sim/scenarios/scenario.h"
#include "tools/sweep/aggregate.h"
#include "tools/sweep/experiment.h"
#include "tools/sweep/runner.h"

namespace perflab::sweep {
namespace {

Experiment Mm1(int64_t runs, int64_t customers) {
  return *MakeExperiment(
      "mmc",
      {"servers=1", "arrival_rate_per_s=0.9",
       absl::StrCat("customers=", customers), "warmup_customers=0"},
      runs, 1);
}

void BM_SweepReplications(benchmark::State& state) {
  Experiment e = Mm1(16, 20000);
  RunnerOptions o;
  o.jobs = static_cast<int>(state.range(0));
  std::vector<int64_t> runs = ShardRuns(e, {1, 1});
  int64_t done = 0;
  for (auto _ : state) {
    auto r = RunRuns(e, runs, ScenarioRunFn(), o);
    if (!r.ok()) {
      state.SkipWithError(std::string(r.status().message()).c_str());
      return;
    }
    done += std::ssize(runs);
  }
  state.counters["replications_per_s"] = benchmark::Counter(
      static_cast<double>(done), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_SweepReplications)
    ->Arg(1)
    ->Arg(2)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

// J = 1 and J = 2 alternating inside each iteration, so both see the same
// machine load (this 2-core machine is shared): counters for each rate and
// their ratio, speedup_j2_over_j1.
void BM_ScalingSideBySide(benchmark::State& state) {
  Experiment e = Mm1(16, 20000);
  std::vector<int64_t> runs = ShardRuns(e, {1, 1});
  double seconds[2] = {0, 0};
  for (auto _ : state) {
    for (int j = 1; j <= 2; ++j) {
      RunnerOptions o;
      o.jobs = j;
      auto t0 = std::chrono::steady_clock::now();
      auto r = RunRuns(e, runs, ScenarioRunFn(), o);
      benchmark::DoNotOptimize(r);
      seconds[j - 1] +=
          std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
              .count();
    }
  }
  double n = static_cast<double>(state.iterations() * std::ssize(runs));
  state.counters["j1_replications_per_s"] = n / seconds[0];
  state.counters["j2_replications_per_s"] = n / seconds[1];
  state.counters["speedup_j2_over_j1"] = seconds[0] / seconds[1];
}
BENCHMARK(BM_ScalingSideBySide)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_RunnerOverhead(benchmark::State& state) {
  absl::StatusOr<core::Document> doc = sim::RunScenario(
      "mmc", {"servers=1", "arrival_rate_per_s=0.9", "customers=2000"}, 1);
  Experiment e = Mm1(10000, 2000);
  RunFn copy = [&doc](const std::string&, const std::vector<std::string>&,
                      uint64_t) -> absl::StatusOr<core::Document> {
    return *doc;
  };
  RunnerOptions o;
  o.jobs = static_cast<int>(state.range(0));
  std::vector<int64_t> runs = ShardRuns(e, {1, 1});
  int64_t done = 0;
  double seconds = 0;
  for (auto _ : state) {
    auto t0 = std::chrono::steady_clock::now();
    auto r = RunRuns(e, runs, copy, o);
    benchmark::DoNotOptimize(r);
    seconds +=
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
            .count();
    done += std::ssize(runs);
  }
  // Wall time per run, all threads together (includes copying the Document).
  state.counters["overhead_ns_per_run"] =
      seconds * 1e9 / static_cast<double>(done);
}
BENCHMARK(BM_RunnerOverhead)->Arg(1)->Arg(2)->UseRealTime();

void BM_OutsideSimulations(benchmark::State& state) {
  Experiment e = Mm1(1000, 2000);
  RunnerOptions o;
  o.jobs = 1;  // one thread: the comparison is with a one-thread loop
  std::vector<int64_t> runs = ShardRuns(e, {1, 1});
  // The runner's own work, measured directly: the same 1,000 runs whose
  // "simulation" hands back a finished Document, plus the statistics.
  absl::StatusOr<core::Document> finished =
      sim::RunScenario(e.scenario, PointSets(e, 0), 1);
  RunFn copy = [&finished](const std::string&, const std::vector<std::string>&,
                           uint64_t) -> absl::StatusOr<core::Document> {
    return *finished;
  };
  double sweep_s = 0, loop_s = 0, runner_s = 0;
  using Clock = std::chrono::steady_clock;
  for (auto _ : state) {
    auto t0 = Clock::now();
    for (int64_t k : runs) {
      auto d = sim::RunScenario(e.scenario, PointSets(e, 0), RunSeed(e, k));
      benchmark::DoNotOptimize(d);
    }
    auto t1 = Clock::now();
    auto r = RunRuns(e, runs, ScenarioRunFn(), o);
    auto doc = Aggregate(e, *r);
    benchmark::DoNotOptimize(doc);
    auto t2 = Clock::now();
    auto fake = RunRuns(e, runs, copy, o);
    auto stats = Aggregate(e, *r);
    benchmark::DoNotOptimize(fake);
    benchmark::DoNotOptimize(stats);
    auto t3 = Clock::now();
    loop_s += std::chrono::duration<double>(t1 - t0).count();
    sweep_s += std::chrono::duration<double>(t2 - t1).count();
    runner_s += std::chrono::duration<double>(t3 - t2).count();
  }
  // Two estimates: the difference of two noisy wall times, and the runner's
  // own work timed directly over the whole sweep's time.
  state.counters["outside_sim_pct"] = (sweep_s - loop_s) / sweep_s * 100;
  state.counters["runner_work_pct"] = runner_s / sweep_s * 100;
  state.counters["sweep_ms"] = sweep_s * 1e3 / state.iterations();
  state.counters["loop_ms"] = loop_s * 1e3 / state.iterations();
}
BENCHMARK(BM_OutsideSimulations)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace perflab::sweep

BENCHMARK_MAIN();
