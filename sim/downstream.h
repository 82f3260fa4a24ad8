// A downstream dependency (an inventory service, a payment API): each call
// takes a latency drawn from its distribution, from its own random stream,
// and is held up by the dependency's own freezes (a failover, a GC pause on
// the far side). Counts calls and their total time.
// Single-threaded, like the Simulation it belongs to.
#ifndef PERFLAB_SIM_DOWNSTREAM_H_
#define PERFLAB_SIM_DOWNSTREAM_H_

#include <cstdint>
#include <string_view>

#include "sim/cpu.h"
#include "sim/engine.h"
#include "sim/random.h"

namespace perflab::sim {

class Downstream {
 public:
  Downstream(Simulation& sim, Dist latency, uint64_t seed,
             std::string_view name)
      : sim_(&sim), latency_(latency), rng_(seed, name) {}

  // Intervals during which the dependency answers nothing.
  Freezes& freezes() { return freezes_; }

  // co_await downstream.Call(): resumes when the response arrives.
  Simulation::DelayAwaiter Call() {
    const Time work = SampleNs(latency_, rng_);
    const Time done = freezes_.Finish(sim_->now(), work);
    ++calls_;
    total_ += done - sim_->now();
    return sim_->Until(done);
  }

  int64_t calls() const { return calls_; }
  // Restarts the counts (after a warm-up).
  void ResetStats() {
    calls_ = 0;
    total_ = 0;
  }
  double mean_ms() const {
    return calls_ > 0 ? ToMs(total_) / static_cast<double>(calls_) : 0;
  }

 private:
  Simulation* sim_;
  Dist latency_;
  Rng rng_;
  Freezes freezes_;
  int64_t calls_ = 0;
  Time total_ = 0;
};

}  // namespace perflab::sim

#endif  // PERFLAB_SIM_DOWNSTREAM_H_
