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
  queue_.push_back({nullptr, key});
  ++queued_;
  waiting_.Set(sim_->now(), queued_);
  if (timeout >= 0) {
    const Time at = sim_->now() + timeout;
    const uint64_t seq = sim_->TakeSeq();
    if (deadlines_.empty() || at >= deadlines_.back().at) {
      deadlines_.push_back({at, seq, key});
      if (!armed_) Arm();
    } else {
      sim_->ScheduleAs(at, seq, &OnTimeout, this, key);
    }
  }
  return slot;
}

// One event, at the front deadline's own (time, order): the front's wait
// times out exactly when its own event would have fired.
void Resource::Arm() {
  armed_ = true;
  armed_seq_ = deadlines_.front().seq;
  sim_->ScheduleAs(deadlines_.front().at, armed_seq_, &OnDeadline, this,
                   armed_seq_);
}

void Resource::OnDeadline(void* ctx, uint64_t seq) {
  auto* r = static_cast<Resource*>(ctx);
  if (!r->armed_ || seq != r->armed_seq_) return;
  r->armed_ = false;
  if (!r->deadlines_.empty() && r->deadlines_.front().seq == seq) {
    const uint64_t key = r->deadlines_.front().key;
    r->deadlines_.pop_front();
    r->Expire(key);  // may enqueue, arm, or prune the front
  }
  if (!r->armed_ && !r->deadlines_.empty()) r->Arm();
}

bool Resource::Collect(uint32_t slot) {
  Waiter& w = slots_[slot];
  const bool granted = w.state == State::kGranted;
  w.state = State::kFree;
  ++w.gen;  // any pending timeout for this slot is now stale
  free_slots_.push_back(slot);
  // Drop deadlines of waits that are over (grants come in FIFO order, so
  // this keeps the list about as long as the queue).
  while (!deadlines_.empty()) {
    const uint64_t key = deadlines_.front().key;
    const Waiter& f = slots_[key >> 32];
    if (f.gen == static_cast<uint32_t>(key) && f.state == State::kWaiting)
      break;
    deadlines_.pop_front();
  }
  return granted;
}

bool Resource::HandOverTimed(uint64_t key) {
  Waiter& w = slots_[key >> 32];
  if (w.gen != static_cast<uint32_t>(key) || w.state != State::kWaiting)
    return false;
  w.state = State::kGranted;
  HandOver(w.handle, w.enqueued);
  return true;
}

void Resource::OnTimeout(void* ctx, uint64_t key) {
  static_cast<Resource*>(ctx)->Expire(key);
}

void Resource::Expire(uint64_t key) {
  Waiter& w = slots_[key >> 32];
  if (w.gen != static_cast<uint32_t>(key) || w.state != State::kWaiting) return;
  const Time now = sim_->now();
  w.state = State::kTimedOut;
  --queued_;
  waiting_.Set(now, queued_);
  ++timeouts_;
  timed_out_wait_sum_ += now - w.enqueued;
  if (first_timeout_ < 0) first_timeout_ = now;
  sim_->ResumeNested(w.handle);  // OnDeadline may re-arm after it
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
