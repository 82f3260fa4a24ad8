// core::Mutex, core::MutexLock and core::CondVar: a mutex and a condition
// variable that clang's thread-safety analysis can check (-Wthread-safety,
// on in the asan-ubsan preset), in the manner of LevelDB's port::Mutex,
// MutexLock and CondVar. Members are marked ABSL_GUARDED_BY(mu_) and private
// methods that expect the lock ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_); an access
// without it fails the clang build.
//
// Why a wrapper: libstdc++'s std::mutex carries no capability attributes, so
// ABSL_GUARDED_BY on one checks nothing; and absl::Mutex is out because
// Debian's Abseil is not built with ThreadSanitizer, which then cannot see how
// an absl::Mutex orders accesses. Underneath is a plain std::mutex and
// std::condition_variable, whose pthread calls ThreadSanitizer intercepts.
//
// Thread safety: Mutex and CondVar exist to be shared between threads; a
// MutexLock belongs to the thread that made it.
#ifndef PERFLAB_CORE_MUTEX_H_
#define PERFLAB_CORE_MUTEX_H_

#include <chrono>
#include <condition_variable>
#include <mutex>

#include "absl/base/thread_annotations.h"

namespace perflab::core {

class ABSL_LOCKABLE Mutex {
 public:
  Mutex() = default;
  Mutex(const Mutex&) = delete;
  Mutex& operator=(const Mutex&) = delete;

  void Lock() ABSL_EXCLUSIVE_LOCK_FUNCTION() { mu_.lock(); }
  void Unlock() ABSL_UNLOCK_FUNCTION() { mu_.unlock(); }
  // Tells the analysis that the caller holds the lock. A std::mutex does not
  // know its owner, so nothing is checked at run time.
  void AssertHeld() const ABSL_ASSERT_EXCLUSIVE_LOCK() {}

 private:
  friend class CondVar;
  std::mutex mu_;
};

// Holds `mu` from construction to the end of the scope.
class ABSL_SCOPED_LOCKABLE MutexLock {
 public:
  explicit MutexLock(Mutex* mu) ABSL_EXCLUSIVE_LOCK_FUNCTION(mu) : mu_(mu) {
    mu_->Lock();
  }
  ~MutexLock() ABSL_UNLOCK_FUNCTION() { mu_->Unlock(); }
  MutexLock(const MutexLock&) = delete;
  MutexLock& operator=(const MutexLock&) = delete;

 private:
  Mutex* const mu_;
};

// A condition variable waited on with a held core::Mutex. The mutex is an
// argument of each wait (as in absl::CondVar), so the analysis checks that
// the caller holds it. Every wait on one CondVar must pass the same Mutex.
// Waits may wake spuriously: wait in a loop on the condition,
//   while (!ready_) cv_.Wait(&mu_);
class CondVar {
 public:
  CondVar() = default;
  CondVar(const CondVar&) = delete;
  CondVar& operator=(const CondVar&) = delete;

  // Releases `mu` while waiting for Signal() or SignalAll(); holds it again
  // on return.
  void Wait(Mutex* mu) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
    std::unique_lock<std::mutex> lock(mu->mu_, std::adopt_lock);
    cv_.wait(lock);
    lock.release();  // the caller still owns the lock
  }

  // As Wait(), until `deadline` at the latest: false once it has passed
  // without a wake-up.
  template <typename Duration>
  bool WaitUntil(
      Mutex* mu,
      std::chrono::time_point<std::chrono::steady_clock, Duration> deadline)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
    std::unique_lock<std::mutex> lock(mu->mu_, std::adopt_lock);
    const std::cv_status status = cv_.wait_until(lock, deadline);
    lock.release();
    return status == std::cv_status::no_timeout;
  }

  void Signal() { cv_.notify_one(); }
  void SignalAll() { cv_.notify_all(); }

 private:
  std::condition_variable cv_;
};

}  // namespace perflab::core

#endif  // PERFLAB_CORE_MUTEX_H_
