#include "sim/gc.h"

#include <algorithm>
#include <cmath>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace perflab::sim {
namespace {

// One concurrent marking thread's share of a collection cycle's work.
Process ConcurrentWork(Cpu& cpu, Time work) {
  co_await cpu.Run(work, CpuUse::kGc);
}

}  // namespace

absl::StatusOr<Gc> Gc::Create(Simulation& sim, Cpu* cpu, const GcOptions& o) {
  if (!(o.heap_mib > 0) || !(o.live_set_mib >= 0) || !(o.young_share > 0) ||
      o.young_share > 1 || !(o.pause_base_ms >= 0) ||
      !(o.pause_per_young_mib_ms >= 0) || o.parallel_threads < 0 ||
      o.concurrent_threads < 0 || !(o.concurrent_cpu_per_mib_us >= 0) ||
      !(o.initiating_occupancy > 0) || o.initiating_occupancy > 1) {
    return absl::InvalidArgumentError(
        "gc: heap_mib > 0, live_set_mib >= 0, young_share and "
        "initiating_occupancy in (0, 1], pause and concurrent costs >= 0 and "
        "thread counts >= 0 required");
  }
  if (o.live_set_mib >= o.heap_mib) {
    return absl::InvalidArgumentError(absl::StrCat(
        "gc: live set ", o.live_set_mib, " MiB does not fit in a heap of ",
        o.heap_mib, " MiB; accepted live_set_mib < heap_mib"));
  }
  const double young = (o.heap_mib - o.live_set_mib) * o.young_share;
  const double pause_ms = o.pause_base_ms + o.pause_per_young_mib_ms * young;
  return Gc(sim, cpu, o, young,
            static_cast<Time>(std::llround(pause_ms * 1e6)));
}

Gc::Gc(Simulation& sim, Cpu* cpu, const GcOptions& o, double young_mib,
       Time pause)
    : sim_(&sim),
      cpu_(cpu),
      state_(std::make_unique<State>(State{&sim, 0})),
      young_mib_(young_mib),
      pause_(pause) {
  const int64_t cores = cpu != nullptr ? cpu->cores() : 1;
  parallel_threads_ =
      o.parallel_threads > 0 ? std::min(o.parallel_threads, cores) : cores;
  concurrent_threads_ = o.concurrent_threads > 0
                            ? o.concurrent_threads
                            : std::max<int64_t>(1, (parallel_threads_ + 2) / 4);
  // Above the initiating occupancy G1 keeps marking the old generation.
  concurrent_ns_per_mib_ = o.live_set_mib > o.initiating_occupancy * o.heap_mib
                               ? o.concurrent_cpu_per_mib_us * 1e3
                               : 0;
  stats_.young_mib = young_mib;
}

void Gc::Allocate(double mib) {
  stats_.allocated_mib += mib;
  young_used_mib_ += mib;
  while (young_used_mib_ >= young_mib_) {
    young_used_mib_ -= young_mib_;
    ++stats_.collections;
    stats_.total_pause += pause_;
    // Back-to-back collections queue behind each other.
    Time& until = state_->paused_until;
    until = std::max(until, sim_->now()) + pause_;
    if (cpu_ == nullptr) continue;
    cpu_->Freeze(until - sim_->now());
    const Time pause_cpu = pause_ * parallel_threads_;
    cpu_->Charge(CpuUse::kGc, pause_cpu);
    stats_.pause_cpu += pause_cpu;
    if (concurrent_ns_per_mib_ > 0) {
      // The cycle's marking work, split over the concurrent threads; they
      // run between pauses, competing with requests for the cores.
      const Time each = static_cast<Time>(
          std::llround(concurrent_ns_per_mib_ * young_mib_ /
                       static_cast<double>(concurrent_threads_)));
      for (int64_t t = 0; t < concurrent_threads_; ++t) {
        sim_->Spawn(ConcurrentWork(*cpu_, each));
      }
      stats_.concurrent_cpu += each * concurrent_threads_;
    }
  }
}

void Gc::SleepAwaiter::await_suspend(std::coroutine_handle<> h) const {
  Simulation& sim = *gc->sim_;
  sim.Schedule(SaturatingAdd(sim.now(), std::max<Time>(0, delay)), &Gc::OnWake,
               gc->state_.get(), reinterpret_cast<uintptr_t>(h.address()));
}

void Gc::OnWake(void* ctx, uint64_t handle) {
  auto* state = static_cast<State*>(ctx);
  // The event carries the handle's address as an integer (it has no pointer
  // slot); this is the round trip back, not arithmetic on it.
  auto h = std::coroutine_handle<>::from_address(
      reinterpret_cast<void*>(  // NOLINT(performance-no-int-to-ptr)
          static_cast<uintptr_t>(handle)));
  // Later pauses may chain onto this one: the end known now is the end.
  if (state->paused_until > state->sim->now()) {
    state->sim->ScheduleResume(state->paused_until, h);
  } else {
    h.resume();
  }
}

}  // namespace perflab::sim
