// ParallelFor: runs n independent tasks on J worker threads, each task wholly
// on one thread, for callers that collect results by index (the sweep, the
// capstone). Whatever each task writes into its own slot comes out the same
// for every J; the error reported is the lowest failing index's, also for
// every J. Thread-safe; `task` must be safe to call from several threads.
#ifndef PERFLAB_CORE_PARALLEL_H_
#define PERFLAB_CORE_PARALLEL_H_

#include <cstdint>
#include <functional>
#include <system_error>
#include <thread>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace perflab::core {

// The number of workers for `jobs` (0: the machine's cores) and n tasks.
int WorkerCount(int jobs, int64_t n);

// Runs task(i) for i in [0, n). Tasks above a failed index may be skipped;
// every task below it runs. `on_done(done)` is called after each task with the
// count finished so far, never from two threads at once. A worker thread the
// system refuses (ulimit -u, memory) stops the others after their current
// task and returns ThreadRefused's error: an abort would leave the command's
// temporary files and children behind.
absl::Status ParallelFor(int64_t n, int jobs,
                         const std::function<absl::Status(int64_t i)>& task,
                         const std::function<void(int64_t done)>& on_done = {});

// The error for a thread the system refused to start (std::thread's
// system_error: EAGAIN under ulimit -u, or memory): InvalidArgument, one line
// naming `what` (e.g. "worker thread 3 of 8") and the limits that allow it.
absl::Status ThreadRefused(absl::string_view what, const std::system_error& e);

// `body` started on a thread of its own, or, when the system refuses one,
// ThreadRefused(what, ...)'s error instead of the exception, so the caller
// can stop what it had started and return that one line.
absl::StatusOr<std::thread> StartThread(absl::string_view what,
                                        std::function<void()> body);

}  // namespace perflab::core

#endif  // PERFLAB_CORE_PARALLEL_H_
