// The experiment runner: runs a list of simulation runs on J worker threads
// and keeps each run's numeric results by run index, so what comes out does
// not depend on J or on thread timing. Each simulation lives its whole life
// on one worker (the simulator is single-threaded by design); workers share
// only an atomic ticket counter and write disjoint result slots.
// RunRuns is thread-safe to call; the RunFn must be safe to call from several
// threads at once (sim::RunScenario is: scenarios share no mutable state).
#ifndef PERFLAB_TOOLS_SWEEP_RUNNER_H_
#define PERFLAB_TOOLS_SWEEP_RUNNER_H_

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "core/document.h"
#include "tools/sweep/experiment.h"

namespace perflab::sweep {

// What one run left behind: its numeric figures and, when the scenario
// attached one, its latency histogram in HdrHistogram V2 base64.
struct RunResult {
  int64_t run = 0;    // k
  uint64_t seed = 0;  // S + k
  // Numeric fields, then numeric table cells as "table[row].column", in
  // document order; the "seed" stamp and non-finite values are left out.
  std::vector<std::pair<std::string, double>> values;
  std::string histogram_hdr;  // empty: no "latency_histogram" attachment
};

// Runs one simulation; sim::RunScenario by default, a fake in tests.
using RunFn = std::function<absl::StatusOr<core::Document>(
    const std::string& scenario, const std::vector<std::string>& sets,
    uint64_t seed)>;
RunFn ScenarioRunFn();

struct RunnerOptions {
  int jobs = 0;                      // worker threads; 0: the machine's cores
  std::ostream* progress = nullptr;  // where progress lines go; null: none
  double progress_after_s = 1.0;     // quiet for sweeps shorter than this
};

// Extracts a run's RunResult from its Document (used by RunRuns; exposed for
// tests and benchmarks).
RunResult ResultOf(const core::Document& doc, int64_t run, uint64_t seed);

// Runs `runs` (run numbers of `e`) and returns their results in the same
// order. The first failing run (lowest position) ends the sweep with its
// error, prefixed with the run and its settings.
absl::StatusOr<std::vector<RunResult>> RunRuns(const Experiment& e,
                                               const std::vector<int64_t>& runs,
                                               const RunFn& fn,
                                               const RunnerOptions& options);

}  // namespace perflab::sweep

#endif  // PERFLAB_TOOLS_SWEEP_RUNNER_H_
