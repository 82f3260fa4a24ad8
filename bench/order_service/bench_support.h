// Helpers shared by the bench_* binaries: the verified dataset of a scale,
// built at most once per process and reused across runs through the build
// tree. Thread-safe.
#ifndef PERFLAB_BENCH_ORDER_SERVICE_BENCH_SUPPORT_H_
#define PERFLAB_BENCH_ORDER_SERVICE_BENCH_SUPPORT_H_

#include <string>

#include "absl/status/statusor.h"

namespace perflab::orders {

// Path of the checked database of `scale` (DefaultDatasetPath). The first call
// per scale runs EnsureDataset and prints one line on stderr saying whether
// the file was reused or (re)built and why; later calls return the path.
// An error (cannot build) is returned, never a file that failed its check.
absl::StatusOr<std::string> BenchDataset(double scale);

}  // namespace perflab::orders

#endif  // PERFLAB_BENCH_ORDER_SERVICE_BENCH_SUPPORT_H_
