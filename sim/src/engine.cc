#include "sim/engine.h"

#include <new>
#include <utility>

#include "absl/strings/str_cat.h"

namespace perflab::sim {
namespace frame_internal {

thread_local constinit FreeNode* free_lists[kClasses] = {};

namespace {
// The blocks behind the free lists, returned when the thread ends.
struct Blocks {
  std::vector<void*> blocks;
  ~Blocks() {
    for (void* b : blocks) ::operator delete(b);
  }
};
thread_local Blocks blocks;
}  // namespace

void* Refill(std::size_t cls) {
  const std::size_t size = (cls + 1) * kClass;
  const std::size_t count = 256;
  char* block = static_cast<char*>(::operator new(size* count));
  blocks.blocks.push_back(block);
  for (std::size_t i = 1; i < count; ++i) {
    auto* n = reinterpret_cast<FreeNode*>(block + i * size);
    n->next = free_lists[cls];
    free_lists[cls] = n;
  }
  return block;
}

}  // namespace frame_internal

Process::promise_type::~promise_type() {
  if (sim == nullptr) return;
  if (prev != nullptr) {
    prev->next = next;
  } else {
    sim->live_head_ = next;
  }
  if (next != nullptr) next->prev = prev;
  --sim->live_;
}

Simulation::~Simulation() {
  // Destroying a suspended frame runs its locals' destructors and unlinks it.
  while (live_head_ != nullptr) {
    std::coroutine_handle<Process::promise_type>::from_promise(*live_head_)
        .destroy();
  }
}

void Simulation::Spawn(Process p) {
  auto h = std::exchange(p.handle_, nullptr);
  Process::promise_type& pr = h.promise();
  pr.sim = this;
  pr.next = live_head_;
  if (live_head_ != nullptr) live_head_->prev = &pr;
  live_head_ = &pr;
  ++live_;
  h.resume();
}

// 4-ary heap: shallower than binary, and each family in one cache line.
void Simulation::SiftUp(size_t i) {
  const Node e = heap_[i];
  while (i > kRoot) {
    const size_t parent = i / 4 + 2;
    if (!Before(e, heap_[parent])) break;
    heap_[i] = heap_[parent];
    i = parent;
  }
  heap_[i] = e;
}

// Floyd's pop: the hole at the root sinks to a leaf along the smaller
// children (three compares a level instead of four), then the last node
// rises from there; it usually belongs near the bottom anyway.
void Simulation::PopTop() {
  const Node last = heap_.back();
  heap_.pop_back();
  const size_t end = heap_.size();
  if (end == kRoot) return;
  size_t hole = kRoot;
  while (true) {
    const size_t first = 4 * hole - 8;
    if (first >= end) break;
    size_t best = first;
    const size_t stop = first + 4 < end ? first + 4 : end;
    for (size_t c = first + 1; c < stop; ++c) {
      if (Before(heap_[c], heap_[best])) best = c;
    }
    heap_[hole] = heap_[best];
    hole = best;
  }
  while (hole > kRoot) {
    const size_t parent = hole / 4 + 2;
    if (!Before(last, heap_[parent])) break;
    heap_[hole] = heap_[parent];
    hole = parent;
  }
  heap_[hole] = last;
}

Simulation::TimerId Simulation::AddTimer(EventFn fn, void* ctx) {
  timers_.push_back({kForever, 0, fn, ctx});
  return static_cast<TimerId>(timers_.size() - 1);
}

void Simulation::SetTimer(TimerId id, Time at, uint64_t seq) {
  Timer& t = timers_[id];
  if (t.at == kForever) ++timers_set_;
  t.at = at;
  t.seq = seq;
  FindFirstTimer();
}

void Simulation::ClearTimer(TimerId id) {
  Timer& t = timers_[id];
  if (t.at == kForever) return;
  t.at = kForever;
  --timers_set_;
  FindFirstTimer();
}

void Simulation::FindFirstTimer() {
  first_timer_ = -1;
  for (size_t i = 0; i < timers_.size(); ++i) {
    const Timer& t = timers_[i];
    if (t.at == kForever) continue;
    if (first_timer_ < 0) {
      first_timer_ = static_cast<int64_t>(i);
      continue;
    }
    const Timer& f = timers_[first_timer_];
    if (t.at < f.at || (t.at == f.at && t.seq < f.seq)) {
      first_timer_ = static_cast<int64_t>(i);
    }
  }
}

absl::Status Simulation::Run(Time until) {
  stopped_ = false;
  const int64_t start_events = events_;
  while (!stopped_) {
    Payload e;
    // Three sorted sources merge by (time, seq): the queue for now_, the
    // heap and the earliest timer. The queue's front comes first unless the
    // heap's top is due now with a smaller (reserved) seq.
    Time at;
    bool from_heap;
    const bool heap_empty = heap_.size() == kRoot;
    if (now_head_ < now_queue_.size()) {
      at = now_;
      from_heap = !heap_empty && heap_[kRoot].time == now_ &&
                  payloads_[heap_[kRoot].slot].seq < now_queue_[now_head_].seq;
    } else if (!heap_empty) {
      at = heap_[kRoot].time;
      from_heap = true;
    } else if (first_timer_ < 0) {
      break;
    } else {
      at = kForever;
      from_heap = false;
    }
    if (first_timer_ >= 0) [[unlikely]] {
      const Timer& t = timers_[first_timer_];
      const bool any = from_heap || now_head_ < now_queue_.size();
      const uint64_t seq = !any        ? 0
                           : from_heap ? payloads_[heap_[kRoot].slot].seq
                                       : now_queue_[now_head_].seq;
      if (!any || t.at < at || (t.at == at && t.seq < seq)) {
        if (t.at > until) break;
        at = t.at;
        e = {t.seq, t.fn, t.ctx, 0};
        timers_[first_timer_].at = kForever;
        --timers_set_;
        FindFirstTimer();
        goto run;
      }
    }
    if (at > until) break;
    if (from_heap) {
      const uint64_t slot = heap_[kRoot].slot;
      e = payloads_[slot];
      free_slots_.push_back(slot);
      PopTop();
    } else {
      e = now_queue_[now_head_++];
      if (now_head_ == now_queue_.size()) {
        now_queue_.clear();
        now_head_ = 0;
      }
    }
  run:
    now_ = at;
    e.fn(e.ctx, e.arg);
    ++events_;
    if (events_ - start_events > budget_.max_events) {
      return absl::ResourceExhaustedError(absl::StrCat(
          "event budget exceeded: more than ", budget_.max_events,
          " events by t = ", ToSec(now_), " s (raise max_events)"));
    }
    const auto pending = static_cast<int64_t>(pending_events());
    if (pending + live_ > budget_.max_pending) {
      return absl::ResourceExhaustedError(absl::StrCat(
          "memory budget exceeded: ", pending, " pending events + ", live_,
          " live processes > max_pending ", budget_.max_pending,
          " at t = ", ToSec(now_), " s"));
    }
  }
  if (!stopped_ && now_ < until && until != kForever) now_ = until;
  return absl::OkStatus();
}

}  // namespace perflab::sim
