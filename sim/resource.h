// Resource: a counting semaphore with a FIFO wait queue and an optional
// acquire timeout, the shape of a connection pool (Hikari), a request-thread
// pool (Tomcat), a row lock or a set of servers. A timed-out acquire resumes
// the waiter with false and is counted with its queue wait.
//
// Statistics are time-weighted over [ResetStats(), now]: utilisation (mean
// busy units / capacity), mean queue length, waits and timeouts.
// Single-threaded, like the Simulation it belongs to.
#ifndef PERFLAB_SIM_RESOURCE_H_
#define PERFLAB_SIM_RESOURCE_H_

#include <coroutine>
#include <cstdint>
#include <string>
#include <vector>

#include "sim/engine.h"
#include "sim/internal/ring_queue.h"

namespace perflab::sim {

// A quantity whose time integral we want (busy units, queue length, in flight).
class TimeWeighted {
 public:
  void Set(Time now, int64_t value) {
    area_ += static_cast<__int128>(value_) * (now - last_);
    last_ = now;
    value_ = value;
    if (value > max_) max_ = value;
  }
  void Add(Time now, int64_t delta) { Set(now, value_ + delta); }
  void Reset(Time now) {
    area_ = 0;
    last_ = start_ = now;
    max_ = value_;
  }
  double Mean(Time now) const {
    if (now <= start_) return static_cast<double>(value_);
    const __int128 a = area_ + static_cast<__int128>(value_) * (now - last_);
    return static_cast<double>(a) / static_cast<double>(now - start_);
  }
  int64_t value() const { return value_; }
  int64_t max() const { return max_; }

 private:
  __int128 area_ = 0;
  Time last_ = 0;
  Time start_ = 0;
  int64_t value_ = 0;
  int64_t max_ = 0;
};

struct ResourceStats {
  double utilisation = 0;        // mean busy units / capacity
  double mean_queue_length = 0;  // time-weighted waiters
  int64_t max_queue_length = 0;
  int64_t grants = 0;           // acquires that succeeded in the window
  int64_t timeouts = 0;         // acquires that gave up in the window
  double mean_wait_s = 0;       // over grants
  double timed_out_wait_s = 0;  // mean wait of the timed-out acquires
  Time first_timeout = -1;      // virtual time of the first timeout, -1 if none
};

class Resource {
 public:
  static constexpr Time kNoTimeout = -1;

  Resource(Simulation& sim, std::string name, int64_t capacity)
      : sim_(&sim), name_(std::move(name)), capacity_(capacity) {}

  struct Awaiter {
    Resource* r;
    Time timeout;
    uint32_t slot = kReadySlot;
    // Filled while an untimed acquire waits (the queue points at this
    // awaiter, which lives in the waiting coroutine's frame until resumed).
    std::coroutine_handle<> handle;
    Time enqueued = 0;
    bool await_ready() {
      if (r->in_use_.value() < r->capacity_ && r->queued_ == 0) {
        r->Grant(0);
        return true;
      }
      return false;
    }
    // Forced inline, as Release is: GCC keeps both out of line in a
    // coroutine's body, where the call's saves and restores cost about as
    // much as the untimed path itself.
    [[gnu::always_inline]] void await_suspend(std::coroutine_handle<> h) {
      if (timeout < 0) {
        slot = kUntimedSlot;
        r->EnqueueUntimed(this, h);
      } else {
        slot = r->Enqueue(h, timeout);
      }
    }
    // True if the unit was acquired, false if the wait timed out. An
    // untimed wait ends only by a grant.
    bool await_resume() { return slot >= kUntimedSlot || r->Collect(slot); }
  };
  // co_await pool.Acquire(timeout) -> bool. Holders must call Release().
  Awaiter Acquire(Time timeout = kNoTimeout) {
    return {this, timeout, kReadySlot, {}, 0};
  }
  // Inline: a pool's hot path, most often a hand-over to the oldest waiter.
  [[gnu::always_inline]] void Release() {
    while (!queue_.empty()) {
      const Queued q = queue_.front();
      queue_.pop_front();
      if (q.untimed != nullptr) {
        HandOver(q.untimed->handle, q.untimed->enqueued);
        return;
      }
      if (HandOverTimed(q.key)) return;  // else a stale entry: skipped
    }
    in_use_.Add(sim_->now(), -1);
  }

  // A holder gives its unit back and takes it again at once, while no one
  // waits (a connection going from one statement to the next): what a
  // Release and a granted Acquire at one instant leave, one more grant
  // without a wait, the busy units and their time integral unchanged.
  void Regrant() { ++grants_; }

  const std::string& name() const { return name_; }
  int64_t capacity() const { return capacity_; }
  int64_t in_use() const { return in_use_.value(); }
  int64_t queued() const { return queued_; }
  void ResetStats();
  ResourceStats Stats() const;

 private:
  static constexpr uint32_t kReadySlot = 0xffffffffu;    // granted at once
  static constexpr uint32_t kUntimedSlot = 0xfffffffeu;  // waited, no slot
  enum class State : uint8_t { kFree, kWaiting, kGranted, kTimedOut };
  struct Waiter {
    std::coroutine_handle<> handle;
    Time enqueued = 0;
    uint32_t gen = 0;
    State state = State::kFree;
  };
  void Grant(Time waited);
  // An untimed wait needs no slot: nothing but a grant can end it, so the
  // queue holds its awaiter, and a hand-over touches no slot table, free
  // list or deadline (the servers of an M/M/c, a thread pool's queue).
  void EnqueueUntimed(Awaiter* a, std::coroutine_handle<> h) {
    a->handle = h;
    a->enqueued = sim_->now();
    queue_.push_back({a, 0});
    ++queued_;
    waiting_.Set(sim_->now(), queued_);
  }
  // Gives the released unit to a waiter: in_use stays the same.
  void HandOver(std::coroutine_handle<> h, Time enqueued) {
    const Time now = sim_->now();
    --queued_;
    waiting_.Set(now, queued_);
    ++grants_;
    wait_sum_ += now - enqueued;
    sim_->ScheduleResume(now, h);
  }
  bool HandOverTimed(uint64_t key);  // false if the wait is already over
  uint32_t Enqueue(std::coroutine_handle<> h, Time timeout);
  bool Collect(uint32_t slot);
  static void OnTimeout(void* ctx, uint64_t arg);
  static void OnDeadline(void* ctx, uint64_t arg);
  void Expire(uint64_t key);
  void Arm();

  Simulation* sim_;
  std::string name_;
  int64_t capacity_;
  TimeWeighted in_use_;
  TimeWeighted waiting_;
  int64_t queued_ = 0;
  std::vector<Waiter> slots_;
  std::vector<uint32_t> free_slots_;
  // Waiters in FIFO order: an untimed one by its awaiter, a timed one by
  // key (slot << 32 | gen), stale once its wait timed out.
  struct Queued {
    Awaiter* untimed;  // nullptr: a timed wait, by key
    uint64_t key;
  };
  internal::RingQueue<Queued> queue_;
  // Timeouts in deadline order, one engine event armed for the earliest: a
  // 30 s timeout per wait would otherwise sit in the engine's heap for 30 s
  // after its grant (millions of dead events in an N+1 model). A deadline
  // earlier than the last one (a shorter timeout) gets its own event.
  struct Deadline {
    Time at;
    uint64_t seq;  // the engine order the wait's own event would have had
    uint64_t key;
  };
  internal::RingQueue<Deadline> deadlines_;
  bool armed_ = false;      // an OnDeadline event is pending
  uint64_t armed_seq_ = 0;  // its seq; others are stale
  int64_t grants_ = 0;
  int64_t timeouts_ = 0;
  __int128 wait_sum_ = 0;
  __int128 timed_out_wait_sum_ = 0;
  Time first_timeout_ = -1;
};

}  // namespace perflab::sim

#endif  // PERFLAB_SIM_RESOURCE_H_
