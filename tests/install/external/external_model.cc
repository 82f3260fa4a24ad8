// Three customers arrive at t = 0 at one server that holds each for 5 ms
// (the engine's own example): they leave at 5, 10 and 15 ms, having waited
// 0, 5 and 10 ms, a mean of 5 ms; one server held 5 ms serves at most
// 1 / 0.005 s = 200 requests/s.
#include <cstdio>
#include <vector>

#include "models/little.h"
#include "sim/engine.h"
#include "sim/resource.h"

namespace {

using perflab::sim::kMs;
using perflab::sim::Process;
using perflab::sim::Resource;
using perflab::sim::Simulation;
using perflab::sim::Time;

Process Customer(Simulation& sim, Resource& server, std::vector<Time>& waits,
                 std::vector<Time>& departures) {
  const Time arrived = sim.now();
  co_await server.Acquire();
  waits.push_back(sim.now() - arrived);
  co_await sim.Delay(5 * kMs);
  server.Release();
  departures.push_back(sim.now());
}

}  // namespace

int main() {
  Simulation sim;
  Resource server(sim, "server", 1);
  std::vector<Time> waits, departures;
  for (int i = 0; i < 3; ++i) {
    sim.Spawn(Customer(sim, server, waits, departures));
  }
  if (!sim.Run(perflab::sim::kForever).ok()) return 1;
  Time wait_sum = 0;
  for (Time w : waits) wait_sum += w;
  std::printf("departures_ms %g %g %g\n", perflab::sim::ToMs(departures[0]),
              perflab::sim::ToMs(departures[1]),
              perflab::sim::ToMs(departures[2]));
  std::printf("mean_wait_ms %g\n", perflab::sim::ToMs(wait_sum) / 3);
  std::printf("ceiling_per_s %g\n", perflab::models::PoolCeilingPerS(1, 0.005));
  return 0;
}
