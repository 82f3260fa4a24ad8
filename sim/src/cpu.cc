#include "sim/cpu.h"

#include <algorithm>
#include <cmath>

namespace perflab::sim {

double Cpu::Rate() const {
  const int64_t n = static_cast<int64_t>(jobs_.size());
  if (n <= cores_) return 1.0;
  return static_cast<double>(cores_) / static_cast<double>(n);
}

void Cpu::Advance() {
  const Time now = sim_->now();
  const Time from = std::max(last_, frozen_until_);  // no progress while frozen
  if (now > from) vtime_ += static_cast<double>(now - from) * Rate();
  last_ = now;
}

void Cpu::Freeze(Time duration) {
  Advance();
  frozen_until_ = std::max(frozen_until_, sim_->now() + duration);
  Reschedule();
}

void Cpu::Reschedule() {
  busy_.Set(sim_->now(), std::min<int64_t>(runnable(), cores_));
  ++gen_;
  if (jobs_.empty()) return;
  // Round up so the job's tag has surely been reached when the tick fires.
  const double dt = (jobs_.top().tag - vtime_) / Rate();
  const Time start = std::max(sim_->now(), frozen_until_);
  const Time at = start + std::max<Time>(0, static_cast<Time>(std::ceil(dt)));
  sim_->Schedule(at, &OnTick, this, gen_);
}

void Cpu::Add(std::coroutine_handle<> h, Time work) {
  Advance();
  jobs_.push({vtime_ + static_cast<double>(work), seq_++, h});
  Reschedule();
}

void Cpu::OnTick(void* ctx, uint64_t gen) {
  auto* cpu = static_cast<Cpu*>(ctx);
  if (gen != cpu->gen_) return;  // superseded by a later arrival or departure
  cpu->Advance();
  const Time now = cpu->sim_->now();
  // Tolerance absorbs floating-point rounding of the tag arithmetic.
  while (!cpu->jobs_.empty() && cpu->jobs_.top().tag <= cpu->vtime_ + 1e-3) {
    cpu->sim_->ScheduleResume(now, cpu->jobs_.top().handle);
    cpu->jobs_.pop();
  }
  cpu->Reschedule();
}

Time Freezes::Finish(Time start, Time work) const {
  Time t = start;
  Time left = work;
  for (const Span& s : spans_) {
    if (s.end <= t) continue;
    if (s.start > t) {
      const Time run = s.start - t;
      if (run >= left) return t + left;
      left -= run;
    }
    t = std::max(t, s.end);
  }
  return t + left;
}

Time Freezes::Thaw(Time t) const {
  for (const Span& s : spans_) {
    if (s.start <= t && t < s.end) return s.end;
  }
  return t;
}

}  // namespace perflab::sim
