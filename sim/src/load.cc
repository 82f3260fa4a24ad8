#include "sim/load.h"

#include <utility>

namespace perflab::sim {
namespace {

Process Request(Simulation& sim, Meter& meter,
                std::shared_ptr<Handler> handler) {
  const Time start = sim.now();
  meter.Begin();
  const bool ok = co_await (*handler)();
  meter.End(start, ok);
}

Process ClosedClient(Simulation& sim, Meter& meter,
                     std::shared_ptr<Handler> handler, Time offset, Dist think,
                     std::shared_ptr<Rng> rng) {
  co_await sim.Delay(offset);
  while (true) {
    const Time start = sim.now();
    meter.Begin();
    const bool ok = co_await (*handler)();
    meter.End(start, ok);
    if (think.mean > 0) co_await sim.Delay(SampleNs(think, *rng));
  }
}

Process OpenSource(Simulation& sim, Meter& meter,
                   std::shared_ptr<Handler> handler, Dist gap, Time end,
                   std::shared_ptr<Rng> rng) {
  while (true) {
    co_await sim.Delay(SampleNs(gap, *rng));
    if (sim.now() >= end) co_return;
    sim.Spawn(Request(sim, meter, handler));
  }
}

}  // namespace

void StartLoad(Simulation& sim, Meter& meter, const LoadOptions& o,
               Handler handler, uint64_t seed) {
  auto shared = std::make_shared<Handler>(std::move(handler));
  if (o.kind == LoadOptions::Kind::kClosed) {
    Rng starts(seed, "load/starts");
    const Dist think = o.exponential_think
                           ? Dist::Exp(static_cast<double>(o.think))
                           : Dist::Constant(static_cast<double>(o.think));
    auto think_rng = std::make_shared<Rng>(seed, "load/think");
    for (int64_t i = 0; i < o.clients; ++i) {
      const Time offset =
          o.stagger > 0 ? static_cast<Time>(starts.Uniform01() *
                                            static_cast<double>(o.stagger))
                        : 0;
      sim.Spawn(ClosedClient(sim, meter, shared, offset, think, think_rng));
    }
    return;
  }
  const double mean_gap_ns = 1e9 / o.rate_per_s;
  const Dist gap = o.kind == LoadOptions::Kind::kPoisson
                       ? Dist::Exp(mean_gap_ns)
                       : Dist::Constant(mean_gap_ns);
  sim.Spawn(OpenSource(sim, meter, shared, gap, o.end,
                       std::make_shared<Rng>(seed, "load/arrivals")));
}

}  // namespace perflab::sim
