// `perflab history run`: measures every commit of a range and stores it.
// What touches the world (git, building and running a commit, the machine,
// the clock) is behind Env, so tests drive the loop with scripted results.
// A commit already stored under the same machine, filter and mode is
// skipped; each commit is stored in one transaction, so an interrupted run
// loses at most the commit in progress and a rerun resumes.
#ifndef PERFLAB_TOOLS_HISTORY_RUN_H_
#define PERFLAB_TOOLS_HISTORY_RUN_H_

#include <cstdint>
#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "tools/history/store.h"

namespace perflab::history {

struct RunOptions {
  std::string filter;
  int reps = 5;
  int every = 1;  // every K-th commit of the range, always with its newest
  bool instructions = false;
  std::string targets = "bench_models";
  double min_time = 0.05;
};

// What one commit's measurement gave.
struct Measured {
  // kOutside: the measurement failed for a reason that says nothing about
  // the commit (its worktree could not be made, the disk filled, the
  // measuring process was stopped).
  enum class Outcome {
    kOk,
    kBuildFailed,
    kNoMatch,
    kOutside
  } outcome = Outcome::kOk;
  std::string json;  // Google Benchmark JSON (kOk)
  std::string why;   // kOutside: what failed
};

class Env {
 public:
  virtual ~Env() = default;
  // The range's commits, oldest first. InvalidArgument (one line) when git
  // cannot resolve it or it holds no commit.
  virtual absl::StatusOr<std::vector<Commit>> ListCommits(
      absl::string_view range) = 0;
  // Builds `commit` and runs its benchmarks. An error stops the run; a
  // failure outside the commit is a kOutside result, stored as such.
  virtual absl::StatusOr<Measured> Measure(const Commit& commit,
                                           const RunOptions& options) = 0;
  virtual Machine ThisMachine() = 0;
  virtual int64_t NowNanos() = 0;
};

struct RunSummary {
  size_t commits = 0;  // in the range after --every
  size_t measured = 0, skipped = 0, build_failed = 0, no_match = 0;
  size_t failed_outside = 0;  // stored as such; the next run retries them
  size_t samples = 0;
};

// Google Benchmark JSON (iteration rows, each with repetition_index, and
// with "instructions" in --instructions mode) as samples. InvalidArgument for
// text that is not such JSON.
absl::StatusOr<std::vector<Sample>> ParseSamples(absl::string_view json,
                                                 bool instructions);

// Progress lines ("commit 3 of 10 abc1234 subject, elapsed 12 s, about 28 s
// left") go to `progress`. InvalidArgument when the filter matched no
// benchmark in any commit (nothing is stored then).
absl::StatusOr<RunSummary> RunHistory(Store& store, Env& env,
                                      absl::string_view range,
                                      const RunOptions& options,
                                      std::ostream& progress);

// The real Env: git in `repo`, tools/bench-commits --one for a commit.
std::unique_ptr<Env> RealEnv(std::string repo, std::string bench_commits);

// This machine: CPU model, online cores, kernel release, cpufreq governor.
Machine DetectMachine();

}  // namespace perflab::history

#endif  // PERFLAB_TOOLS_HISTORY_RUN_H_
