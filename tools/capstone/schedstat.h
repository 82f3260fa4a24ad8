// The kernel's scheduling counters of a running process, for the real side
// of `capstone --real`: each thread's /proc/PID/task/TID/schedstat (CPU time
// on a core, time runnable but waiting in the run queue, times put on a
// core) and the change between two readings, summed over the threads. A
// thread that exits between the readings is left out; one born between them
// counts from 0. Stateless functions; thread-safe.
#ifndef PERFLAB_TOOLS_CAPSTONE_SCHEDSTAT_H_
#define PERFLAB_TOOLS_CAPSTONE_SCHEDSTAT_H_

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <string_view>

#include "absl/status/statusor.h"

namespace perflab::capstone {

struct ThreadSched {
  int64_t cpu_ns = 0;   // time spent on a core
  int64_t wait_ns = 0;  // time runnable, waiting for a core
  int64_t slices = 0;   // times put on a core
};

// A schedstat line: three whole numbers >= 0 separated by spaces, maybe a
// newline after. Anything else is InvalidArgument saying what was read.
absl::StatusOr<ThreadSched> ParseSchedstat(std::string_view line);

// Every thread of `pid`, by thread id. NotFound when the process is gone or
// the kernel keeps no schedstat (CONFIG_SCHED_INFO off).
absl::StatusOr<std::map<pid_t, ThreadSched>> ReadSchedstat(pid_t pid);

// The threads' change from `before` to `after`, summed: threads in both by
// their difference, threads only in `after` by their whole counters.
ThreadSched SchedDelta(const std::map<pid_t, ThreadSched>& before,
                       const std::map<pid_t, ThreadSched>& after);

}  // namespace perflab::capstone

#endif  // PERFLAB_TOOLS_CAPSTONE_SCHEDSTAT_H_
