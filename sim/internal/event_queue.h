// The engine's pending set: events ordered by (time, seq). Simulation owns
// one; nothing else should use it.
//
// Two shapes, one order. While few events are pending (an M/M/1 keeps two
// or three) they sit in a small array sorted latest first, so the next event
// is the last element: a push is a short insertion, a pop a decrement, and
// nothing is allocated. When more than kFew are pending the queue becomes a
// monotone radix heap, and goes back to the array once no more than
// kFew / 4 are left (the gap keeps a set that hovers near kFew from paying
// a conversion per event).
//
// Why a radix heap for many: virtual time never goes back, so every new
// event is at or after the last time taken out, and an event need only be
// sorted as far as its distance from that time demands. Bucket i holds the
// events whose time first differs from floor() in bit i - 1; when the front
// empties, the lowest bucket is split by the new floor into lower ones. An
// event moves at most once per bit of its distance, always by a sequential
// write, so the cost per event barely grows with the number pending (a
// binary or 4-ary heap pays a cache miss per level once it outgrows the
// cache). Bucket 0 holds the events at floor() itself, as a binary heap on
// seq: most times are distinct, so it usually holds one. Not thread-safe.
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
  // The most events the sorted array holds; past it, the radix heap.
  static constexpr size_t kFew = 16;

  EventQueue() { std::fill(std::begin(mins_), std::end(mins_), kNone); }

  bool empty() const { return size_ == 0; }
  size_t size() const { return size_; }
  // Every event pushed must be at or after floor().
  int64_t floor() const { return floor_; }

  void Push(const Event& e) {
    if (!PushFew(e)) PushMany(e);
  }
  // The common case, inline: false (and nothing done) if the array is full
  // or not in use.
  bool PushFew(const Event& e) {
    if (size_ >= few_cap_) return false;
    size_t i = size_++;
    for (; i > 0 && Earlier(few_[i - 1], e); --i) few_[i] = few_[i - 1];
    few_[i] = e;
    return true;
  }
  // Push when PushFew refused: turns the array into the radix heap first.
  void PushMany(const Event& e) {
    if (few_mode()) [[unlikely]]
      Spill();
    ++size_;
    PushRadix(e);
  }
  // While few are pending the engine need not count them after each event.
  bool few_mode() const { return few_cap_ != 0; }

  // The earliest pending time, or kNone.
  int64_t MinTime() const {
    if (few_mode()) return size_ > 0 ? few_[size_ - 1].time : kNone;
    if (!front_.empty()) return floor_;
    if (mask_ == 0) return kNone;
    return mins_[__builtin_ctzll(mask_)];
  }

  // For t <= MinTime(): the smallest seq among the events at t, UINT64_MAX
  // if there are none, or 0 if the radix heap has not sorted them yet (a
  // bound below every seq, for a caller asking whether one comes first).
  uint64_t FirstSeqAt(int64_t t) const {
    if (few_mode()) {
      return size_ > 0 && few_[size_ - 1].time == t ? few_[size_ - 1].seq
                                                    : UINT64_MAX;
    }
    if (MinTime() != t) return UINT64_MAX;
    return front_.empty() ? 0 : front_.front().seq;
  }

  // Makes the events at MinTime() the front, raising floor() to it. Call it
  // only once nothing earlier can be pushed any more.
  void Settle() {
    if (few_mode()) {
      if (size_ > 0) floor_ = few_[size_ - 1].time;
    } else if (front_.empty() && mask_ != 0) {
      Split();
    }
  }

  // The event with the smallest seq at floor(); after Settle, not empty.
  const Event& Front() const {
    return few_mode() ? few_[size_ - 1] : front_.front();
  }
  void Pop() {
    if (few_mode()) {
      --size_;
      return;
    }
    PopMany();
  }

  // The engine's loop while only the array is in use (few_mode()) and no
  // timer is set: if the earliest event is at or before `until`, copies it
  // to *out (all but its seq), takes it out and returns true.
  bool PopFew(int64_t until, Event* out) {
    if (size_ == 0) return false;
    const Event& e = few_[size_ - 1];
    const int64_t t = e.time;
    if (t > until) return false;
    floor_ = t;
    out->time = t;
    out->fn = e.fn;
    out->ctx = e.ctx;
    out->arg = e.arg;
    --size_;
    return true;
  }

  // The fast path of the engine's loop: if the earliest event is at or
  // before `until` and comes before (at, seq), copies it to *out, takes it
  // out and returns true.
  bool PopBefore(int64_t at, uint64_t seq, int64_t until, Event* out) {
    if (few_mode()) {
      if (size_ == 0) return false;
      const Event& e = few_[size_ - 1];
      const int64_t t = e.time;
      // Ties with the timer are rare: one comparison each in the common case.
      if (t >= at && (t > at || e.seq > seq)) return false;
      if (t > until) return false;
      floor_ = t;
      out->time = t;
      out->fn = e.fn;
      out->ctx = e.ctx;
      out->arg = e.arg;
      --size_;
      return true;
    }
    const int64_t t = MinTime();
    if (size_ == 0 || t > until || t > at) return false;
    Settle();
    if (t == at && front_.front().seq > seq) return false;
    *out = front_.front();
    PopMany();
    return true;
  }

 private:
  static bool LaterSeq(const Event& a, const Event& b) { return a.seq > b.seq; }
  static bool Earlier(const Event& a, const Event& b) {
    return a.time < b.time || (a.time == b.time && a.seq < b.seq);
  }
  void PushRadix(const Event& e) {
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
  void PopMany() {
    --size_;
    if (front_.size() > 1) {
      std::pop_heap(front_.begin(), front_.end(), LaterSeq);
    }
    front_.pop_back();
    if (size_ <= kFew / 4) [[unlikely]]
      Gather();
  }
  void Split();
  void Spill();   // the array into the radix heap
  void Gather();  // the radix heap, nearly empty, back into the array

  // kFew while the array is in use, 0 once the radix heap is: PushFew's
  // one comparison refuses both a full array and the heap's mode.
  size_t few_cap_ = kFew;
  int64_t floor_ = 0;
  size_t size_ = 0;
  Event few_[kFew];    // latest first: the next event is few_[size_ - 1]
  uint64_t mask_ = 0;  // bit b set: buckets_[b] is not empty (b >= 1)
  std::vector<Event> front_;
  std::vector<Event> buckets_[64];
  int64_t mins_[64];  // the earliest time in each bucket, or kNone
};

}  // namespace internal
}  // namespace perflab::sim

#endif  // PERFLAB_SIM_INTERNAL_EVENT_QUEUE_H_
