#include "sim/cpu.h"

#include <algorithm>

namespace perflab::sim {

Cpu::Cpu(Simulation& sim, int64_t cores, const CpuScheduling& scheduling)
    : sim_(&sim),
      cores_(cores),
      timer_(sim.AddTimer(scheduling.discipline == CpuDiscipline::kSliced
                              ? &OnSliceTick
                              : &OnTick,
                          this)) {
  if (scheduling.discipline == CpuDiscipline::kSliced) {
    sliced_ = std::make_unique<Sliced>();
    sliced_->scheduling = scheduling;
    sliced_->default_refill_ns =
        RefillNs(scheduling.refill, scheduling.working_set_bytes);
    sliced_->cores.resize(static_cast<size_t>(std::max<int64_t>(cores, 1)));
    sliced_->active.resize((sliced_->cores.size() + 63) / 64);
    sliced_->held_map.resize(sliced_->active.size());
  }
}

Cpu::~Cpu() { sim_->ClearTimer(timer_); }

int64_t Cpu::switches() const { return sliced_ ? sliced_->switches : 0; }
int64_t Cpu::slices() const { return sliced_ ? sliced_->slices : 0; }
Time Cpu::run_queue_wait_ns() const { return sliced_ ? sliced_->waited : 0; }
int64_t Cpu::scheduler_steps() const { return sliced_ ? sliced_->steps : 0; }

// Inline into Add, its one caller: a call's saves and restores cost about
// as much as a push onto a heap of a few jobs.
[[gnu::always_inline]] inline void Cpu::JobHeap::push(const Job& job) {
  Job to_heap = job;
  if (!has_first_) {
    if (jobs_.empty() || jobs_.front() > job) {
      first_ = job;
      has_first_ = true;
      return;
    }
  } else if (first_ > job) {
    to_heap = first_;
    first_ = job;
  }
  HeapPush(to_heap);
}

void Cpu::JobHeap::pop() {
  if (has_first_) {
    has_first_ = false;
    return;
  }
  HeapPop();
}

[[gnu::always_inline]] inline void Cpu::JobHeap::SiftUp(Job* heap, size_t hole,
                                                        const Job& job) {
  while (hole > 0) {
    const size_t parent = (hole - 1) / 2;
    if (!(heap[parent] > job)) break;
    heap[hole] = heap[parent];
    hole = parent;
  }
  heap[hole] = job;
}

[[gnu::always_inline]] inline void Cpu::JobHeap::HeapPush(const Job& job) {
  jobs_.push_back(job);
  SiftUp(jobs_.data(), jobs_.size() - 1, job);
}

// Bottom-up (Floyd): the hole left at the top goes down to a leaf along
// the smaller children, one branch-free choice a level (Job::key), and the last
// job then climbs from there, mostly not at all (it came from a leaf). The
// top-down form's test at each level, whether the last job fits there,
// goes either way at random in a CPU's heap of a few dozen jobs, and its
// mispredictions were the most of a saturated CPU's pops.
void Cpu::JobHeap::HeapPop() {
  const Job last = jobs_.back();
  jobs_.pop_back();
  const size_t n = jobs_.size();
  if (n == 0) return;
  Job* heap = jobs_.data();
  size_t hole = 0;
  for (size_t child = 1; child < n; child = 2 * hole + 1) {
    if (child + 1 < n) {
      child += heap[child] > heap[child + 1] ? 1 : 0;
    }
    heap[hole] = heap[child];
    hole = child;
  }
  SiftUp(heap, hole, last);
}

void Cpu::GrowRates() {
  const size_t want = static_cast<size_t>(ps_runnable()) + 2;
  if (rates_.empty()) rates_.push_back(1.0);  // n = 0, never read
  while (rates_.size() < want) {
    const auto n = static_cast<int64_t>(rates_.size());
    rates_.push_back(n <= cores_ ? 1.0
                                 : static_cast<double>(cores_) /
                                       static_cast<double>(n));
  }
}

std::string_view CpuUseName(CpuUse use) {
  switch (use) {
    case CpuUse::kDatabase:
      return "database";
    case CpuUse::kHttp:
      return "http";
    case CpuUse::kSerialisation:
      return "serialisation";
    case CpuUse::kGc:
      return "gc";
    case CpuUse::kOther:
      return "other";
    case CpuUse::kScheduling:
      return "scheduling";
  }
  return "other";
}

[[gnu::always_inline]] inline void Cpu::Progress(Time dt, int64_t n) {
  const double progress = JobProgress(dt, n);
  vtime_ += progress;
  used_ += static_cast<__int128>(dt) * std::min(n, cores_);
  // A use with no runnable job adds +0.0, which leaves its sum (never
  // -0.0) as it is, so every use adds without a test: no branch to
  // mispredict as jobs of a use come and go. Unrolled: the loop's own
  // counting cost as much as its body.
#pragma GCC unroll 5
  for (int u = 0; u < kCpuUses; ++u) {
    used_by_use_[u] += progress * runnable_by_use_[u];
  }
}

void Cpu::AdvanceWith(int64_t n) {
  const Time now = sim_->now();
  const Time from = std::max(last_, frozen_until_);  // no progress while frozen
  if (now > from) Progress(now - from, n);
  last_ = now;
}

void Cpu::Charge(CpuUse use, Time cpu) {
  used_ += cpu;
  used_by_use_[static_cast<int>(use)] += static_cast<double>(cpu);
}

void Cpu::ResetStats() {
  if (sliced_) {
    SlicedAdvance();
    sliced_->switches = 0;
    sliced_->slices = 0;
    sliced_->waited = 0;
  } else {
    Advance();
  }
  used_ = 0;
  used_by_use_.fill(0);
  reset_at_ = sim_->now();
}

double Cpu::Elapsed() const {
  return static_cast<double>(sim_->now() - reset_at_);
}

// Both include the progress since the last event: Advance() is not const, so
// the open interval is added here the same way.
double Cpu::CoresUsed() const {
  const Time now = sim_->now();
  if (sliced_) {
    if (now <= reset_at_) return static_cast<double>(sliced_->busy);
    __int128 used;
    std::array<double, kAllCpuUses> by_use;
    SlicedTotals(used, by_use);
    return static_cast<double>(used) / Elapsed();
  }
  if (now <= reset_at_)
    return static_cast<double>(std::min(ps_runnable(), cores_));
  const Time from = std::max(last_, frozen_until_);
  __int128 used = used_;
  if (now > from)
    used += static_cast<__int128>(now - from) * std::min(ps_runnable(), cores_);
  return static_cast<double>(used) / Elapsed();
}

double Cpu::CoresUsedFor(CpuUse use) const {
  const Time now = sim_->now();
  if (now <= reset_at_) return 0;
  if (sliced_) {
    __int128 used;
    std::array<double, kAllCpuUses> by_use;
    SlicedTotals(used, by_use);
    return by_use[static_cast<int>(use)] / Elapsed();
  }
  const Time from = std::max(last_, frozen_until_);
  double used = used_by_use_[static_cast<int>(use)];
  if (now > from) {
    used += static_cast<double>(now - from) * Rate() *
            runnable_by_use_[static_cast<int>(use)];
  }
  return used / Elapsed();
}

void Cpu::Freeze(Time duration) {
  if (sliced_) {
    SlicedAdvance();
    frozen_until_ = std::max(frozen_until_, sim_->now() + duration);
    SlicedReschedule();
    return;
  }
  Advance();
  frozen_until_ = std::max(frozen_until_, sim_->now() + duration);
  Reschedule();
}

// Every arrival moves the next finish, so the tick moves on nearly every
// event: one engine timer, set to the finish as last computed, in the place
// (TakeSeq) a fresh event scheduled now would take.
void Cpu::Reschedule() { RescheduleAs(sim_->TakeSeq()); }

void Cpu::RescheduleAs(uint64_t seq) {
  ++reschedules_;
  if (jobs_.empty()) {
    sim_->ClearTimer(timer_);
    return;
  }
  // The virtual work left, in real ns at the current rate. Below saturation
  // the rate is 1.0 and a division by it is exact, so it is skipped.
  double left = jobs_.top().tag - vtime_;
  const int64_t n = ps_runnable();
  if (n > cores_) left /= RateWith(n);
  // Rounded up, so that the job's tag has surely been reached at the tick.
  const Time wait = CeilNs(left);
  const Time start = std::max(sim_->now(), frozen_until_);
  sim_->SetTimer(timer_, SaturatingAdd(start, wait), seq);
}

void Cpu::Add(std::coroutine_handle<> h, Time work, CpuUse use) {
  Advance();
  runnable_by_use_[static_cast<int>(use)] += 1;
  jobs_.push({vtime_ + static_cast<double>(work), seq_++, use, h});
  if (static_cast<size_t>(ps_runnable()) + 1 >= rates_.size()) [[unlikely]]
    GrowRates();
  Reschedule();
}

// Each finished job resumes now, in finishing order. The last one's
// position is reserved where it was found, before the next finish's, and it
// resumes after that: at once if nothing else is due now (ContinueAt), which
// is where its event would have run. Most ticks finish one job, so most
// finishes cost no event of their own. The next finish is set after that
// resumption, in the position reserved for it before: a job that resumes
// mostly hands the CPU its next piece of work at once, whose Add sets the
// timer again, and one setting then does for two. Nothing the resumed job
// can see depends on the timer meanwhile, as it is never due now: every job
// due by now has just been popped. (The engine's pending count is one lower
// meanwhile; setting the timer counts it again against the budget.)
void Cpu::OnTick(void* ctx, uint64_t) {
  auto* cpu = static_cast<Cpu*>(ctx);
  Simulation& sim = *cpu->sim_;
  cpu->Advance();
  const Time now = sim.now();
  std::coroutine_handle<> last = nullptr;
  uint64_t last_seq = 0;
  // Tolerance absorbs floating-point rounding of the tag arithmetic.
  while (!cpu->jobs_.empty() && cpu->jobs_.top().tag <= cpu->vtime_ + 1e-3) {
    cpu->runnable_by_use_[static_cast<int>(cpu->jobs_.top().use)] -= 1;
    if (last) sim.ScheduleResumeAs(now, last_seq, last);
    last = cpu->jobs_.top().handle;
    last_seq = sim.TakeSeq();
    cpu->jobs_.pop();
  }
  const uint64_t timer_seq = sim.TakeSeq();
  if (last && sim.ContinueAt(last_seq)) {
    // Saved and given back: a Run nested in the resumed job has ticks too.
    const TickResume outer = cpu->tick_;
    cpu->tick_ = {cpu->finish_now_, cpu->reschedules_, timer_seq};
    last.resume();
    const TickResume mine = cpu->tick_;
    cpu->tick_ = outer;
    if (cpu->reschedules_ == mine.before) cpu->RescheduleAs(mine.seq);
    return;
  }
  cpu->RescheduleAs(timer_seq);
  if (last) sim.ScheduleResumeAs(now, last_seq, last);
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
