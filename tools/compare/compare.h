// Did the contender get faster or slower than the base, or is it noise?
// Pairs benchmarks by name, compares medians, tests the difference with a
// two-sided Mann–Whitney U test, and calls a change only when it is both
// significant at `alpha` and larger than `threshold_pct`. Pure functions;
// thread-safe.
#ifndef PERFLAB_TOOLS_COMPARE_COMPARE_H_
#define PERFLAB_TOOLS_COMPARE_COMPARE_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "core/document.h"
#include "tools/compare/gbench_json.h"

namespace perflab::compare {

struct Options {
  double alpha = 0.05;               // significance level of the U test
  double threshold_pct = 5;          // smaller |change| is `same` regardless
  std::string metric = "real_time";  // real_time, cpu_time or a counter
};

// Below this many repetitions a side the verdict is flagged as unreliable:
// at 9 vs 9 a complete separation gives p = 4e-5, and with fewer repetitions
// the U test has too little power to tell a 5 % shift from noise.
inline constexpr size_t kReliableRepetitions = 9;

// The widest contender/base ratio of medians compared: 100 times it (the
// change in percent) and its log (the geometric mean) stay finite.
inline constexpr double kMaxRatio = 1e300;
inline constexpr double kMinRatio = 1 / kMaxRatio;

// What a benchmark's change amounts to: `kSame` unless the change is both
// significant and past the threshold; then worse (slower) or better (faster)
// by the metric's direction.
enum class Verdict { kSame, kFaster, kSlower };

// "same", "faster" or "slower": the word the table, JSON, CSV and Markdown
// show.
std::string_view VerdictName(Verdict verdict);

struct Row {
  std::string name;
  std::string unit;  // time unit, "" for counters
  size_t base_n = 0, contender_n = 0;
  double base_median = 0, contender_median = 0;
  double change_pct = 0;  // (contender / base - 1) * 100
  double p_value = 1;
  Verdict verdict = Verdict::kSame;
};

struct Comparison {
  std::vector<Row> rows;     // benchmarks in both files, in base order
  double geomean_ratio = 1;  // geometric mean of contender / base medians
  std::vector<std::string> only_in_base, only_in_contender;
  bool any_slower = false;
  bool unreliable = false;  // some row has < kReliableRepetitions a side
};

// Higher is better for rates ("items_per_second", "*_per_s"), worse for times.
bool HigherIsBetter(std::string_view metric);

// InvalidArgument when a shared benchmark's time units differ between the
// files, no benchmark is shared, a median is not > 0 (no ratio exists), or
// the ratio of medians is outside [kMinRatio, kMaxRatio]. Medians of values
// near the largest double are finite (models::Median).
absl::StatusOr<Comparison> Compare(const std::vector<BenchmarkSamples>& base,
                                   const std::vector<BenchmarkSamples>& cont,
                                   const Options& options);

// The result as a Document: table `benchmarks`, field `geomean_ratio`, tables
// `only_in_base` / `only_in_contender` (one `name` column) and notes.
core::Document ToDocument(const Comparison& c, const Options& options);

}  // namespace perflab::compare

#endif  // PERFLAB_TOOLS_COMPARE_COMPARE_H_
