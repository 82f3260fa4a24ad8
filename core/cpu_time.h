// CPU time consumed so far, for measuring what work costs: by the calling
// thread, or by the whole process (every thread, user plus system), in
// seconds from an arbitrary origin; subtract two readings. Thread-safe.
#ifndef PERFLAB_CORE_CPU_TIME_H_
#define PERFLAB_CORE_CPU_TIME_H_

#include <time.h>

namespace perflab::core {

namespace internal {
inline double CpuClockSeconds(clockid_t clock) {
  timespec t{};
  ::clock_gettime(clock, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}
}  // namespace internal

inline double ThreadCpuSeconds() {
  return internal::CpuClockSeconds(CLOCK_THREAD_CPUTIME_ID);
}
inline double ProcessCpuSeconds() {
  return internal::CpuClockSeconds(CLOCK_PROCESS_CPUTIME_ID);
}

}  // namespace perflab::core

#endif  // PERFLAB_CORE_CPU_TIME_H_
