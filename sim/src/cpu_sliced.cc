// The time-sliced discipline of sim::Cpu, and the scheduling options.
//
// Each core runs one job in segments: the dispatch overhead (switch plus
// refill, only when the core last ran another job), then a slice of at most a
// quantum of the job's work. All of it is integer nanoseconds, so the CPU
// used is exact: the jobs' work plus the overheads, nothing rounded.
#include <algorithm>
#include <bit>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "sim/cpu.h"

namespace perflab::sim {

absl::StatusOr<CpuDiscipline> ParseCpuDiscipline(std::string_view name) {
  if (name == "ps") return CpuDiscipline::kProcessorSharing;
  if (name == "sliced") return CpuDiscipline::kSliced;
  return absl::InvalidArgumentError(
      absl::StrCat("cpu discipline: unknown value '", std::string(name),
                   "'; accepted: ps, sliced"));
}

std::string_view CpuDisciplineName(CpuDiscipline discipline) {
  return discipline == CpuDiscipline::kSliced ? "sliced" : "ps";
}

namespace {

// absl's StrCat takes std::string, not std::string_view, in this build.
absl::Status Invalid(const std::string& field, int64_t value,
                     const std::string& accepted) {
  return absl::InvalidArgumentError(absl::StrCat(
      "cpu scheduling: ", field, " = ", value, "; accepted: ", accepted));
}

absl::Status ValidateRefill(const std::vector<RefillPoint>& curve) {
  for (size_t i = 0; i < curve.size(); ++i) {
    const std::string at = absl::StrCat("refill[", i, "]");
    if (curve[i].working_set_bytes < 0) {
      return Invalid(at + ".working_set_bytes", curve[i].working_set_bytes,
                     ">= 0");
    }
    if (i > 0 && curve[i].working_set_bytes <= curve[i - 1].working_set_bytes) {
      return Invalid(at + ".working_set_bytes", curve[i].working_set_bytes,
                     absl::StrCat("> the previous point's ",
                                  curve[i - 1].working_set_bytes,
                                  " (strictly ascending)"));
    }
    if (curve[i].refill_ns < 0) {
      return Invalid(at + ".refill_ns", curve[i].refill_ns, ">= 0");
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ValidateCpuScheduling(const CpuScheduling& s) {
  if (s.quantum_ns <= 0) return Invalid("quantum_ns", s.quantum_ns, "> 0");
  if (s.switch_ns < 0) return Invalid("switch_ns", s.switch_ns, ">= 0");
  if (absl::Status st = ValidateRefill(s.refill); !st.ok()) return st;
  if (s.working_set_bytes < 0) {
    return Invalid("working_set_bytes", s.working_set_bytes, ">= 0");
  }
  if (!s.refill.empty() &&
      (s.working_set_bytes < s.refill.front().working_set_bytes ||
       s.working_set_bytes > s.refill.back().working_set_bytes)) {
    return Invalid("working_set_bytes", s.working_set_bytes,
                   absl::StrCat("within the refill curve's range [",
                                s.refill.front().working_set_bytes, ", ",
                                s.refill.back().working_set_bytes, "]"));
  }
  return absl::OkStatus();
}

Time RefillNs(const std::vector<RefillPoint>& curve,
              int64_t working_set_bytes) {
  if (curve.empty()) return 0;
  if (working_set_bytes <= curve.front().working_set_bytes) {
    return curve.front().refill_ns;
  }
  if (working_set_bytes >= curve.back().working_set_bytes) {
    return curve.back().refill_ns;
  }
  const auto hi =
      std::upper_bound(curve.begin(), curve.end(), working_set_bytes,
                       [](int64_t ws, const RefillPoint& p) {
                         return ws < p.working_set_bytes;
                       });
  const auto lo = hi - 1;
  // Exact rational interpolation, rounded to the nearest ns: long double
  // carries the 64-bit products whole.
  const long double f =
      static_cast<long double>(working_set_bytes - lo->working_set_bytes) /
      static_cast<long double>(hi->working_set_bytes - lo->working_set_bytes);
  const long double v =
      static_cast<long double>(lo->refill_ns) +
      f * static_cast<long double>(hi->refill_ns - lo->refill_ns);
  return static_cast<Time>(v + 0.5L);
}

Time Cpu::SliceEnd(const Core& c) const {
  return std::max(c.from, frozen_until_) + c.overhead_left + c.slice_left;
}

// Progress since c.from, overhead first, then the job's work; nothing
// progresses while frozen.
void Cpu::Credit(Core& c, Time now) {
  const Time start = std::max(c.from, frozen_until_);
  c.from = now;
  if (!c.busy || now <= start) return;
  const Time p = now - start;
  const Time o = std::min(p, c.overhead_left);
  const Time r = p - o;
  c.overhead_left -= o;
  c.slice_left -= r;
  c.quantum_left -= r;
  c.job.left -= r;
  used_ += p;
  used_by_use_[static_cast<int>(CpuUse::kScheduling)] += static_cast<double>(o);
  used_by_use_[static_cast<int>(c.job.use)] += static_cast<double>(r);
}

namespace {

// Calls visit(i) for each core i of `map` (Sliced::active or held_map), in
// core order, and returns the walk's steps: one per word of the map read, one
// per core visited. Each word is read once and its bits taken in turn from
// that copy, so visit(i) may change core i's own bit, and no other.
template <typename Visit>
int64_t ForEachCore(const std::vector<uint64_t>& map, Visit&& visit) {
  const size_t words = map.size();
  int64_t steps = static_cast<int64_t>(words);
  for (size_t w = 0; w < words; ++w) {
    for (uint64_t bits = map[w]; bits != 0; bits &= bits - 1) {
      ++steps;
      visit(w * 64 + static_cast<size_t>(std::countr_zero(bits)));
    }
  }
  return steps;
}

}  // namespace

// Inline: a dispatch or a slice's end calls it, and the call cost as much.
[[gnu::always_inline]] inline void Cpu::Track(const Core& c) {
  Sliced& s = *sliced_;
  const auto i = static_cast<size_t>(&c - s.cores.data());
  const uint64_t bit = uint64_t{1} << (i % 64);
  if (c.busy || c.held) {
    s.active[i / 64] |= bit;
  } else {
    s.active[i / 64] &= ~bit;
  }
}

void Cpu::SetHeld(Core& c, bool held) {
  Sliced& s = *sliced_;
  const auto i = static_cast<size_t>(&c - s.cores.data());
  const uint64_t bit = uint64_t{1} << (i % 64);
  c.held = held;
  if (held) {
    ++s.held;
    s.held_map[i / 64] |= bit;
  } else {
    --s.held;
    s.held_map[i / 64] &= ~bit;
  }
}

// An idle core's progress is nothing, and its `from` is set again when a job
// is put on it: only the cores in use are credited.
void Cpu::SlicedAdvance() {
  Sliced& s = *sliced_;
  const Time now = sim_->now();
  s.steps += ForEachCore(s.active, [&](size_t i) { Credit(s.cores[i], now); });
}

// What SlicedAdvance() would credit, without changing anything.
void Cpu::SlicedTotals(__int128& used,
                       std::array<double, kAllCpuUses>& by_use) const {
  used = used_;
  by_use = used_by_use_;
  const Time now = sim_->now();
  Sliced& s = *sliced_;
  s.steps += ForEachCore(s.active, [&](size_t i) {
    const Core& c = s.cores[i];
    const Time start = std::max(c.from, frozen_until_);
    if (!c.busy || now <= start) return;
    const Time p = now - start;
    const Time o = std::min(p, c.overhead_left);
    used += p;
    by_use[static_cast<int>(CpuUse::kScheduling)] += static_cast<double>(o);
    by_use[static_cast<int>(c.job.use)] += static_cast<double>(p - o);
  });
}

namespace {

// Keys of jobs without a thread have the top bit set (AddSliced).
bool IsThread(uint64_t key) { return (key >> 63) == 0; }

}  // namespace

void Cpu::Enqueue(SlicedJob job) {
  job.queued_at = sim_->now();
  sliced_->queue.push_back(job);
}

Cpu::SlicedJob Cpu::PopHead() {
  Sliced& s = *sliced_;
  const SlicedJob job = s.queue.front();
  s.queue.pop_front();
  s.waited += sim_->now() - job.queued_at;
  return job;
}

// Every caller has released a held core first (SetHeld), so that the count
// and map of held cores stay those of the cores.
void Cpu::Dispatch(Core& c, const SlicedJob& job) {
  if (!c.busy) ++sliced_->busy;
  c.busy = true;
  c.job = job;
  c.from = sim_->now();
  c.overhead_left = 0;
  ++sliced_->slices;
  if (c.last_key != job.key) {
    c.overhead_left = sliced_->scheduling.switch_ns + job.refill_ns;
    ++sliced_->switches;
    c.last_key = job.key;
  }
  c.quantum_left = sliced_->scheduling.quantum_ns;
  c.slice_left = std::min(c.quantum_left, job.left);
  Track(c);
}

// The thread's next job on the core it held: no switch, no new slice, the
// rest of its quantum; with the quantum spent and others waiting, it goes
// to the tail like a preempted one.
void Cpu::Continue(Core& c, const SlicedJob& job) {
  Sliced& s = *sliced_;
  SetHeld(c, false);
  if (c.quantum_left <= 0) {
    if (!s.queue.empty()) {
      Enqueue(job);
      Dispatch(c, PopHead());
      return;
    }
    c.quantum_left = s.scheduling.quantum_ns;
  }
  ++s.busy;
  c.busy = true;
  c.job = job;
  c.from = sim_->now();
  c.overhead_left = 0;
  c.slice_left = std::min(c.quantum_left, job.left);
}

// Now while a core is held: its thread's next job of this instant, or the
// queue's head at the tick after. No busy core's slice ends before now when
// this runs (the timer is never later than the earliest end), so a hold's
// tick comes first whatever the cores' order.
[[gnu::always_inline]] inline void Cpu::SetSliceTimer() {
  Sliced& s = *sliced_;
  const Time next = s.held > 0 ? sim_->now() : s.next_end;
  if (next == kForever) {
    sim_->ClearTimer(timer_);
    return;
  }
  sim_->SetTimer(timer_, next, sim_->TakeSeq());
}

void Cpu::SlicedReschedule() {
  Sliced& s = *sliced_;
  Time next = kForever;
  s.steps += ForEachCore(s.active, [&](size_t i) {
    const Core& c = s.cores[i];
    if (c.busy) next = std::min(next, SliceEnd(c));
  });
  s.next_end = next;
  SetSliceTimer();
}

void Cpu::RescheduleWith(const Core& c) {
  Sliced& s = *sliced_;
  s.next_end = std::min(s.next_end, SliceEnd(c));
  SetSliceTimer();
}

void Cpu::AddSliced(std::coroutine_handle<> h, Time work, CpuUse use,
                    int64_t working_set_bytes, uint64_t thread) {
  Sliced& s = *sliced_;
  const Time refill_ns = working_set_bytes == kDefaultWorkingSet
                             ? s.default_refill_ns
                             : RefillNs(s.scheduling.refill, working_set_bytes);
  const uint64_t key =
      thread != 0 ? thread : (uint64_t{1} << 63) | ++s.next_key;
  const SlicedJob job{work, refill_ns, key, use, h};
  // Only a held core continues: with none, there is nothing to look for.
  for (size_t w = 0; s.held > 0 && w < s.held_map.size(); ++w) {
    ++s.steps;
    for (uint64_t bits = s.held_map[w]; bits != 0; bits &= bits - 1) {
      ++s.steps;
      Core& c = s.cores[w * 64 + static_cast<size_t>(std::countr_zero(bits))];
      if (c.last_key == key) {
        Continue(c, job);
        RescheduleWith(c);
        return;
      }
    }
  }
  // An idle core that no thread holds means an empty queue (the tick after
  // a hold gives it the head), so a woken job takes it (the first such core)
  // or joins the tail.
  for (size_t w = 0;
       s.busy < static_cast<int64_t>(s.cores.size()) && w < s.active.size();
       ++w) {
    ++s.steps;
    if (s.active[w] == ~uint64_t{0}) continue;
    const size_t i =
        w * 64 + static_cast<size_t>(std::countr_zero(~s.active[w]));
    if (i >= s.cores.size()) break;
    Dispatch(s.cores[i], job);
    RescheduleWith(s.cores[i]);
    return;
  }
  Enqueue(job);
}

// The core's slice is over: its job is done (a thread's keeps the core for
// its next job of this instant), goes to the tail behind a waiting one, or
// runs on alone (no other job, so no switch).
void Cpu::EndSlice(Core& c, Time now) {
  Sliced& s = *sliced_;
  Credit(c, now);
  if (c.job.left == 0) {
    Finished(c.job.handle);
    c.busy = false;
    --s.busy;
    if (IsThread(c.job.key)) {
      SetHeld(c, true);
      c.held_at_tick = s.ticks;
    } else if (!s.queue.empty()) {
      Dispatch(c, PopHead());
    }
    Track(c);
  } else if (!s.queue.empty()) {
    Enqueue(c.job);
    Dispatch(c, PopHead());
  } else {
    c.quantum_left = s.scheduling.quantum_ns;
    c.slice_left = std::min(c.quantum_left, c.job.left);
  }
}

// A finished job resumes now, in finishing order, each in the position
// reserved when it finished; the tick's last one only once the tick is
// done (Simulation::ResumeLast), at once if nothing is due before it.
void Cpu::Finished(std::coroutine_handle<> h) {
  Sliced& s = *sliced_;
  if (s.finished)
    sim_->ScheduleResumeAs(sim_->now(), s.finished_seq, s.finished);
  s.finished = h;
  s.finished_seq = sim_->TakeSeq();
}

void Cpu::OnSliceTick(void* ctx, uint64_t) {
  auto* cpu = static_cast<Cpu*>(ctx);
  Sliced& s = *cpu->sliced_;
  const Time now = cpu->sim_->now();
  ++s.ticks;
  // The cores held now are the holds from an earlier tick: this tick's
  // slices only add holds of its own.
  const bool earlier_holds = s.held > 0;
  Time next = s.next_end;
  // Cores whose slices end together, in core order: deterministic. Each
  // step changes only its own core, so a core's slice end is known once its
  // step is done. A tick for holds alone, before any slice ends, has none.
  if (!earlier_holds || s.next_end <= now) {
    next = kForever;
    s.steps += ForEachCore(s.active, [&](size_t i) {
      Core& c = s.cores[i];
      if (!c.busy) return;
      Time end = cpu->SliceEnd(c);
      if (end <= now) {
        cpu->EndSlice(c, now);
        if (!c.busy) return;
        end = cpu->SliceEnd(c);
      }
      next = std::min(next, end);
    });
  }
  // Holds from an earlier tick: the thread's resumption ran before this
  // tick and did not continue, so the queue's head takes the core. Only the
  // cores it takes change, so `next` needs their slices alone.
  if (earlier_holds) {
    s.steps += ForEachCore(s.held_map, [&](size_t i) {
      Core& c = s.cores[i];
      if (c.held_at_tick == s.ticks) return;
      cpu->SetHeld(c, false);
      if (!s.queue.empty()) {
        cpu->Dispatch(c, cpu->PopHead());
        next = std::min(next, cpu->SliceEnd(c));
      }
      cpu->Track(c);
    });
  }
  s.next_end = next;
  cpu->SetSliceTimer();
  if (s.finished) {
    const std::coroutine_handle<> h = std::exchange(s.finished, nullptr);
    cpu->sim_->ResumeLast(h, s.finished_seq);
  }
}

}  // namespace perflab::sim
