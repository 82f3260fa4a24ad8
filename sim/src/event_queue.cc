#include "sim/internal/event_queue.h"

namespace perflab::sim::internal {

// Every pending event is at or after floor() (the last time taken out), so
// the array's events can enter the radix heap as they are.
void EventQueue::Spill() {
  few_cap_ = 0;
  for (size_t i = size_; i > 0; --i) PushRadix(few_[i - 1]);
}

void EventQueue::Gather() {
  size_t n = 0;
  for (const Event& e : front_) few_[n++] = e;
  front_.clear();
  while (mask_ != 0) {
    const int b = __builtin_ctzll(mask_);
    for (const Event& e : buckets_[b]) few_[n++] = e;
    buckets_[b].clear();
    mins_[b] = kNone;
    mask_ &= mask_ - 1;
  }
  std::sort(few_, few_ + n,
            [](const Event& a, const Event& b) { return Earlier(b, a); });
  few_cap_ = kFew;
}

// The lowest bucket holds the earliest time; it becomes the floor, and each
// of the bucket's events now differs from it in a lower bit (or not at all).
void EventQueue::Split() {
  const int from = __builtin_ctzll(mask_);
  floor_ = mins_[from];
  std::vector<Event>& src = buckets_[from];
  if (src.size() == 1) {  // common when few are pending: nothing to split
    front_.push_back(src.front());
  } else {
    for (const Event& e : src) {
      const uint64_t x = static_cast<uint64_t>(e.time ^ floor_);
      if (x == 0) {
        front_.push_back(e);
        continue;
      }
      const int b = 64 - __builtin_clzll(x);
      buckets_[b].push_back(e);
      if (e.time < mins_[b]) mins_[b] = e.time;
      mask_ |= uint64_t{1} << b;
    }
  }
  src.clear();
  mins_[from] = kNone;
  mask_ &= ~(uint64_t{1} << from);
  if (front_.size() > 1) {
    std::make_heap(front_.begin(), front_.end(), LaterSeq);
  }
}

}  // namespace perflab::sim::internal
