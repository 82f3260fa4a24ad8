// The discrete-event engine: virtual time in integer nanoseconds, a radix
// heap of small POD events ordered by (time, insertion sequence)
// (sim/internal/event_queue.h; beside it a FIFO for events due now and
// movable timers, merged in the same order), and C++20 coroutines as
// processes, so a model reads like its story:
//
//   Process Customer(Simulation& sim, Resource& servers) {
//     co_await servers.Acquire();
//     co_await sim.Delay(5 * kMs);
//     servers.Release();
//   }
//
// Coroutine frames come from a per-thread free list (plain new under ASan),
// so a customer costs no malloc on the hot path. A process frame is freed
// when its body ends; the Simulation destroys the frames of processes still
// suspended when it is destroyed. Single-threaded: one Simulation per thread.
#ifndef PERFLAB_SIM_ENGINE_H_
#define PERFLAB_SIM_ENGINE_H_

#include <algorithm>
#include <bit>
#include <cmath>
#include <coroutine>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <new>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "sim/internal/event_queue.h"

namespace perflab::sim {

using Time = int64_t;  // virtual nanoseconds
inline constexpr Time kNs = 1;
inline constexpr Time kUs = 1'000;
inline constexpr Time kMs = 1'000'000;
inline constexpr Time kSec = 1'000'000'000;
// Run(kForever) runs until no events are left and leaves now() at the last.
inline constexpr Time kForever = INT64_MAX;

inline double ToMs(Time t) { return static_cast<double>(t) / kMs; }
inline double ToSec(Time t) { return static_cast<double>(t) / kSec; }
// A count of nanoseconds rounded to the nearest, held at the clock's ends
// past them: llround of a value outside int64 is undefined (x86 gives
// INT64_MIN for a huge positive one, a delay into the past). 2^63 is the
// first double past INT64_MAX; -2^63 is INT64_MIN itself. NaN, which no
// checked input carries, is 0 rather than whatever llround makes of it.
inline Time RoundToNs(double ns) {
  if (std::isnan(ns)) return 0;
  if (ns >= 0x1p63) return kForever;
  if (ns <= -0x1p63) return INT64_MIN;
  return static_cast<Time>(std::llround(ns));
}
// Milliseconds or seconds as a user types them, rounded to the nearest ns.
inline Time MsToNs(double ms) { return RoundToNs(ms * 1e6); }
inline Time SecToNs(double s) { return RoundToNs(s * 1e9); }
// t + d, held at the ends of the clock instead of wrapping: an event a
// huge delay away never comes round to the past (which runs now).
inline Time SaturatingAdd(Time t, Time d) {
  Time sum;
  if (__builtin_add_overflow(t, d, &sum)) [[unlikely]]
    return d > 0 ? kForever : INT64_MIN;
  return sum;
}

// ceil(x) as a wait in ns: 0 for x <= 0, kForever from 2^63 on and for NaN
// (a finish past the clock's end is never, not a wrapped time in the past).
// In integers, not std::ceil (a libm call on x86-64 without SSE4.1): the
// truncation plus one if any of the mantissa's fraction bits is set, which
// a CPU's next finish waits on at every event, so it reads the bits beside
// the conversion instead of converting back and comparing after it.
inline Time CeilNs(double x) {
  if (!(x < 0x1.0p63)) return kForever;
  if (!(x > 0)) return 0;
  const auto t = static_cast<Time>(x);
  const auto bits = std::bit_cast<uint64_t>(x);
  const int e = static_cast<int>(bits >> 52) - 1023;  // x > 0: no sign bit
  if (e < 0) [[unlikely]]
    return 1;  // 0 < x < 1
  if (e >= 52) [[unlikely]]
    return t;  // a whole number
  const uint64_t fraction = bits & ((uint64_t{1} << (52 - e)) - 1);
  return t + (fraction != 0 ? 1 : 0);
}

// Limits that stop a run with a clear error instead of exhausting memory.
struct Budget {
  int64_t max_events = 4'000'000'000;  // events executed in one Run()
  int64_t max_pending = 20'000'000;    // pending events + live processes
};

// Frame allocation for coroutines: size classes of 64 bytes on per-thread
// free lists, inline so that a frame costs a few instructions; an empty list
// takes a new frame from a block of 256, and the memory is kept until the
// thread ends.
namespace frame_internal {
#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool kPoolFrames = false;  // let ASan see every lifetime
#else
inline constexpr bool kPoolFrames = true;
#endif
inline constexpr std::size_t kClass = 64;
inline constexpr std::size_t kClasses = 32;  // frames up to 2 KiB are pooled
struct FreeNode {
  FreeNode* next;
};
extern thread_local constinit FreeNode* free_lists[kClasses];
void* Refill(std::size_t cls);  // a frame never used before
}  // namespace frame_internal

inline void* AllocateFrame(std::size_t n) {
  namespace fi = frame_internal;
  const std::size_t cls = (n - 1) / fi::kClass;
  if (!fi::kPoolFrames || cls >= fi::kClasses) return ::operator new(n);
  fi::FreeNode* f = fi::free_lists[cls];
  if (f == nullptr) [[unlikely]]
    return fi::Refill(cls);
  fi::free_lists[cls] = f->next;
  return f;
}

inline void FreeFrame(void* p, std::size_t n) {
  namespace fi = frame_internal;
  const std::size_t cls = (n - 1) / fi::kClass;
  if (!fi::kPoolFrames || cls >= fi::kClasses) {
    ::operator delete(p);
    return;
  }
  auto* node = static_cast<fi::FreeNode*>(p);
  node->next = fi::free_lists[cls];
  fi::free_lists[cls] = node;
}

class Simulation;

// A simulated process. Created suspended; Simulation::Spawn starts it.
class Process {
 public:
  struct promise_type {
    Simulation* sim = nullptr;
    promise_type* prev = nullptr;  // the Simulation's list of live processes
    promise_type* next = nullptr;

    Process get_return_object() {
      return Process(std::coroutine_handle<promise_type>::from_promise(*this));
    }
    std::suspend_always initial_suspend() noexcept { return {}; }
    std::suspend_never final_suspend() noexcept { return {}; }
    void return_void() {}
    void unhandled_exception() { std::terminate(); }
    ~promise_type();
    static void* operator new(std::size_t n) { return AllocateFrame(n); }
    static void operator delete(void* p, std::size_t n) { FreeFrame(p, n); }
  };

  Process(Process&& o) noexcept : handle_(o.handle_) { o.handle_ = nullptr; }
  Process(const Process&) = delete;
  Process& operator=(const Process&) = delete;
  ~Process() {
    if (handle_) handle_.destroy();  // never spawned
  }

 private:
  friend class Simulation;
  explicit Process(std::coroutine_handle<promise_type> h) : handle_(h) {}
  std::coroutine_handle<promise_type> handle_;
};

class Simulation {
 public:
  explicit Simulation(Budget budget = {}) : budget_(budget) {
    live_cap_ = LiveCap();
  }
  ~Simulation();
  Simulation(const Simulation&) = delete;
  Simulation& operator=(const Simulation&) = delete;

  Time now() const { return now_; }

  // Starts `p` now: it runs until its first suspension, then returns here.
  // Inline, as is a process's end (~promise_type): a model spawns one per
  // customer or request, and the call would cost about as much as the work.
  void Spawn(Process p) {
    auto h = std::exchange(p.handle_, nullptr);
    Process::promise_type& pr = h.promise();
    pr.sim = this;
    pr.next = live_head_;
    if (live_head_ != nullptr) live_head_->prev = &pr;
    live_head_ = &pr;
    if (++live_ > live_cap_) NoteGrowth();
    ResumeNested(h);
  }
  // Resumes `h` now from code that goes on after it returns (Spawn, a
  // timeout that then re-arms): while it runs, ContinueNow() says no.
  void ResumeNested(std::coroutine_handle<> h) {
    ++hold_;
    h.resume();
    --hold_;
  }

  void Schedule(Time at, EventFn fn, void* ctx, uint64_t arg = 0) {
    ScheduleAs(at, seq_++, fn, ctx, arg);
  }
  // For components that keep one engine event for many logical ones (a CPU's
  // next finish, a pool's next timeout): TakeSeq() reserves the tie-breaking
  // position an event scheduled now would get; ScheduleAs() later schedules
  // an event in that position, so it runs exactly where the logical event
  // would have (same time, same order among equal times).
  uint64_t TakeSeq() { return seq_++; }
  void ScheduleAs(Time at, uint64_t seq, EventFn fn, void* ctx,
                  uint64_t arg = 0) {
    // Time never goes back: an event for the past runs now, in seq order.
    const internal::Event e{at > now_ ? at : now_, seq, fn, ctx, arg};
    if (!queue_.PushFew(e)) ScheduleMany(e);
  }
  // A timer is one event a component keeps moving (a CPU's next finish):
  // SetTimer replaces its pending (time, seq), where scheduling anew would
  // leave each superseded event in the heap until its time came. Meant for
  // a few long-lived components: each set, clear or firing scans them all,
  // and an id is never reused (a component clears its own when destroyed).
  // A timer set for kForever is cleared: the clock's end never comes.
  using TimerId = uint32_t;
  TimerId AddTimer(EventFn fn, void* ctx);
  void SetTimer(TimerId id, Time at, uint64_t seq);
  void ClearTimer(TimerId id);

  void ScheduleResume(Time at, std::coroutine_handle<> h) {
    Schedule(at, &ResumeFn, h.address());
  }
  // In a position reserved earlier with TakeSeq().
  void ScheduleResumeAs(Time at, uint64_t seq, std::coroutine_handle<> h) {
    ScheduleAs(at, seq, &ResumeFn, h.address());
  }

  // A resumption for now, when the code asking is the last act of its event
  // (the engine's own resumption of a coroutine, or a component's callback
  // about to return): true if that resumption would be the very next event,
  // so the caller may go on at once instead. It would be when no event is
  // due now before it (in seq order), the run is not stopping, and nothing
  // that resumed the caller directly (ResumeNested) goes on after it. The
  // order of everything else is unchanged (an unused seq leaves a gap, not
  // a swap), and the event is counted as executed all the same. Outside
  // Run() always false. ContinueNow(): in the newest position, after every
  // event due now; ContinueAt(seq): in a position reserved with TakeSeq.
  bool ContinueNow() { return ContinueAt(seq_); }
  bool ContinueAt(uint64_t seq) {
    if (hold_ != 0 || stopped_ ||
        (now_head_ != now_queue_.size() && now_queue_[now_head_].seq < seq) ||
        (timer_at_ == now_ && timer_seq_ < seq) ||
        queue_.FirstSeqAt(now_) < seq) {
      return false;
    }
    ++events_;
    return true;
  }
  // From a callback's last act: resumes `h` now if ContinueAt(seq), else
  // schedules it at now in the position `seq` reserved (TakeSeq) where it
  // would have been scheduled.
  void ResumeLast(std::coroutine_handle<> h, uint64_t seq) {
    if (ContinueAt(seq)) {
      h.resume();
    } else {
      ScheduleResumeAs(now_, seq, h);
    }
  }

  // For a component whose timer is not set (it knows) and would now be set
  // to fire at `t`, after every pending event: true if that firing would be
  // the very next event and the run would get there. That is, nothing is
  // due by `t`, `t` is within the running Run()'s horizon, the run is not
  // stopping, nothing that resumed the caller directly goes on after it
  // (ResumeNested), and the budgets let the run go past the current event
  // with the timer set. Outside Run() false.
  bool CanSkipTo(Time t) const { return CanSkipWithin(t, SkipHorizon()); }
  // The same in two parts, for a component that skips again and again with
  // nothing else happening between (SkipTo alone changes the engine): the
  // latest `t` CanSkipTo could allow (INT64_MIN if none), worked out once;
  // then CanSkipWithin(t, that) for each skip, the event budget being the
  // one condition SkipTo moves.
  Time SkipHorizon() const {
    if (hold_ != 0 || stopped_ || now_head_ != now_queue_.size() ||
        PendingBound() >= budget_.max_pending) {
      return INT64_MIN;
    }
    return std::min({until_, timer_at_ - 1, queue_.MinTime() - 1});
  }
  bool CanSkipWithin(Time t, Time horizon) const {
    return t <= horizon && events_ < last_event_;
  }
  // After CanSkipTo(t): what setting that timer, firing it and the
  // callback's last act going on inline (ContinueAt, which nothing pending
  // can refuse at `t` now) would leave behind: both events counted, the
  // live-process cap lowered as a set timer lowers it, the clock at `t`.
  // The component then does in place what its timer's callback would have
  // done, and its caller goes on.
  void SkipTo(Time t) {
    live_cap_ = std::min(live_cap_, LiveCap() - 1);
    recheck_ = true;
    events_ += 2;
    now_ = t;
  }

  struct DelayAwaiter {
    Simulation* sim;
    Time delay;
    bool await_ready() const noexcept { return false; }
    // A delay <= 0 lands at or before now, which ScheduleAs runs now.
    void await_suspend(std::coroutine_handle<> h) const {
      sim->ScheduleResume(SaturatingAdd(sim->now_, delay), h);
    }
    void await_resume() const noexcept {}
  };
  // co_await sim.Delay(d): resumes d nanoseconds later (d <= 0: after the
  // events already scheduled for now; past the clock's end: never, or at
  // kForever by Run(kForever)).
  DelayAwaiter Delay(Time d) { return {this, d}; }
  DelayAwaiter Until(Time t) {
    Time d;
    if (__builtin_sub_overflow(t, now_, &d)) d = t > 0 ? kForever : 0;
    return {this, d};
  }

  // Runs events with time <= until, then sets now = until (unless until is
  // kForever). Stops early on Stop() or a budget breach (ResourceExhausted
  // naming the limit).
  absl::Status Run(Time until);
  void Stop() { stopped_ = recheck_ = true; }

  int64_t events_executed() const { return events_; }
  size_t pending_events() const {
    return queue_.size() + now_queue_.size() - now_head_ + timers_set_;
  }
  int64_t live_processes() const { return live_; }

 private:
  friend struct Process::promise_type;
  static void ResumeFn(void* ctx, uint64_t) {
    std::coroutine_handle<>::from_address(ctx).resume();
  }
  void ScheduleMany(const internal::Event& e);
  bool NextMerged(Time until, internal::Event* out);
  bool RunFew(Time until, int64_t last_event);
  absl::Status EventBudgetError() const;
  void FindFirstTimer();
  // While the queue holds few events and the FIFO none, pending events and
  // live processes stay at or below this until a call that runs NoteGrowth:
  // PushFew's pushes never take the queue past kFew events, and any other
  // push leaves that mode (the loop then counts after every event).
  int64_t PendingBound() const {
    return static_cast<int64_t>(pending_events() + internal::EventQueue::kFew) +
           live_;
  }
  void NoteGrowth() {
    if (PendingBound() > budget_.max_pending) near_budget_ = recheck_ = true;
  }
  void FireTimer(internal::Event* out);  // takes out the earliest timer
  // Live processes up to this cannot bring PendingBound() past max_pending
  // while only the array holds events (at most kFew of them, the FIFO
  // empty), so Spawn need not count pending events below it. In any other
  // mode the loop counts after every event and near_budget_ is not read.
  int64_t LiveCap() const {
    return budget_.max_pending -
           2 * static_cast<int64_t>(internal::EventQueue::kFew) -
           static_cast<int64_t>(timers_set_);
  }

  Budget budget_;
  Time now_ = 0;
  uint64_t seq_ = 0;
  int64_t events_ = 0;
  int64_t live_ = 0;
  int64_t live_cap_ = 0;  // LiveCap(), lowered as timers are set
  // 0 while Run() executes an event's callback and no ResumeNested is under
  // way: only then may ContinueNow() say yes.
  int32_t hold_ = 1;
  // The running Run()'s horizon and the last event it may execute.
  Time until_ = 0;
  int64_t last_event_ = 0;
  bool stopped_ = false;
  // Clear only while PendingBound() <= max_pending: in the small array's
  // mode the loop then skips the exact count after each event.
  bool near_budget_ = true;
  // Set by whatever may end RunFew's conditions (a stop, a timer set, an
  // event the array cannot take, the pending budget near), so that loop
  // tests one flag per event instead of each condition.
  bool recheck_ = false;
  internal::EventQueue queue_;
  // Events at now_ in seq order, from now_head_ on, while queue_ holds many:
  // each seq is larger than any in queue_ when it was queued, so the loop
  // takes queue_'s front first only if it is due now with a smaller seq (a
  // reserved position).
  std::vector<internal::Event> now_queue_;
  size_t now_head_ = 0;
  struct Timer {
    Time at = kForever;  // kForever: not set
    uint64_t seq = 0;
    EventFn fn;
    void* ctx;
  };
  // Few (one per CPU), so the earliest is found by a scan, and only when
  // the earliest itself moves later, is cleared or fires.
  std::vector<Timer> timers_;
  size_t timers_set_ = 0;
  int64_t first_timer_ = -1;  // index of the earliest set timer, or -1
  // Its (time, seq), kept here so the loop compares without an index.
  Time timer_at_ = kForever;
  uint64_t timer_seq_ = UINT64_MAX;  // none: after every event
  Process::promise_type* live_head_ = nullptr;
};

inline Process::promise_type::~promise_type() {
  if (sim == nullptr) return;  // never spawned
  if (prev != nullptr) {
    prev->next = next;
  } else {
    sim->live_head_ = next;
  }
  if (next != nullptr) next->prev = prev;
  --sim->live_;
}

// A count-down latch: Wait() resumes once Done() has been called `count`
// times (fork-join).
class Latch {
 public:
  Latch(Simulation& sim, int64_t count) : sim_(&sim), count_(count) {}
  void Done() {
    if (--count_ == 0) {
      for (auto h : waiters_) sim_->ScheduleResume(sim_->now(), h);
      waiters_.clear();
    }
  }
  struct Awaiter {
    Latch* latch;
    bool await_ready() const noexcept { return latch->count_ <= 0; }
    void await_suspend(std::coroutine_handle<> h) {
      latch->waiters_.push_back(h);
    }
    void await_resume() const noexcept {}
  };
  Awaiter Wait() { return {this}; }

 private:
  Simulation* sim_;
  int64_t count_;
  std::vector<std::coroutine_handle<>> waiters_;
};

}  // namespace perflab::sim

#endif  // PERFLAB_SIM_ENGINE_H_
