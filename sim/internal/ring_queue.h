// RingQueue<T>: a FIFO in one power-of-two array, for a Resource's waiters
// and deadlines. std::deque costs a node check on every push and pop and a
// node allocation every few hundred entries; a queue that a pool fills and
// drains around the same length reuses the same slots here, and push and
// pop are an index and a mask. Grows by doubling, never shrinks.
// T must be trivially copyable (entries are moved with plain assignment).
// Not thread-safe.
#ifndef PERFLAB_SIM_INTERNAL_RING_QUEUE_H_
#define PERFLAB_SIM_INTERNAL_RING_QUEUE_H_

#include <cstddef>
#include <memory>
#include <type_traits>

namespace perflab::sim::internal {

template <typename T>
class RingQueue {
  static_assert(std::is_trivially_copyable_v<T>);

 public:
  bool empty() const { return head_ == tail_; }
  size_t size() const { return tail_ - head_; }
  size_t capacity() const { return mask_ + 1; }

  // Oldest and newest; the queue must not be empty.
  T& front() { return data_[head_ & mask_]; }
  const T& front() const { return data_[head_ & mask_]; }
  const T& back() const { return data_[(tail_ - 1) & mask_]; }

  void push_back(const T& v) {
    if (size() == capacity()) [[unlikely]]
      Grow();
    data_[tail_++ & mask_] = v;
  }
  void pop_front() { ++head_; }

 private:
  // head_ and tail_ count pushes and pops since the start; only their
  // difference and their low bits matter, so wrapping is harmless.
  void Grow() {
    const size_t n = size();
    const size_t cap = data_ ? 2 * capacity() : 8;
    auto bigger = std::make_unique_for_overwrite<T[]>(cap);
    for (size_t i = 0; i < n; ++i) bigger[i] = data_[(head_ + i) & mask_];
    data_ = std::move(bigger);
    mask_ = cap - 1;
    head_ = 0;
    tail_ = n;
  }

  std::unique_ptr<T[]> data_;
  size_t mask_ = static_cast<size_t>(-1);  // capacity() is 0 before Grow
  size_t head_ = 0;
  size_t tail_ = 0;
};

}  // namespace perflab::sim::internal

#endif  // PERFLAB_SIM_INTERNAL_RING_QUEUE_H_
