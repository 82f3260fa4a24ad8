#include "sim/engine.h"

#include <algorithm>
#include <cstdint>
#include <new>

#include "absl/strings/str_cat.h"

namespace perflab::sim {
namespace frame_internal {

thread_local constinit FreeNode* free_lists[kClasses] = {};

namespace {
// The blocks behind the free lists, returned when the thread ends, and per
// class the part of its newest block not yet handed out. Frames are cut
// from that part one at a time rather than threaded onto the list at once,
// so a block's pages are first written when a frame there is: a run that
// needs two frames of a class touches one page, not 256 frames' worth.
struct Blocks {
  std::vector<void*> blocks;
  char* next[kClasses] = {};
  char* end[kClasses] = {};
  ~Blocks() {
    for (void* b : blocks) ::operator delete(b);
  }
};
thread_local Blocks blocks;
}  // namespace

void* Refill(std::size_t cls) {
  const std::size_t size = (cls + 1) * kClass;
  if (blocks.next[cls] == blocks.end[cls]) {
    const std::size_t count = 256;
    char* block = static_cast<char*>(::operator new(size* count));
    blocks.blocks.push_back(block);
    blocks.next[cls] = block;
    blocks.end[cls] = block + size * count;
  }
  void* frame = blocks.next[cls];
  blocks.next[cls] += size;
  return frame;
}

}  // namespace frame_internal

Simulation::~Simulation() {
  // Destroying a suspended frame runs its locals' destructors and unlinks it.
  while (live_head_ != nullptr) {
    std::coroutine_handle<Process::promise_type>::from_promise(*live_head_)
        .destroy();
  }
}

Simulation::TimerId Simulation::AddTimer(EventFn fn, void* ctx) {
  timers_.push_back({kForever, 0, fn, ctx});
  return static_cast<TimerId>(timers_.size() - 1);
}

void Simulation::ScheduleMany(const internal::Event& e) {
  recheck_ = true;  // the array is full or not in use: RunFew must end
  // An event for now in the newest position runs after everything already
  // pending for now, so it can skip the radix heap: about half of a model's
  // events are such resumptions (a CPU finish, a granted connection).
  if (e.time == now_ && e.seq + 1 == seq_) {
    now_queue_.push_back(e);
  } else {
    queue_.PushMany(e);
  }
}

namespace {
bool Before(Time at, uint64_t seq, Time other_at, uint64_t other_seq) {
  return at < other_at || (at == other_at && seq < other_seq);
}
}  // namespace

void Simulation::SetTimer(TimerId id, Time at, uint64_t seq) {
  // kForever marks a timer as not set: one for the clock's end never fires.
  if (at == kForever) {
    ClearTimer(id);
    return;
  }
  recheck_ = true;  // RunFew does not look at timers
  Timer& t = timers_[id];
  if (t.at == kForever) {
    ++timers_set_;
    live_cap_ = std::min(live_cap_, LiveCap());
    NoteGrowth();
  }
  const bool was_first = first_timer_ == static_cast<int64_t>(id);
  const bool earlier = Before(at, seq, t.at, t.seq);
  t.at = at;
  t.seq = seq;
  if (was_first) {
    // Moved later, another may be first now; alone, it stays first.
    if (!earlier && timers_set_ > 1) {
      FindFirstTimer();
      return;
    }
  } else if (first_timer_ >= 0 && !Before(at, seq, timer_at_, timer_seq_)) {
    return;
  }
  first_timer_ = id;
  timer_at_ = at;
  timer_seq_ = seq;
}

void Simulation::ClearTimer(TimerId id) {
  Timer& t = timers_[id];
  if (t.at == kForever) return;
  t.at = kForever;
  --timers_set_;
  if (first_timer_ == static_cast<int64_t>(id)) FindFirstTimer();
}

void Simulation::FindFirstTimer() {
  // The best so far in locals: a store to a member may alias the timers the
  // loop reads, so the compiler would reload the vector after each.
  int64_t first = -1;
  Time first_at = kForever;
  uint64_t first_seq = UINT64_MAX;
  const size_t n = timers_set_ == 0 ? 0 : timers_.size();
  for (size_t i = 0; i < n; ++i) {
    const Timer& t = timers_[i];
    if (t.at == kForever) continue;
    if (first < 0 || Before(t.at, t.seq, first_at, first_seq)) {
      first = static_cast<int64_t>(i);
      first_at = t.at;
      first_seq = t.seq;
    }
  }
  first_timer_ = first;
  timer_at_ = first_at;
  timer_seq_ = first_seq;
}

void Simulation::FireTimer(internal::Event* out) {
  Timer& t = timers_[first_timer_];
  *out = {t.at, t.seq, t.fn, t.ctx, 0};
  t.at = kForever;
  --timers_set_;
  FindFirstTimer();
}

// The next event when the FIFO for now or a timer may hold it: three sorted
// sources merge by (time, seq). The earliest time is taken first, and among
// equal times the smallest seq.
// Inline in Run: where many are pending, a FIFO event comes up often.
[[gnu::always_inline]] inline bool Simulation::NextMerged(
    Time until, internal::Event* out) {
  const bool have_now = now_head_ < now_queue_.size();
  const Time queued_at = queue_.MinTime();
  const Time timer_at = timer_at_;
  if (!have_now && queue_.empty() && first_timer_ < 0) return false;
  Time at = have_now ? now_ : queued_at;
  if (first_timer_ >= 0 && timer_at < at) at = timer_at;
  if (at > until) return false;
  enum { kNow, kQueued, kTimer } from = kNow;
  uint64_t seq = have_now ? now_queue_[now_head_].seq : UINT64_MAX;
  if (!queue_.empty() && queued_at == at) {
    // The next event runs at `at`, so nothing earlier can be pushed now.
    queue_.Settle();
    if (!have_now || queue_.Front().seq < seq) {
      from = kQueued;
      seq = queue_.Front().seq;
    }
  }
  // No other source at `at` leaves seq at UINT64_MAX, which a timer's beats.
  if (first_timer_ >= 0 && timer_at == at && timer_seq_ < seq) {
    from = kTimer;
  }
  if (from == kTimer) {
    FireTimer(out);
  } else if (from == kQueued) {
    *out = queue_.Front();
    queue_.Pop();
  } else {
    *out = now_queue_[now_head_++];
    if (now_head_ == now_queue_.size()) {
      now_queue_.clear();
      now_head_ = 0;
    }
  }
  return true;
}

// The loop while few events are pending, the FIFO for now is empty, no
// timer is set and the pending budget is far: one event after another from
// the small array, each followed by one flag test. None of those conditions
// can change without setting recheck_ (only ScheduleMany fills the FIFO or
// leaves the array, only SetTimer sets a timer, only NoteGrowth comes near
// the budget), so the general loop's pending count may be skipped here as
// it is there. Returns false once no event is due by `until`; true after an
// event that set recheck_ or went past last_event, for the caller to check.
[[gnu::always_inline]] inline bool Simulation::RunFew(Time until,
                                                      int64_t last_event) {
  recheck_ = false;
  internal::Event e;
  while (queue_.PopFew(until, &e)) {
    now_ = e.time;
    e.fn(e.ctx, e.arg);
    if (++events_ > last_event || recheck_) return true;
  }
  return false;
}

absl::Status Simulation::EventBudgetError() const {
  return absl::ResourceExhaustedError(
      absl::StrCat("event budget exceeded: more than ", budget_.max_events,
                   " events (max_events) by t = ", ToSec(now_), " s"));
}

absl::Status Simulation::Run(Time until) {
  // Callbacks run here may continue a resumption inline (ContinueNow); a Run
  // called from inside one (nested) gives back the caller's setting.
  struct Unhold {
    Simulation& sim;
    int32_t hold;
    Time until;
    int64_t last_event;
    ~Unhold() {
      sim.hold_ = hold;
      sim.until_ = until;
      sim.last_event_ = last_event;
    }
  } unhold{*this, hold_, until_, last_event_};
  hold_ = 0;
  until_ = until;
  stopped_ = false;
  near_budget_ = true;  // pending may have grown outside Run
  // The last event this run may execute (saturated: max_events may be huge).
  const int64_t last_event = budget_.max_events > INT64_MAX - events_
                                 ? INT64_MAX
                                 : events_ + budget_.max_events;
  last_event_ = last_event;
  internal::Event e;
  while (!stopped_) {
    if (queue_.few_mode() && now_queue_.empty() && first_timer_ < 0 &&
        !near_budget_) {
      if (!RunFew(until, last_event)) break;
    } else {
      // Without an event in the FIFO for now, the queue's earliest unless
      // the earliest timer comes before it.
      if (now_queue_.empty()) [[likely]] {
        if (!queue_.PopBefore(timer_at_, timer_seq_, until, &e)) {
          // Nothing in the queue precedes the timer by `until`.
          if (first_timer_ < 0 || timer_at_ > until) break;
          FireTimer(&e);
        }
      } else if (!NextMerged(until, &e)) {
        break;
      }
      now_ = e.time;
      e.fn(e.ctx, e.arg);
      ++events_;
    }
    if (events_ > last_event) return EventBudgetError();
    // Out of the small array's mode the pending count grows without
    // NoteGrowth, so it is counted after every event.
    if (near_budget_ || !queue_.few_mode() || !now_queue_.empty()) {
      const auto pending = static_cast<int64_t>(pending_events());
      if (pending + live_ > budget_.max_pending) {
        return absl::ResourceExhaustedError(absl::StrCat(
            "memory budget exceeded: ", pending, " pending events + ", live_,
            " live processes > max_pending ", budget_.max_pending,
            " at t = ", ToSec(now_), " s"));
      }
      near_budget_ = PendingBound() > budget_.max_pending;
    }
  }
  if (!stopped_ && now_ < until && until != kForever) now_ = until;
  return absl::OkStatus();
}

}  // namespace perflab::sim
