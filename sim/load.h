// Load generators: a closed loop (N clients that each wait for their
// response, then think) or an open loop (arrivals at a constant rate or
// Poisson, whatever is outstanding). Each request runs `handler`, a Task that
// returns false for an error; the Meter sees every request begin and end.
//
//   LoadOptions load{.kind = LoadOptions::Kind::kPoisson, .rate_per_s = 500};
//   StartLoad(sim, meter, load, [&] { return HandleOrder(...); }, seed);
//
// Closed-loop clients start spread over `stagger` so they do not march in
// lockstep. Single-threaded, like the Simulation it belongs to.
#ifndef PERFLAB_SIM_LOAD_H_
#define PERFLAB_SIM_LOAD_H_

#include <cstdint>
#include <functional>
#include <memory>

#include "sim/engine.h"
#include "sim/measure.h"
#include "sim/random.h"
#include "sim/task.h"

namespace perflab::sim {

struct LoadOptions {
  enum class Kind { kClosed, kConstant, kPoisson };
  Kind kind = Kind::kClosed;
  int64_t clients = 32;  // closed loop: concurrent clients
  Time think = 0;        // closed loop: pause between response and next send
  bool exponential_think = false;  // closed loop: think ~ Exp(think), as load
                                   // tools draw it, instead of fixed
  Time stagger = 0;         // closed loop: first sends spread over [0, stagger)
  double rate_per_s = 100;  // open loop: arrival rate
  Time end = kForever;      // open loop: no arrivals from this time on
};

using Handler = std::function<Task<bool>()>;

// Spawns the generator processes. `handler` is kept alive by them.
void StartLoad(Simulation& sim, Meter& meter, const LoadOptions& options,
               Handler handler, uint64_t seed);

}  // namespace perflab::sim

#endif  // PERFLAB_SIM_LOAD_H_
