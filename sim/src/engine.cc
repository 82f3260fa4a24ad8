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

absl::Status Simulation::Run(Time until) {
  stopped_ = false;
  const int64_t start_events = events_;
  while (!stopped_) {
    Payload e;
    // The two sorted sequences merge by (time, seq): the heap's top goes
    // first only when it is due before now_'s queued event.
    if (now_head_ < now_queue_.size() && now_ <= until &&
        (heap_.empty() || heap_.front().time > now_ ||
         payloads_[heap_.front().slot].seq > now_queue_[now_head_].seq)) {
      e = now_queue_[now_head_++];
      if (now_head_ == now_queue_.size()) {
        now_queue_.clear();
        now_head_ = 0;
      }
    } else {
      if (heap_.empty() || heap_.front().time > until) break;
      const Node top = heap_.front();
      e = payloads_[top.slot];
      free_slots_.push_back(top.slot);
      PopTop();
      now_ = top.time;
    }
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
