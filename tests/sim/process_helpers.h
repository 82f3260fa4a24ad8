// Processes the engine's tests spawn to put work on a model at a moment.
#ifndef PERFLAB_TESTS_SIM_PROCESS_HELPERS_H_
#define PERFLAB_TESTS_SIM_PROCESS_HELPERS_H_

#include "sim/cpu.h"
#include "sim/engine.h"
#include "sim/gc.h"

namespace perflab::sim::testing_helpers {

// `work` on the CPU from now; `done` is when it finished.
inline Process CpuJob(Simulation& sim, Cpu& cpu, Time work, Time& done) {
  co_await cpu.Run(work);
  done = sim.now();
}

// `mib` allocated at `at`.
inline Process AllocateAt(Simulation& sim, Gc& gc, Time at, double mib) {
  co_await sim.Delay(at);
  gc.Allocate(mib);
}

}  // namespace perflab::sim::testing_helpers

#endif  // PERFLAB_TESTS_SIM_PROCESS_HELPERS_H_
