// An experiment: one scenario, a grid of settings (the cartesian product of
// every --set key's values), R replications per grid point and a base seed.
// Runs are numbered k = point * R + replication, points in nested-loop order
// (the first --set key varies slowest), and run k uses seed S + k (mod 2^64),
// so `perflab sim SCENARIO --set ... --seed S+k` reproduces any single run.
// Plain values; thread-compatible (read-only sharing is safe).
#ifndef PERFLAB_TOOLS_SWEEP_EXPERIMENT_H_
#define PERFLAB_TOOLS_SWEEP_EXPERIMENT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace perflab::sweep {

// One swept key and its alternatives, as the user typed them.
struct Axis {
  std::string key;
  std::vector<std::string> values;
};

struct Experiment {
  std::string scenario;
  std::vector<Axis> axes;     // in command-line order
  int64_t replications = 10;  // R, >= 1
  uint64_t seed = 42;         // S
};

// Hard bounds, checked before anything is allocated or looped over: every
// product and run number below them fits in int64 with room to spare.
inline constexpr int64_t kMaxReplications = 10'000'000;   // R
inline constexpr int64_t kMaxForcedRuns = 1'000'000'000;  // even with force
inline constexpr int64_t kMaxShards = 100'000;            // N of --shard I/N

// Without force, the bound on the runs' estimated work summed, each as a
// share of its scenario's work bound (sim::WorkBound: seconds at 1), so an
// accepted sweep takes well under a minute on one busy core.
inline constexpr double kMaxSweepWork = 2;

struct Limits {
  int64_t max_runs = 100000;  // a bigger grid needs force = true
  bool force = false;  // accept any number of runs and any work (kMaxSweepWork)
};

// Parses `--set key=v1,v2,...` into axes for `scenario` and validates every
// value against the scenario's declared keys. A list-typed key (whose value
// itself contains commas) separates alternatives with ';'. InvalidArgument
// names the key and value for: an unknown scenario or key, a value out of
// range, an empty list or element, a key given twice, R outside
// [1, kMaxReplications], more runs than limits.max_runs without
// limits.force, or more than kMaxForcedRuns runs at all; and, for every
// grid point, what sim::CheckSettings refuses (keys taken together, a run's
// work bound) and, without limits.force, runs whose work adds up to more
// than kMaxSweepWork.
absl::StatusOr<Experiment> MakeExperiment(const std::string& scenario,
                                          const std::vector<std::string>& sets,
                                          int64_t replications, uint64_t seed,
                                          const Limits& limits = {});

// The checks of MakeExperiment on an experiment built otherwise (read back
// from a partial file): scenario, keys, values, R and the number of runs.
absl::Status CheckExperiment(const Experiment& e, const Limits& limits = {});

// Number of grid points (product of axis sizes) and runs (points * R).
int64_t GridPoints(const Experiment& e);
int64_t TotalRuns(const Experiment& e);

// The `key=value` settings of grid point `point` (0 <= point < GridPoints).
std::vector<std::string> PointSets(const Experiment& e, int64_t point);

// The seed of run k: S + k, wrapping at 2^64.
inline uint64_t RunSeed(const Experiment& e, int64_t run) {
  return e.seed + static_cast<uint64_t>(run);
}

// A canonical one-line description (scenario, axes, R, S, perflab version),
// and its 64-bit FNV-1a as 16 hex digits: equal for the same experiment.
std::string Describe(const Experiment& e);
std::string Fingerprint(const Experiment& e);

// A shard "I/N": runs with k mod N == I - 1. {1, 1} is the whole sweep.
struct Shard {
  int64_t index = 1;
  int64_t count = 1;
};
// InvalidArgument unless 1 <= I <= N <= kMaxShards.
absl::StatusOr<Shard> ParseShard(const std::string& text);

// The run numbers of `shard`, ascending, and how many there are (computed
// without listing them). The shard must be valid (1 <= I <= N).
std::vector<int64_t> ShardRuns(const Experiment& e, const Shard& shard);
int64_t ShardSize(const Experiment& e, const Shard& shard);

}  // namespace perflab::sweep

#endif  // PERFLAB_TOOLS_SWEEP_EXPERIMENT_H_
