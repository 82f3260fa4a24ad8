#include "core/parallel.h"

#include <algorithm>
#include <atomic>
#include <climits>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"

namespace perflab::core {

int WorkerCount(int jobs, int64_t n) {
  if (jobs <= 0) jobs = static_cast<int>(std::thread::hardware_concurrency());
  if (jobs <= 0) jobs = 1;
  return static_cast<int>(std::min<int64_t>(jobs, std::max<int64_t>(1, n)));
}

absl::Status ParallelFor(int64_t n, int jobs,
                         const std::function<absl::Status(int64_t i)>& task,
                         const std::function<void(int64_t done)>& on_done) {
  std::vector<absl::Status> errors(
      static_cast<size_t>(std::max<int64_t>(n, 0)));
  std::atomic<int64_t> next{0};
  // The lowest failing index so far: later tasks are skipped, earlier ones
  // still run, so the error returned does not depend on thread timing.
  std::atomic<int64_t> first_failure{INT64_MAX};
  std::mutex done_mu;
  int64_t done = 0;
  auto work = [&] {
    for (;;) {
      const int64_t i = next.fetch_add(1, std::memory_order_relaxed);
      if (i >= n || i > first_failure.load(std::memory_order_relaxed)) return;
      absl::Status s = task(i);
      if (!s.ok()) {
        errors[static_cast<size_t>(i)] = std::move(s);
        int64_t seen = first_failure.load(std::memory_order_relaxed);
        while (i < seen && !first_failure.compare_exchange_weak(seen, i)) {
        }
      }
      std::lock_guard<std::mutex> lock(done_mu);
      ++done;
      if (on_done) on_done(done);
    }
  };
  const int workers = WorkerCount(jobs, n);
  if (workers == 1) {
    work();  // no thread to start for one worker
  } else {
    std::vector<std::thread> threads;
    threads.reserve(static_cast<size_t>(workers));
    absl::Status refused;
    try {
      for (int j = 0; j < workers; ++j) threads.emplace_back(work);
    } catch (const std::system_error& e) {
      // Every index is above -1: the started workers take no further task.
      first_failure.store(-1);
      refused = ThreadRefused(absl::StrCat("worker thread ", threads.size() + 1,
                                           " of ", workers, " (one per job)"),
                              e);
    }
    for (std::thread& t : threads) t.join();
    if (!refused.ok()) return refused;
  }
  for (const absl::Status& s : errors) {
    if (!s.ok()) return s;
  }
  return absl::OkStatus();
}

absl::Status ThreadRefused(absl::string_view what, const std::system_error& e) {
  return absl::InvalidArgumentError(absl::StrCat(
      "cannot start ", what, ": ", e.what(),
      "; accepted: a process limit (ulimit -u) and memory that allow it"));
}

absl::StatusOr<std::thread> StartThread(absl::string_view what,
                                        std::function<void()> body) {
  try {
    return std::thread(std::move(body));
  } catch (const std::system_error& e) {
    return ThreadRefused(what, e);
  }
}

}  // namespace perflab::core
