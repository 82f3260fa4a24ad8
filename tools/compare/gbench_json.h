// Reads Google Benchmark's JSON output (--benchmark_format=json or
// --benchmark_out) into one list of samples per benchmark: every repetition's
// value of one metric. Aggregate rows (mean, median, stddev, cv) are skipped:
// the comparison recomputes what it needs from the repetitions. A file may
// hold the same benchmark many times (several runs merged): all its
// repetitions are kept, in file order. Pure functions; thread-safe.
#ifndef PERFLAB_TOOLS_COMPARE_GBENCH_JSON_H_
#define PERFLAB_TOOLS_COMPARE_GBENCH_JSON_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace perflab::compare {

struct BenchmarkSamples {
  std::string name;            // run_name (name without aggregate suffixes)
  std::string unit;            // time_unit for times ("ns"); "" for counters
  std::vector<double> values;  // the metric, one per repetition
};

// `metric` is "real_time", "cpu_time" or the name of a user counter.
// InvalidArgument (one line, naming what is wrong and where) for text that is
// not JSON, JSON without a "benchmarks" array, a list with no repetition
// rows, a row without a name or without a finite numeric metric, and a
// benchmark whose repetitions disagree on time_unit. Benchmarks keep the
// order of their first appearance.
absl::StatusOr<std::vector<BenchmarkSamples>> ParseGbenchJson(
    std::string_view text, std::string_view metric);

}  // namespace perflab::compare

#endif  // PERFLAB_TOOLS_COMPARE_GBENCH_JSON_H_
