#include "sim/gc.h"

#include <algorithm>
#include <cmath>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace perflab::sim {

absl::StatusOr<Gc> Gc::Create(Simulation& sim, Cpu* cpu, const GcOptions& o) {
  if (!(o.heap_mib > 0) || !(o.live_set_mib >= 0) || !(o.young_share > 0) ||
      o.young_share > 1 || !(o.pause_base_ms >= 0) ||
      !(o.pause_per_young_mib_ms >= 0)) {
    return absl::InvalidArgumentError(
        "gc: heap_mib > 0, live_set_mib >= 0, young_share in (0, 1] and pause "
        "costs "
        ">= 0 required");
  }
  if (o.live_set_mib >= o.heap_mib) {
    return absl::InvalidArgumentError(absl::StrCat(
        "gc: live set ", o.live_set_mib, " MiB does not fit in a heap of ",
        o.heap_mib, " MiB; accepted live_set_mib < heap_mib"));
  }
  const double young = (o.heap_mib - o.live_set_mib) * o.young_share;
  const double pause_ms = o.pause_base_ms + o.pause_per_young_mib_ms * young;
  return Gc(sim, cpu, young, static_cast<Time>(std::llround(pause_ms * 1e6)));
}

void Gc::Allocate(double mib) {
  stats_.allocated_mib += mib;
  young_used_mib_ += mib;
  while (young_used_mib_ >= young_mib_) {
    young_used_mib_ -= young_mib_;
    ++stats_.collections;
    stats_.total_pause += pause_;
    // Back-to-back collections queue behind each other.
    paused_until_ = std::max(paused_until_, sim_->now()) + pause_;
    if (cpu_ != nullptr) cpu_->Freeze(paused_until_ - sim_->now());
  }
}

}  // namespace perflab::sim
