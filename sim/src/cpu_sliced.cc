// The time-sliced discipline of sim::Cpu, and the scheduling options.
//
// Each core runs one job in segments: the dispatch overhead (switch plus
// refill, only when the core last ran another job), then a slice of at most a
// quantum of the job's work. All of it is integer nanoseconds, so the CPU
// used is exact: the jobs' work plus the overheads, nothing rounded.
#include <algorithm>
#include <string>

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
  c.job.left -= r;
  used_ += p;
  used_by_use_[static_cast<int>(CpuUse::kScheduling)] += static_cast<double>(o);
  used_by_use_[static_cast<int>(c.job.use)] += static_cast<double>(r);
}

void Cpu::SlicedAdvance() {
  const Time now = sim_->now();
  for (Core& c : sliced_->cores) Credit(c, now);
}

// What SlicedAdvance() would credit, without changing anything.
void Cpu::SlicedTotals(__int128& used,
                       std::array<double, kAllCpuUses>& by_use) const {
  used = used_;
  by_use = used_by_use_;
  const Time now = sim_->now();
  for (const Core& c : sliced_->cores) {
    const Time start = std::max(c.from, frozen_until_);
    if (!c.busy || now <= start) continue;
    const Time p = now - start;
    const Time o = std::min(p, c.overhead_left);
    used += p;
    by_use[static_cast<int>(CpuUse::kScheduling)] += static_cast<double>(o);
    by_use[static_cast<int>(c.job.use)] += static_cast<double>(p - o);
  }
}

void Cpu::Dispatch(Core& c, const SlicedJob& job) {
  if (!c.busy) ++sliced_->busy;
  c.busy = true;
  c.job = job;
  c.from = sim_->now();
  c.overhead_left = 0;
  if (c.last_key != job.key) {
    c.overhead_left = sliced_->scheduling.switch_ns + job.refill_ns;
    ++sliced_->switches;
    c.last_key = job.key;
  }
  c.slice_left = std::min(sliced_->scheduling.quantum_ns, job.left);
}

void Cpu::SlicedReschedule() {
  Time next = kForever;
  for (const Core& c : sliced_->cores) {
    if (c.busy) next = std::min(next, SliceEnd(c));
  }
  if (next == kForever) {
    sim_->ClearTimer(timer_);
    return;
  }
  sim_->SetTimer(timer_, next, sim_->TakeSeq());
}

void Cpu::AddSliced(std::coroutine_handle<> h, Time work, CpuUse use,
                    int64_t working_set_bytes, uint64_t thread) {
  Sliced& s = *sliced_;
  const int64_t ws = working_set_bytes == kDefaultWorkingSet
                         ? s.scheduling.working_set_bytes
                         : working_set_bytes;
  // Jobs without a thread get keys with the top bit set, apart from threads.
  const uint64_t key =
      thread != 0 ? thread : (uint64_t{1} << 63) | ++s.next_key;
  const SlicedJob job{work, RefillNs(s.scheduling.refill, ws), key, use, h};
  // The queue is empty while a core is idle: every core that frees takes
  // its head. So a woken job either takes an idle core or joins the tail.
  if (s.busy < static_cast<int64_t>(s.cores.size())) {
    for (Core& c : s.cores) {
      if (c.busy) continue;
      Dispatch(c, job);
      SlicedReschedule();
      return;
    }
  }
  s.queue.push_back(job);
}

// The core's slice is over: its job is done, goes to the tail behind a
// waiting one, or runs on alone (no other job, so no switch).
void Cpu::EndSlice(Core& c, Time now) {
  Sliced& s = *sliced_;
  Credit(c, now);
  if (c.job.left == 0) {
    sim_->ScheduleResume(now, c.job.handle);
    c.busy = false;
    --s.busy;
    if (s.queue.empty()) return;
    const SlicedJob next = s.queue.front();
    s.queue.pop_front();
    Dispatch(c, next);
  } else if (!s.queue.empty()) {
    s.queue.push_back(c.job);
    const SlicedJob next = s.queue.front();
    s.queue.pop_front();
    Dispatch(c, next);
  } else {
    c.slice_left = std::min(s.scheduling.quantum_ns, c.job.left);
  }
}

void Cpu::OnSliceTick(void* ctx, uint64_t) {
  auto* cpu = static_cast<Cpu*>(ctx);
  const Time now = cpu->sim_->now();
  // Cores whose slices end together, in core order: deterministic.
  for (Core& c : cpu->sliced_->cores) {
    if (c.busy && cpu->SliceEnd(c) <= now) cpu->EndSlice(c, now);
  }
  cpu->SlicedReschedule();
}

}  // namespace perflab::sim
