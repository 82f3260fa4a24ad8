// The engine's pending set: a monotone radix heap of events ordered by
// (time, seq). Simulation owns one; nothing else should use it.
//
// Why a radix heap: virtual time never goes back, so every new event is at or
// after the last time taken out, and an event need only be sorted as far as
// its distance from that time demands. Bucket i holds the events whose time
// first differs from floor() in bit i - 1; when the front empties, the lowest
// bucket is split by the new floor into lower ones. An event moves at most
// once per bit of its distance, always by a sequential write, so the cost per
// event barely grows with the number pending (a binary or 4-ary heap pays a
// cache miss per level once it outgrows the cache).
//
// Bucket 0 holds the events at floor() itself, as a binary heap on seq: most
// times are distinct, so it usually holds one. Not thread-safe.
#ifndef PERFLAB_SIM_INTERNAL_EVENT_QUEUE_H_
#define PERFLAB_SIM_INTERNAL_EVENT_QUEUE_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <vector>

namespace perflab::sim {

// An event runs fn(ctx, arg) at its time. Coroutine resumption is one such
// callback, so the queue holds only plain data.
using EventFn = void (*)(void* ctx, uint64_t arg);

namespace internal {

struct Event {
  int64_t time;  // virtual ns
  uint64_t seq;  // insertion order: breaks ties in time
  EventFn fn;
  void* ctx;
  uint64_t arg;
};

class EventQueue {
 public:
  static constexpr int64_t kNone = INT64_MAX;

  EventQueue() { std::fill(std::begin(mins_), std::end(mins_), kNone); }

  bool empty() const { return size_ == 0; }
  size_t size() const { return size_; }
  // Every event pushed must be at or after floor().
  int64_t floor() const { return floor_; }

  void Push(const Event& e) {
    ++size_;
    const uint64_t x = static_cast<uint64_t>(e.time ^ floor_);
    if (x == 0) {
      front_.push_back(e);
      std::push_heap(front_.begin(), front_.end(), LaterSeq);
      return;
    }
    const int b = 64 - __builtin_clzll(x);
    buckets_[b].push_back(e);
    if (e.time < mins_[b]) mins_[b] = e.time;
    mask_ |= uint64_t{1} << b;
  }

  // The earliest pending time, or kNone.
  int64_t MinTime() const {
    if (!front_.empty()) return floor_;
    if (mask_ == 0) return kNone;
    return mins_[__builtin_ctzll(mask_)];
  }

  // Makes the events at MinTime() the front, raising floor() to it. Call it
  // only once nothing earlier can be pushed any more.
  void Settle() {
    if (front_.empty() && mask_ != 0) Split();
  }

  // The event with the smallest seq at floor(); after Settle, not empty.
  const Event& Front() const { return front_.front(); }
  void Pop() {
    --size_;
    if (front_.size() > 1) {
      std::pop_heap(front_.begin(), front_.end(), LaterSeq);
    }
    front_.pop_back();
  }

 private:
  static bool LaterSeq(const Event& a, const Event& b) { return a.seq > b.seq; }
  void Split();

  int64_t floor_ = 0;
  size_t size_ = 0;
  uint64_t mask_ = 0;  // bit b set: buckets_[b] is not empty (b >= 1)
  std::vector<Event> front_;
  std::vector<Event> buckets_[64];
  int64_t mins_[64];  // the earliest time in each bucket, or kNone
};

}  // namespace internal
}  // namespace perflab::sim

#endif  // PERFLAB_SIM_INTERNAL_EVENT_QUEUE_H_
