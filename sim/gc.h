// A generational garbage-collector model: requests allocate, and every time
// the young generation fills up a stop-the-world young collection pauses
// every application thread. The young generation gets what the live set
// leaves of the heap, so a heap that barely holds its live set collects far
// more often.
//
//   young_mib   = (heap_mib - live_set_mib) * young_share
//   collections = allocated_mib / young_mib
//   pause_ms    = pause_base_ms + pause_per_young_mib_ms * young_mib
//
// GC costs CPU on the application's cores, as in G1: during a pause the
// parallel GC threads keep `parallel_threads` cores busy; and while the live
// set is above the initiating occupancy (G1's IHOP, 45 % of the heap) the old
// generation is marked concurrently, by `concurrent_threads` threads that
// compete with requests for the cores, at a cost per MiB allocated.
//
// The defaults are the case study (capstone chapter): a 256 MiB heap with a
// ~206 MiB live set pauses about 12x more often than a 768 MiB heap (401
// against 32 pauses), with shorter pauses each (~3.9 against ~18 ms), so the
// total pause time still falls (1,562 against 589 ms); its 256 MiB log shows
// "Concurrent Start" and "Mixed" collections, the 768 MiB log none.
//
// A pause stops request work, not only the CPU: a thread in a blocking wait
// (a socket read, a pool queue) cannot run Java code before the pause ends,
// so waits use Sleep() and resumptions call Safepoint().
// Single-threaded, like the Simulation it belongs to.
#ifndef PERFLAB_SIM_GC_H_
#define PERFLAB_SIM_GC_H_

#include <algorithm>
#include <coroutine>
#include <cstdint>
#include <memory>

#include "absl/status/statusor.h"
#include "core/case_study.h"
#include "sim/cpu.h"
#include "sim/engine.h"

namespace perflab::sim {

// G1 marks the old generation concurrently once the live set passes this
// share of the heap (InitiatingHeapOccupancyPercent's default, 45).
inline constexpr double kG1InitiatingOccupancy = 0.45;

struct GcOptions {
  double heap_mib = case_study::kHeapMib;  // maximum heap (-Xmx)
  double live_set_mib =
      case_study::kLiveSetMib;  // long-lived data every collection keeps
  double young_share = 1.0;     // share of the free heap the young gen gets
  double pause_base_ms =
      case_study::kYoungPauseBaseMs;  // fixed cost of a young pause
  double pause_per_young_mib_ms =
      case_study::kYoungPausePerMibMs;  // scanning/copying cost per young MiB
  // GC threads busy on the cores during a pause (0: all the CPU's cores, as
  // G1's ParallelGCThreads on up to 8 cores).
  int64_t parallel_threads = 0;
  // Concurrent marking CPU per MiB allocated while the live set exceeds
  // initiating_occupancy x heap (0: no concurrent work).
  double concurrent_cpu_per_mib_us = 0;
  double initiating_occupancy = kG1InitiatingOccupancy;
  // Concurrent marking threads (0: (parallel + 2) / 4, G1's ConcGCThreads).
  int64_t concurrent_threads = 0;
};

struct GcStats {
  int64_t collections = 0;
  Time total_pause = 0;
  double allocated_mib = 0;
  double young_mib = 0;
  Time pause_cpu = 0;       // core-ns of the parallel threads in pauses
  Time concurrent_cpu = 0;  // core-ns of concurrent work started
  double mean_pause_ms() const {
    return collections > 0
               ? ToMs(total_pause) / static_cast<double>(collections)
               : 0;
  }
};

class Gc {
 public:
  // Fails when the live set does not fit in the heap (an OutOfMemoryError
  // in waiting) or a parameter is out of range.
  static absl::StatusOr<Gc> Create(Simulation& sim, Cpu* cpu,
                                   const GcOptions& options);

  // Records an allocation; when the young generation fills, a pause starts
  // now, freezes the CPU (if one was given) for its length and charges the
  // parallel threads' work to it, and any concurrent work is started.
  void Allocate(double mib);

  // co_await gc.Safepoint(): waits out a pause in progress (a thread that
  // was off the CPU still cannot run Java code until the pause ends).
  // Outside a pause it resumes now, after the events already due now: at
  // once when none are (Simulation::ContinueNow), the same order without
  // an event of its own.
  struct SafepointAwaiter {
    Gc* gc;
    bool await_ready() const noexcept {
      return !gc->paused() && gc->sim_->ContinueNow();
    }
    void await_suspend(std::coroutine_handle<> h) const {
      Simulation& sim = *gc->sim_;
      sim.Until(std::max(sim.now(), gc->state_->paused_until)).await_suspend(h);
    }
    void await_resume() const noexcept {}
  };
  SafepointAwaiter Safepoint() { return {this}; }

  // co_await gc.Sleep(d): a blocking wait of d (I/O, a downstream call) that,
  // if it ends during a pause, resumes only when the pause is over.
  struct SleepAwaiter {
    Gc* gc;
    Time delay;
    bool await_ready() const noexcept { return false; }
    void await_suspend(std::coroutine_handle<> h) const;
    void await_resume() const noexcept {}
  };
  SleepAwaiter Sleep(Time delay) { return {this, delay}; }

  bool paused() const { return state_->paused_until > sim_->now(); }
  Time young_pause() const { return pause_; }
  const GcStats& stats() const { return stats_; }
  void ResetStats() {
    stats_ = GcStats{};
    stats_.young_mib = young_mib_;
  }

 private:
  // Shared with scheduled wake-ups, so it stays put when the Gc is moved.
  struct State {
    Simulation* sim;
    Time paused_until = 0;
  };
  Gc(Simulation& sim, Cpu* cpu, const GcOptions& options, double young_mib,
     Time pause);
  static void OnWake(void* ctx, uint64_t handle);

  Simulation* sim_;
  Cpu* cpu_;
  std::unique_ptr<State> state_;
  double young_mib_;
  Time pause_;
  int64_t parallel_threads_;
  int64_t concurrent_threads_;
  double concurrent_ns_per_mib_;  // 0 when the live set is below the IHOP
  double young_used_mib_ = 0;
  GcStats stats_;
};

}  // namespace perflab::sim

#endif  // PERFLAB_SIM_GC_H_
