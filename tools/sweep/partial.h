// Partial results of a sharded sweep (`perflab sweep --shard I/N`) and their
// merge. A partial is JSON: the experiment (scenario, grid, R, S), its
// fingerprint (which includes the perflab version and the shard count N),
// the shard, and every run
// it made with its raw figures and its histogram in HdrHistogram V2 base64.
// Doubles are written shortest-round-trip and read at full precision, so a
// merged sweep equals the unsharded one bit for bit. Pure functions;
// thread-safe.
#ifndef PERFLAB_TOOLS_SWEEP_PARTIAL_H_
#define PERFLAB_TOOLS_SWEEP_PARTIAL_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "tools/sweep/experiment.h"
#include "tools/sweep/runner.h"

namespace perflab::sweep {

struct Partial {
  Experiment experiment;
  Shard shard;
  std::vector<RunResult> runs;  // ascending run numbers of this shard
};

std::string PartialToJson(const Partial& part);

// The fingerprint a partial carries: of the experiment's Describe(), the
// shard count N and each run's metric key names in order, everything that
// shapes the merge (the shard index, run numbers and seeds are checked
// against the experiment instead). A key added or renamed by hand changes
// it, so a partial reports only the metrics perflab sweep wrote.
std::string PartialFingerprint(
    const Experiment& e, int64_t shards,
    const std::vector<std::vector<std::string>>& run_keys);
std::string PartialFingerprint(const Experiment& e, int64_t shards,
                               const std::vector<RunResult>& runs);

// `name` (a file name) is only used in error messages. Everything is checked
// before it sizes anything: the experiment as MakeExperiment checks it (with
// --force's bound), the shard (N <= kMaxShards), the fingerprint, the number
// of runs and each run's number and seed, metric keys (a field or
// table[row].column name) and values (finite numbers), and histograms
// (decoded). InvalidArgument names the file and what is wrong, in one line.
absl::StatusOr<Partial> ParsePartial(const std::string& json,
                                     const std::string& name);

struct Merged {
  Experiment experiment;
  std::vector<RunResult> runs;  // every run, in run order
};

// Combines the shards 1..N of one experiment. InvalidArgument, naming the
// parts, for: parts of different experiments (or shard counts), a shard given
// twice, a missing shard, or a part that lacks some of its runs.
absl::StatusOr<Merged> MergeParts(const std::vector<Partial>& parts,
                                  const std::vector<std::string>& names);

}  // namespace perflab::sweep

#endif  // PERFLAB_TOOLS_SWEEP_PARTIAL_H_
