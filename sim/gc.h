// A generational garbage-collector model: requests allocate, and every time
// the young generation fills up a stop-the-world young collection pauses
// the CPU. The young generation gets what the live set leaves of the heap,
// so a heap that barely holds its live set collects far more often.
//
//   young_mib   = (heap_mib - live_set_mib) * young_share
//   collections = allocated_mib / young_mib
//   pause_ms    = pause_base_ms + pause_per_young_mib_ms * young_mib
//
// The defaults are calibrated to the case study (capstone chapter): a 256 MiB
// heap with a ~206 MiB live set pauses about 12x more often than a 768 MiB heap
// (401 against 32 pauses), with shorter pauses each (~3.9 against ~18 ms),
// so the total pause time still falls (1,562 against 589 ms).
// Single-threaded, like the Simulation it belongs to.
#ifndef PERFLAB_SIM_GC_H_
#define PERFLAB_SIM_GC_H_

#include <algorithm>
#include <coroutine>
#include <cstdint>

#include "absl/status/statusor.h"
#include "core/case_study.h"
#include "sim/cpu.h"
#include "sim/engine.h"

namespace perflab::sim {

struct GcOptions {
  double heap_mib = case_study::kHeapMib;  // maximum heap (-Xmx)
  double live_set_mib =
      case_study::kLiveSetMib;  // long-lived data every collection keeps
  double young_share = 1.0;     // share of the free heap the young gen gets
  double pause_base_ms =
      case_study::kYoungPauseBaseMs;  // fixed cost of a young pause
  double pause_per_young_mib_ms =
      case_study::kYoungPausePerMibMs;  // scanning/copying cost per young MiB
};

struct GcStats {
  int64_t collections = 0;
  Time total_pause = 0;
  double allocated_mib = 0;
  double young_mib = 0;
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
  // now and freezes the CPU (if one was given) for its length.
  void Allocate(double mib);

  // co_await gc.Safepoint(): waits out a pause in progress (a thread that
  // was off the CPU still cannot run Java code until the pause ends).
  Simulation::DelayAwaiter Safepoint() {
    return sim_->Until(std::max(sim_->now(), paused_until_));
  }

  Time young_pause() const { return pause_; }
  const GcStats& stats() const { return stats_; }
  void ResetStats() { stats_ = GcStats{0, 0, 0, young_mib_}; }

 private:
  Gc(Simulation& sim, Cpu* cpu, double young_mib, Time pause)
      : sim_(&sim), cpu_(cpu), young_mib_(young_mib), pause_(pause) {
    stats_.young_mib = young_mib;
  }
  Simulation* sim_;
  Cpu* cpu_;
  double young_mib_;
  Time pause_;
  double young_used_mib_ = 0;
  Time paused_until_ = 0;
  GcStats stats_;
};

}  // namespace perflab::sim

#endif  // PERFLAB_SIM_GC_H_
