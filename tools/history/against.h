// `perflab history changes --against REF`: the head's stored benchmarks
// against those of REF's fork point, the verdict a pull request gets. Each
// benchmark's noise is the median absolute deviation of its stored
// repetitions; a change is called only when the two-sided Mann-Whitney U test
// finds it at alpha, it passes the threshold and it is at least kNoiseFactor
// times that noise. With confirmation, each candidate regression is measured
// again, interleaved with its base, and stays one only if that re-run gives
// the same verdict. What touches the world (git, building and re-running
// commits) is behind AgainstEnv, so tests script it. Thread-compatible.
#ifndef PERFLAB_TOOLS_HISTORY_AGAINST_H_
#define PERFLAB_TOOLS_HISTORY_AGAINST_H_

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "core/document.h"
#include "tools/compare/gbench_json.h"
#include "tools/history/store.h"

namespace perflab::history {

// A change smaller than this many times the benchmark's noise is never a
// regression: with five repetitions a side the U test can separate two
// samples whose medians differ by less than the spread of either.
inline constexpr double kNoiseFactor = 3;
inline constexpr int kMaxConfirmReps = 50;

// The median absolute deviation of a series' repetitions: every repetition's
// distance from its own commit's median, pooled over all stored commits, and
// the median of those (a step between commits does not count as noise). 0
// for a series of single repetitions.
double SeriesNoise(const Series& series);

// The smallest two-sided p the exact U test gives with `reps` repetitions a
// side and no ties, 2 / C(2 reps, reps): 0.1 at 3, 0.029 at 4. A re-run
// whose smallest p is not below alpha can confirm nothing.
double SmallestPValue(int reps);

enum class Call { kSame, kFaster, kSlower, kWithinNoise, kNotConfirmed };
// "same", "faster", "slower", "within noise", "not confirmed".
std::string_view CallName(Call call);

struct AgainstOptions {
  std::string ref;  // what the fork point is taken of ("main")
  std::string head = "HEAD";
  std::string metric = "real_time";
  double alpha = 0.05;
  double threshold_pct = 5;
  int confirm = 0;  // re-runs a side for each candidate; 0: none
  // Passed to the re-run (tools/bench-commits).
  std::string targets = "bench_models";
  double min_time = 0.05;
};

// kSlower or kFaster when p < alpha, |change| > threshold_pct and
// |head - base| >= kNoiseFactor * noise; kWithinNoise when only the last
// fails; kSame otherwise. Medians must be > 0.
Call Judge(double base_median, double head_median, double p_value, double noise,
           const AgainstOptions& options);

struct AgainstRow {
  std::string benchmark, unit;
  size_t base_n = 0, head_n = 0;
  double base_median = 0, head_median = 0;
  double change_pct = 0;  // (head / base - 1) * 100
  double p_value = 1;
  double noise = 0;  // SeriesNoise, in `unit`
  Call call = Call::kSame;
  bool rerun = false;  // confirmed or refuted by a re-run
  double rerun_change_pct = 0, rerun_p_value = 1;
};

struct Against {
  Commit base, head;             // base: the fork point of options.ref
  std::vector<AgainstRow> rows;  // benchmarks stored for both, by name
  int confirm = 0;               // re-runs a side that were made
  bool regression = false;       // some row is kSlower
};

// Builds the rows from the stored series. InvalidArgument naming the commit
// when base or head has no stored run in `h`.
absl::StatusOr<Against> CompareStored(const History& h,
                                      const std::string& base_sha,
                                      const std::string& head_sha,
                                      const AgainstOptions& options);

// Judges each kSlower row again on the re-run's samples of its benchmark
// (the row's stored noise still applies): kSlower stays only if the re-run
// says kSlower, else kNotConfirmed. InvalidArgument when a re-run lacks a
// candidate.
absl::Status ApplyRerun(Against& a,
                        const std::vector<compare::BenchmarkSamples>& base,
                        const std::vector<compare::BenchmarkSamples>& head,
                        const AgainstOptions& options);

class AgainstEnv {
 public:
  virtual ~AgainstEnv() = default;
  // The full sha of `ref`; InvalidArgument when git cannot resolve it.
  virtual absl::StatusOr<std::string> Resolve(std::string_view ref) = 0;
  // The best common ancestor; InvalidArgument when there is none.
  virtual absl::StatusOr<std::string> MergeBase(std::string_view a,
                                                std::string_view b) = 0;
  // `benchmarks` of both commits, `reps` repetitions a side interleaved, as
  // samples of options.metric.
  struct RerunSamples {
    std::vector<compare::BenchmarkSamples> base, head;
  };
  virtual absl::StatusOr<RerunSamples> Rerun(
      const std::string& base_sha, const std::string& head_sha,
      const std::vector<std::string>& names, const AgainstOptions& options) = 0;
};

// The whole comparison: resolves the head and the fork point, refuses a
// database whose newest commit the repository does not know (another
// project), compares, and re-runs the candidates when options.confirm > 0.
absl::StatusOr<Against> RunAgainst(const History& h, AgainstEnv& env,
                                   const AgainstOptions& options);

// Table `benchmarks` and the fields CI scripts read (base, head, regressions).
core::Document AgainstDocument(const Against& a, const AgainstOptions& options,
                               const std::string& machine);

// The verdict for a pull request comment: a headline, a table of the
// benchmarks whose call is not kSame (at most 20 rows), and a paragraph on
// how it was decided. No links.
std::string AgainstMarkdown(const Against& a, const AgainstOptions& options);

// `^(A|B)$` with every regex metacharacter of the names escaped.
std::string ExactFilter(const std::vector<std::string>& names);

// git in `repo`; re-runs through `bench_commits` (its --out folder is a
// temporary directory, removed after), handing it `perflab` for its compare.
std::unique_ptr<AgainstEnv> RealAgainstEnv(std::string repo,
                                           std::string bench_commits,
                                           std::string perflab);

}  // namespace perflab::history

#endif  // PERFLAB_TOOLS_HISTORY_AGAINST_H_
