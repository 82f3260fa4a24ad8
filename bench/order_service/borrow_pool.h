// A bounded pool of borrowed objects: the order service's database
// connections. Acquire waits up to a timeout for one to come back, as
// Hikari's getConnection does; Release returns it and wakes one waiter.
// Thread-safe: one mutex, shared by every worker (bench_contention measures
// what sharing it costs). The pool does not own what it lends.
#ifndef PERFLAB_BENCH_ORDER_SERVICE_BORROW_POOL_H_
#define PERFLAB_BENCH_ORDER_SERVICE_BORROW_POOL_H_

#include <chrono>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "core/mutex.h"

namespace perflab::orders {

template <typename T>
class BorrowPool {
 public:
  void Add(T* item) ABSL_LOCKS_EXCLUDED(mu_) {
    core::MutexLock lock(&mu_);
    free_.push_back(item);
  }

  // One free item, or null once `timeout_ms` has passed without one.
  T* Acquire(double timeout_ms) ABSL_LOCKS_EXCLUDED(mu_) {
    const auto deadline =
        std::chrono::steady_clock::now() +
        std::chrono::ceil<std::chrono::steady_clock::duration>(
            std::chrono::duration<double, std::milli>(timeout_ms));
    core::MutexLock lock(&mu_);
    while (free_.empty()) {
      if (!cv_.WaitUntil(&mu_, deadline)) break;
    }
    if (free_.empty()) return nullptr;
    T* item = free_.back();
    free_.pop_back();
    return item;
  }

  void Release(T* item) ABSL_LOCKS_EXCLUDED(mu_) {
    {
      core::MutexLock lock(&mu_);
      free_.push_back(item);
    }
    cv_.Signal();
  }

 private:
  core::Mutex mu_;
  core::CondVar cv_;  // an item went back to the pool
  std::vector<T*> free_ ABSL_GUARDED_BY(mu_);
};

}  // namespace perflab::orders

#endif  // PERFLAB_BENCH_ORDER_SERVICE_BORROW_POOL_H_
