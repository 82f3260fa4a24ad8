// Partial results of a sharded sweep (`perflab sweep --shard I/N`) and their
// merge. A partial is JSON: the experiment (scenario, grid, R, S), its
// fingerprint (which includes the perflab version), the shard, and every run
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

// `name` (a file name) is only used in error messages.
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
