// ParallelFor: runs n independent tasks on J worker threads, each task wholly
// on one thread, for callers that collect results by index (the sweep, the
// capstone). Whatever each task writes into its own slot comes out the same
// for every J; the error reported is the lowest failing index's, also for
// every J. Thread-safe; `task` must be safe to call from several threads.
#ifndef PERFLAB_CORE_PARALLEL_H_
#define PERFLAB_CORE_PARALLEL_H_

#include <cstdint>
#include <functional>

#include "absl/status/status.h"

namespace perflab::core {

// The number of workers for `jobs` (0: the machine's cores) and n tasks.
int WorkerCount(int jobs, int64_t n);

// Runs task(i) for i in [0, n). Tasks above a failed index may be skipped;
// every task below it runs. `on_done(done)` is called after each task with the
// count finished so far, never from two threads at once.
absl::Status ParallelFor(int64_t n, int jobs,
                         const std::function<absl::Status(int64_t i)>& task,
                         const std::function<void(int64_t done)>& on_done = {});

}  // namespace perflab::core

#endif  // PERFLAB_CORE_PARALLEL_H_
