#include "sim/engine.h"

#include <new>
#include <utility>

#include "absl/strings/str_cat.h"

namespace perflab::sim {
namespace {

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kPoolFrames = false;  // let ASan see every frame's lifetime
#else
constexpr bool kPoolFrames = true;
#endif

constexpr std::size_t kClass = 64;
constexpr std::size_t kClasses = 32;  // frames up to 2 KiB are pooled

struct FreeNode {
  FreeNode* next;
};

// Per-thread free lists; memory is kept for reuse until the thread ends.
struct FramePool {
  FreeNode* free[kClasses] = {};
  std::vector<void*> blocks;
  ~FramePool() {
    for (void* b : blocks) ::operator delete(b);
  }
  void* Take(std::size_t cls) {
    if (free[cls] == nullptr) Refill(cls);
    FreeNode* n = free[cls];
    free[cls] = n->next;
    return n;
  }
  void Refill(std::size_t cls) {
    const std::size_t size = (cls + 1) * kClass;
    const std::size_t count = 256;
    char* block = static_cast<char*>(::operator new(size* count));
    blocks.push_back(block);
    for (std::size_t i = 0; i < count; ++i) {
      auto* n = reinterpret_cast<FreeNode*>(block + i * size);
      n->next = free[cls];
      free[cls] = n;
    }
  }
};

thread_local FramePool pool;

}  // namespace

void* AllocateFrame(std::size_t n) {
  const std::size_t cls = (n + kClass - 1) / kClass - 1;
  if (!kPoolFrames || cls >= kClasses) return ::operator new(n);
  return pool.Take(cls);
}

void FreeFrame(void* p, std::size_t n) {
  const std::size_t cls = (n + kClass - 1) / kClass - 1;
  if (!kPoolFrames || cls >= kClasses) {
    ::operator delete(p);
    return;
  }
  auto* node = static_cast<FreeNode*>(p);
  node->next = pool.free[cls];
  pool.free[cls] = node;
}

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

// 4-ary heap: shallower than binary, and a node's children share a cache
// line or two.
void Simulation::SiftUp(size_t i) {
  const Node e = heap_[i];
  while (i > 0) {
    size_t parent = (i - 1) / 4;
    if (!Before(e, heap_[parent])) break;
    heap_[i] = heap_[parent];
    i = parent;
  }
  heap_[i] = e;
}

void Simulation::PopTop() {
  const Node last = heap_.back();
  heap_.pop_back();
  const size_t n = heap_.size();
  if (n == 0) return;
  size_t i = 0;
  while (true) {
    size_t first = 4 * i + 1;
    if (first >= n) break;
    size_t best = first;
    size_t end = first + 4 < n ? first + 4 : n;
    for (size_t c = first + 1; c < end; ++c) {
      if (Before(heap_[c], heap_[best])) best = c;
    }
    if (!Before(heap_[best], last)) break;
    heap_[i] = heap_[best];
    i = best;
  }
  heap_[i] = last;
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
    // Three sorted sources merge by (time, seq): the heap, the queue for
    // now_ and the earliest timer.
    Time at = kForever;
    uint64_t seq = 0;
    int source = -1;  // 0 heap, 1 queue, 2 timer
    if (!heap_.empty()) {
      at = heap_.front().time;
      seq = payloads_[heap_.front().slot].seq;
      source = 0;
    }
    if (now_head_ < now_queue_.size() &&
        (source < 0 || at > now_ ||
         (at == now_ && seq > now_queue_[now_head_].seq))) {
      at = now_;
      seq = now_queue_[now_head_].seq;
      source = 1;
    }
    if (first_timer_ >= 0) {
      const Timer& t = timers_[first_timer_];
      if (source < 0 || t.at < at || (t.at == at && t.seq < seq)) {
        at = t.at;
        source = 2;
      }
    }
    if (source < 0 || at > until) break;
    if (source == 0) {
      const uint64_t slot = heap_.front().slot;
      e = payloads_[slot];
      free_slots_.push_back(slot);
      PopTop();
    } else if (source == 1) {
      e = now_queue_[now_head_++];
      if (now_head_ == now_queue_.size()) {
        now_queue_.clear();
        now_head_ = 0;
      }
    } else {
      Timer& t = timers_[first_timer_];
      e = {t.seq, t.fn, t.ctx, 0};
      t.at = kForever;
      --timers_set_;
      FindFirstTimer();
    }
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
