#include "sim/load.h"

#include <utility>

namespace perflab::sim {
namespace {

// The generator's CPU for one request: sending (first half) or receiving.
struct GeneratorCost {
  Cpu* cpu = nullptr;
  Time send = 0, receive = 0;
  explicit GeneratorCost(const LoadOptions& o)
      : cpu(o.generator),
        send(o.generator_cpu / 2),
        receive(o.generator_cpu - o.generator_cpu / 2) {}
};

// Each process below wraps a request in the generator's CPU (sending, the
// first half, and receiving, the rest) itself: a Task per request doing it
// would cost a frame and two transfers, for nothing that can be observed.
Process Request(Simulation& sim, Meter& meter, std::shared_ptr<Handler> handler,
                GeneratorCost g) {
  const Time start = sim.now();
  meter.Begin();
  if (g.cpu != nullptr) co_await g.cpu->Run(g.send);
  const bool ok = co_await (*handler)();
  if (g.cpu != nullptr) co_await g.cpu->Run(g.receive);
  meter.End(start, ok);
}

Process ClosedClient(Simulation& sim, Meter& meter,
                     std::shared_ptr<Handler> handler, Time offset, Dist think,
                     std::shared_ptr<Rng> rng, GeneratorCost g) {
  co_await sim.Delay(offset);
  while (true) {
    const Time start = sim.now();
    meter.Begin();
    if (g.cpu != nullptr) co_await g.cpu->Run(g.send);
    const bool ok = co_await (*handler)();
    if (g.cpu != nullptr) co_await g.cpu->Run(g.receive);
    meter.End(start, ok);
    if (think.mean > 0) co_await sim.Delay(SampleNs(think, *rng));
  }
}

Process OpenSource(Simulation& sim, Meter& meter,
                   std::shared_ptr<Handler> handler, Dist gap, Time end,
                   std::shared_ptr<Rng> rng, GeneratorCost g) {
  while (true) {
    co_await sim.Delay(SampleNs(gap, *rng));
    if (sim.now() >= end) co_return;
    sim.Spawn(Request(sim, meter, handler, g));
  }
}

}  // namespace

void StartLoad(Simulation& sim, Meter& meter, const LoadOptions& o,
               Handler handler, uint64_t seed) {
  auto shared = std::make_shared<Handler>(std::move(handler));
  const GeneratorCost g(o);
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
      sim.Spawn(ClosedClient(sim, meter, shared, offset, think, think_rng, g));
    }
    return;
  }
  const double mean_gap_ns = 1e9 / o.rate_per_s;
  const Dist gap = o.kind == LoadOptions::Kind::kPoisson
                       ? Dist::Exp(mean_gap_ns)
                       : Dist::Constant(mean_gap_ns);
  sim.Spawn(OpenSource(sim, meter, shared, gap, o.end,
                       std::make_shared<Rng>(seed, "load/arrivals"), g));
}

}  // namespace perflab::sim
