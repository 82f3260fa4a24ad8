#include "sim/resource.h"

namespace perflab::sim {

void Resource::Grant(Time waited) {
  in_use_.Add(sim_->now(), 1);
  ++grants_;
  wait_sum_ += waited;
}

uint32_t Resource::Enqueue(std::coroutine_handle<> h, Time timeout) {
  uint32_t slot;
  if (!free_slots_.empty()) {
    slot = free_slots_.back();
    free_slots_.pop_back();
  } else {
    slot = static_cast<uint32_t>(slots_.size());
    slots_.emplace_back();
  }
  Waiter& w = slots_[slot];
  w.handle = h;
  w.enqueued = sim_->now();
  w.state = State::kWaiting;
  const uint64_t key = (static_cast<uint64_t>(slot) << 32) | w.gen;
  queue_.push_back(key);
  ++queued_;
  waiting_.Set(sim_->now(), queued_);
  if (timeout >= 0)
    sim_->Schedule(sim_->now() + timeout, &OnTimeout, this, key);
  return slot;
}

bool Resource::Collect(uint32_t slot) {
  Waiter& w = slots_[slot];
  const bool granted = w.state == State::kGranted;
  w.state = State::kFree;
  ++w.gen;  // any pending timeout for this slot is now stale
  free_slots_.push_back(slot);
  return granted;
}

void Resource::Release() {
  const Time now = sim_->now();
  while (!queue_.empty()) {
    const uint64_t key = queue_.front();
    queue_.pop_front();
    Waiter& w = slots_[key >> 32];
    if (w.gen != static_cast<uint32_t>(key) || w.state != State::kWaiting)
      continue;
    // Hand the unit straight to the oldest waiter: in_use stays the same.
    w.state = State::kGranted;
    --queued_;
    waiting_.Set(now, queued_);
    ++grants_;
    wait_sum_ += now - w.enqueued;
    sim_->ScheduleResume(now, w.handle);
    return;
  }
  in_use_.Add(now, -1);
}

void Resource::OnTimeout(void* ctx, uint64_t key) {
  auto* r = static_cast<Resource*>(ctx);
  Waiter& w = r->slots_[key >> 32];
  if (w.gen != static_cast<uint32_t>(key) || w.state != State::kWaiting) return;
  const Time now = r->sim_->now();
  w.state = State::kTimedOut;
  --r->queued_;
  r->waiting_.Set(now, r->queued_);
  ++r->timeouts_;
  r->timed_out_wait_sum_ += now - w.enqueued;
  if (r->first_timeout_ < 0) r->first_timeout_ = now;
  w.handle.resume();
}

void Resource::ResetStats() {
  const Time now = sim_->now();
  in_use_.Reset(now);
  waiting_.Reset(now);
  grants_ = timeouts_ = 0;
  wait_sum_ = timed_out_wait_sum_ = 0;
  first_timeout_ = -1;
}

ResourceStats Resource::Stats() const {
  const Time now = sim_->now();
  ResourceStats s;
  s.utilisation =
      capacity_ > 0 ? in_use_.Mean(now) / static_cast<double>(capacity_) : 0;
  s.mean_queue_length = waiting_.Mean(now);
  s.max_queue_length = waiting_.max();
  s.grants = grants_;
  s.timeouts = timeouts_;
  s.mean_wait_s =
      grants_ > 0 ? static_cast<double>(wait_sum_) / grants_ / kSec : 0;
  s.timed_out_wait_s =
      timeouts_ > 0
          ? static_cast<double>(timed_out_wait_sum_) / timeouts_ / kSec
          : 0;
  s.first_timeout = first_timeout_;
  return s;
}

}  // namespace perflab::sim
