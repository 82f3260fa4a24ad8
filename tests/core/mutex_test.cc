// core::Mutex, MutexLock and CondVar with real threads: the lock excludes,
// a wait releases it and wakes on a signal, a deadline that has passed ends
// a wait. No sleeps: each wait is on a condition another thread sets.
#include "core/mutex.h"

#include <chrono>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "gtest/gtest.h"

namespace perflab::core {
namespace {

class Counter {
 public:
  void Add() {
    MutexLock lock(&mu_);
    // A read and a later write: without the lock, threads lose increments.
    const int64_t seen = value_;
    value_ = seen + 1;
  }
  int64_t value() const {
    MutexLock lock(&mu_);
    return value_;
  }

 private:
  mutable Mutex mu_;
  int64_t value_ ABSL_GUARDED_BY(mu_) = 0;
};

TEST(MutexTest, LockExcludesOtherThreads) {
  constexpr int kThreads = 4;
  constexpr int kAdds = 20'000;
  Counter counter;
  std::vector<std::thread> threads;
  threads.reserve(kThreads);
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&counter] {
      for (int i = 0; i < kAdds; ++i) counter.Add();
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(counter.value(), int64_t{kThreads} * kAdds);
}

// Lock() and Unlock() by hand, and a second thread that can only get the
// lock once the first has released it.
class Flag {
 public:
  void SetByHand() {
    mu_.Lock();
    mu_.AssertHeld();
    ++sets_;
    mu_.Unlock();
  }
  void Set() {
    MutexLock lock(&mu_);
    ++sets_;
  }
  int sets() {
    MutexLock lock(&mu_);
    return sets_;
  }

 private:
  Mutex mu_;
  int sets_ ABSL_GUARDED_BY(mu_) = 0;
};

TEST(MutexTest, UnlockReleasesForTheNextThread) {
  Flag flag;
  flag.SetByHand();
  std::thread([&flag] { flag.Set(); }).join();  // blocks for ever if held
  EXPECT_EQ(flag.sets(), 2);
}

// A one-slot hand-off: the consumer can only take what the producer put,
// which can only put once the slot is empty again, so both must wait on the
// CondVar and be woken by the other.
class Slot {
 public:
  void Put(int v) {
    MutexLock lock(&mu_);
    while (full_) cv_.Wait(&mu_);
    value_ = v;
    full_ = true;
    cv_.SignalAll();
  }
  int Take() {
    MutexLock lock(&mu_);
    while (!full_) cv_.Wait(&mu_);
    full_ = false;
    cv_.SignalAll();
    return value_;
  }

 private:
  Mutex mu_;
  CondVar cv_;
  bool full_ ABSL_GUARDED_BY(mu_) = false;
  int value_ ABSL_GUARDED_BY(mu_) = 0;
};

TEST(CondVarTest, WaitReleasesTheLockAndWakesOnASignal) {
  constexpr int kItems = 1000;
  Slot slot;
  std::thread producer([&slot] {
    for (int i = 1; i <= kItems; ++i) slot.Put(i);
  });
  int64_t sum = 0;
  for (int i = 0; i < kItems; ++i) sum += slot.Take();
  producer.join();
  EXPECT_EQ(sum, int64_t{kItems} * (kItems + 1) / 2);  // 1 + ... + n
}

// Waiters that block until Open(); `woken` counts those that got through.
class Gate {
 public:
  void Pass() {
    MutexLock lock(&mu_);
    while (!open_) cv_.Wait(&mu_);
    ++woken_;
  }
  void Open() {
    MutexLock lock(&mu_);
    open_ = true;
    cv_.SignalAll();
  }
  int woken() {
    MutexLock lock(&mu_);
    return woken_;
  }
  // Waits until Open() or `deadline`; false when every wait timed out.
  bool PassBy(std::chrono::steady_clock::time_point deadline) {
    MutexLock lock(&mu_);
    while (!open_) {
      if (!cv_.WaitUntil(&mu_, deadline)) return open_;
    }
    ++woken_;
    return true;
  }
  // One wait on a deadline, whatever the state; false on timeout.
  bool WaitOnce(std::chrono::steady_clock::time_point deadline) {
    MutexLock lock(&mu_);
    const bool woken = cv_.WaitUntil(&mu_, deadline);
    mu_.AssertHeld();  // held again on return
    return woken;
  }

 private:
  Mutex mu_;
  CondVar cv_;
  bool open_ ABSL_GUARDED_BY(mu_) = false;
  int woken_ ABSL_GUARDED_BY(mu_) = 0;
};

TEST(CondVarTest, SignalAllWakesEveryWaiter) {
  constexpr int kWaiters = 4;
  Gate gate;
  std::vector<std::thread> waiters;
  waiters.reserve(kWaiters);
  for (int i = 0; i < kWaiters; ++i) {
    waiters.emplace_back([&gate] { gate.Pass(); });
  }
  gate.Open();
  for (std::thread& t : waiters) t.join();
  EXPECT_EQ(gate.woken(), kWaiters);
}

TEST(CondVarTest, WaitUntilAPassedDeadlineTimesOut) {
  Gate gate;  // never opened, never signalled
  EXPECT_FALSE(gate.WaitOnce(std::chrono::steady_clock::now() -
                             std::chrono::seconds(1)));
  EXPECT_FALSE(gate.PassBy(std::chrono::steady_clock::now()));
  EXPECT_EQ(gate.woken(), 0);
}

TEST(CondVarTest, WaitUntilEndsOnASignalBeforeTheDeadline) {
  Gate gate;
  // An hour: only Open() can end this wait within the test's time.
  std::thread waiter([&gate] {
    EXPECT_TRUE(
        gate.PassBy(std::chrono::steady_clock::now() + std::chrono::hours(1)));
  });
  gate.Open();
  waiter.join();
  EXPECT_EQ(gate.woken(), 1);
}

}  // namespace
}  // namespace perflab::core
