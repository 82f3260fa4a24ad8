// bench_sim: how fast the discrete-event engine runs. M/M/c with c = 8 at
// rho = 0.9 and Cimba's M/M/1 (counters customers_per_s and events_per_s), a
// 100,000-client closed loop whose heap growth (malloc in-use bytes, its own,
// not the process's peak) shows the memory cost per client, and the cost per
// event as the number of pending events grows; and the capstone's order-service
// model at three of its steps (BM_OrderService), in simulated requests and
// engine events per second of wall time; and an M/M/1 on sim::Cpu under
// processor sharing against the time-sliced discipline (BM_CpuMM1); and a
// pool's hand-over from one holder to the next waiter (BM_ResourceHandOver).
#include <benchmark/benchmark.h>
#include <malloc.h>

#include <string>

#include "core/cpu_time.h"
#include "sim/cpu.h"
#include "sim/engine.h"
#include "sim/mmc.h"
#include "sim/order_service/model.h"
#include "sim/random.h"
#include "sim/resource.h"

namespace {

using perflab::sim::Time;

// M/M/c at utilisation rho with mu 1: state.range(0) customers, no warm-up
// and no percentiles, so the figure is the engine and the variates alone.
void RunMmcBenchmark(benchmark::State& state, int servers, double rho) {
  perflab::sim::MmcOptions o;
  o.servers = servers;
  o.service_rate_per_s = 1.0;
  o.arrival_rate_per_s = rho * servers;
  o.customers = state.range(0);
  o.warmup_customers = 0;
  o.percentiles = false;
  int64_t customers = 0, events = 0;
  for (auto _ : state) {
    auto r = perflab::sim::RunMmc(o);
    if (!r.ok()) {
      state.SkipWithError(std::string(r.status().message()).c_str());
      return;
    }
    customers += r->customers;
    events += r->events;
    benchmark::DoNotOptimize(r->mean_wait_s);
  }
  state.counters["customers_per_s"] = benchmark::Counter(
      static_cast<double>(customers), benchmark::Counter::kIsRate);
  state.counters["events_per_s"] = benchmark::Counter(
      static_cast<double>(events), benchmark::Counter::kIsRate);
}

void BM_Mmc8Rho09(benchmark::State& state) { RunMmcBenchmark(state, 8, 0.9); }
BENCHMARK(BM_Mmc8Rho09)->Arg(1'000'000)->Unit(benchmark::kMillisecond);

// Cimba's own benchmark model: M/M/1 with lambda 0.9 and mu 1, 1,000,000
// customers (Cimba keeps no percentiles either), so a side-by-side
// comparison with it and with older commits times the engine and the
// variates alone. tools/bench/mm1-instructions counts the instructions per
// customer of the same model under callgrind.
void BM_MM1(benchmark::State& state) { RunMmcBenchmark(state, 1, 0.9); }
BENCHMARK(BM_MM1)->Arg(1'000'000)->Unit(benchmark::kMillisecond);

// Bytes malloc has handed out and not taken back (glibc mallinfo2: arena
// plus mmapped blocks). A difference of two readings is what the code in
// between still holds, whatever ran earlier in the process; VmHWM is the
// process's peak and cannot be narrowed to one benchmark.
double MallocInUseBytes() {
  struct mallinfo2 m = mallinfo2();
  return static_cast<double>(m.uordblks + m.hblkhd);
}

// Each time is drawn before its co_await, not inside it: GCC 12 keeps the
// temporaries of a co_await's full expression (here a 32-byte Dist each) in
// the coroutine frame, which would make this one 248 bytes instead of 184:
// past the frame pool's 192-byte size class, 64 bytes a client more.
perflab::sim::Process Client(perflab::sim::Simulation& sim,
                             perflab::sim::Resource& servers,
                             perflab::sim::Rng& rng, int64_t& done) {
  while (true) {
    const perflab::sim::Time think =
        perflab::sim::SampleNs(perflab::sim::Dist::Exp(1e9), rng);
    co_await sim.Delay(think);
    co_await servers.Acquire();
    const perflab::sim::Time service =
        perflab::sim::SampleNs(perflab::sim::Dist::Exp(1e6), rng);
    co_await sim.Delay(service);
    servers.Release();
    ++done;
  }
}

// 100,000 concurrent closed-loop clients (1 s mean think time) against 200
// servers, for 10 virtual seconds.
void BM_ClosedLoop100k(benchmark::State& state) {
  const int64_t clients = state.range(0);
  int64_t done = 0;
  double growth_bytes = 0;
  for (auto _ : state) {
    const double before = MallocInUseBytes();
    perflab::sim::Simulation sim;
    perflab::sim::Resource servers(sim, "servers", 200);
    perflab::sim::Rng rng(42, "clients");
    for (int64_t i = 0; i < clients; ++i)
      sim.Spawn(Client(sim, servers, rng, done));
    auto s = sim.Run(10 * perflab::sim::kSec);
    if (!s.ok()) {
      state.SkipWithError(std::string(s.message()).c_str());
      return;
    }
    // Every client is alive until the simulation is destroyed: this is the
    // run's holding (frames, event heap, queues), measured before teardown.
    growth_bytes = MallocInUseBytes() - before;
  }
  state.counters["requests_per_s"] = benchmark::Counter(
      static_cast<double>(done), benchmark::Counter::kIsRate);
  state.counters["malloc_growth_mib"] = growth_bytes / (1 << 20);
  state.counters["malloc_growth_bytes_per_client"] =
      growth_bytes / static_cast<double>(clients);
}
BENCHMARK(BM_ClosedLoop100k)->Arg(100'000)->Unit(benchmark::kMillisecond);

perflab::sim::Process Holder(perflab::sim::Simulation& sim,
                             perflab::sim::Resource& pool, Time timeout,
                             int64_t& grants) {
  while (true) {
    const bool got = co_await pool.Acquire(timeout);
    if (got) {
      co_await sim.Delay(1);
      pool.Release();
      ++grants;
    }
  }
}

// A pool of one unit and state.range(0) processes that take it in turn, so
// every release hands the unit over to a waiter and the wait queue (a ring
// buffer) stays long. state.range(1) = 1 gives every acquire a timeout that
// never fires: the slot and deadline path, where 0 is the untimed one.
void BM_ResourceHandOver(benchmark::State& state) {
  const int64_t waiters = state.range(0);
  const Time timeout = state.range(1) ? perflab::sim::kSec : -1;
  int64_t grants = 0;
  for (auto _ : state) {
    perflab::sim::Simulation sim;
    perflab::sim::Resource pool(sim, "pool", 1);
    for (int64_t i = 0; i < waiters; ++i)
      sim.Spawn(Holder(sim, pool, timeout, grants));
    if (auto s = sim.Run(100'000); !s.ok()) {
      state.SkipWithError(std::string(s.message()).c_str());
      return;
    }
    benchmark::DoNotOptimize(pool.Stats().mean_wait_s);
  }
  state.counters["handovers_per_s"] = benchmark::Counter(
      static_cast<double>(grants), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_ResourceHandOver)
    ->ArgsProduct({{16, 4096}, {0, 1}})
    ->ArgNames({"waiters", "timed"});

// CPU time of the calling thread in nanoseconds.
double ThreadCpuNs() { return perflab::core::ThreadCpuSeconds() * 1e9; }

// Runs `sim` 1 ms of virtual time further per iteration (about n events when
// n processes or callbacks wait 1 ms on average) and reports events_per_s and
// ns_per_event. The first 2 ms are run untimed: by then every event of the
// initial fill has been taken and replaced about once, so the timed ones see
// the queue in its steady shape. Timed, they were the queue growing into
// fresh memory, and at 1M pending they are two of the three or four
// iterations Google Benchmark runs (87,000 page faults, 40 % of the time in
// the kernel zeroing pages), which is not the cost of an event among N.
void RunOneMsPerIteration(benchmark::State& state,
                          perflab::sim::Simulation& sim) {
  perflab::sim::Time horizon = 2 * perflab::sim::kMs;
  if (!sim.Run(horizon).ok()) state.SkipWithError("warm-up run failed");
  const int64_t before = sim.events_executed();
  const double cpu_start_ns = ThreadCpuNs();
  for (auto _ : state) {
    horizon += perflab::sim::kMs;  // about n events per iteration
    if (!sim.Run(horizon).ok()) state.SkipWithError("run failed");
  }
  const double cpu_ns = ThreadCpuNs() - cpu_start_ns;
  const double events = static_cast<double>(sim.events_executed() - before);
  state.counters["events_per_s"] =
      benchmark::Counter(events, benchmark::Counter::kIsRate);
  // A plain value in nanoseconds (kIsRate | kInvert would store seconds in
  // the JSON while the console prints "ns"). Thread CPU time, the same clock
  // as the benchmark's cpu_time column.
  state.counters["ns_per_event"] = events > 0 ? cpu_ns / events : 0;
  // The plain count, so an instruction profile of Simulation::Run (callgrind)
  // can be divided into instructions per event without timing noise.
  state.counters["events"] = events;
}

perflab::sim::Process Ticker(perflab::sim::Simulation& sim,
                             perflab::sim::Rng& rng) {
  while (true) {
    co_await sim.Delay(
        perflab::sim::SampleNs(perflab::sim::Dist::Exp(1e6), rng));
  }
}

// Cost per event against the number of pending events: N processes each
// waiting on a timer. A heap gives O(log N): doubling N adds a constant.
void BM_PendingEvents(benchmark::State& state) {
  const int64_t n = state.range(0);
  perflab::sim::Simulation sim;
  perflab::sim::Rng rng(42, "ticks");
  for (int64_t i = 0; i < n; ++i) sim.Spawn(Ticker(sim, rng));
  RunOneMsPerIteration(state, sim);
}
BENCHMARK(BM_PendingEvents)->RangeMultiplier(16)->Range(1 << 10, 1 << 20);

// The same with plain callback events (no coroutine frames to touch): the
// heap alone, so the growth per doubling of pending events is visible.
struct Rescheduler {
  perflab::sim::Simulation* sim;
  uint64_t x = 88172645463325252ULL;  // xorshift state: cheap delays
};
void Reschedule(void* ctx, uint64_t) {
  auto* r = static_cast<Rescheduler*>(ctx);
  r->x ^= r->x << 13;
  r->x ^= r->x >> 7;
  r->x ^= r->x << 17;
  r->sim->Schedule(
      r->sim->now() + 1 + static_cast<perflab::sim::Time>(r->x % 2'000'000),
      &Reschedule, r);
}

void BM_PendingCallbacks(benchmark::State& state) {
  const int64_t n = state.range(0);
  perflab::sim::Simulation sim;
  Rescheduler r{&sim};
  for (int64_t i = 0; i < n; ++i) Reschedule(&r, 0);
  RunOneMsPerIteration(state, sim);
}
BENCHMARK(BM_PendingCallbacks)->RangeMultiplier(16)->Range(1 << 10, 1 << 20);

perflab::sim::Process CpuCustomer(perflab::sim::Cpu& cpu,
                                  perflab::sim::Time work) {
  co_await cpu.Run(work);
}

perflab::sim::Process CpuArrivals(perflab::sim::Simulation& sim,
                                  perflab::sim::Cpu& cpu, int64_t customers) {
  perflab::sim::Rng arrivals(42, "arrivals");
  perflab::sim::Rng service(42, "service");
  for (int64_t i = 0; i < customers; ++i) {
    co_await sim.Delay(
        perflab::sim::SampleNs(perflab::sim::Dist::Exp(1000 / 0.9), arrivals));
    sim.Spawn(CpuCustomer(
        cpu, perflab::sim::SampleNs(perflab::sim::Dist::Exp(1000), service)));
  }
}

// M/M/1 at rho 0.9 (1 us mean service) on one sim::Cpu core, 100,000
// customers an iteration: processor sharing (sliced:0) against the
// time-sliced discipline with a quantum longer than every job (one slice a
// customer, the discipline's own cost) and with a quarter of the mean
// service (about four slices a customer, so more events). customers_per_s
// is the figure to compare: the same simulated work in each.
void BM_CpuMM1(benchmark::State& state) {
  perflab::sim::CpuScheduling scheduling;
  if (state.range(0) != 0) {
    scheduling.discipline = perflab::sim::CpuDiscipline::kSliced;
    scheduling.quantum_ns = state.range(1);
    scheduling.switch_ns = 50;
  }
  constexpr int64_t kCustomers = 100'000;
  double events = 0, switches = 0;
  for (auto _ : state) {
    perflab::sim::Simulation sim;
    perflab::sim::Cpu cpu(sim, 1, scheduling);
    sim.Spawn(CpuArrivals(sim, cpu, kCustomers));
    if (!sim.Run(perflab::sim::kForever).ok()) {
      state.SkipWithError("run failed");
      return;
    }
    events += static_cast<double>(sim.events_executed());
    switches += static_cast<double>(cpu.switches());
  }
  const double runs = static_cast<double>(state.iterations());
  state.counters["customers_per_s"] =
      benchmark::Counter(runs * kCustomers, benchmark::Counter::kIsRate);
  state.counters["events_per_s"] =
      benchmark::Counter(events, benchmark::Counter::kIsRate);
  state.counters["events_per_customer"] = events / (runs * kCustomers);
  state.counters["switches_per_customer"] = switches / (runs * kCustomers);
}
BENCHMARK(BM_CpuMM1)
    ->ArgNames({"sliced", "quantum_ns"})
    ->Args({0, 0})
    ->Args({1, 10'000'000})
    ->Args({1, 250})
    ->Unit(benchmark::kMillisecond);

// One closed-loop run of the capstone's order service with the seed-h2
// calibration and the case study's rig (32 clients, 8 s warm-up, 15 s
// window), as `perflab capstone` runs each step and repeat. Arg: the step
// (1 index: 81 statements a request; 4 TCP_NODELAY: one join; 7 cache).
// seed-h2 states the JVM's scheduling, so its CPU is time-sliced;
// `processor_sharing` drops that (sched_quantum_us 0), as a calibration of
// a machine without bench_sched has it (the capstone's reference one).
void RunOrderServiceSteps(benchmark::State& state, bool processor_sharing) {
  const int64_t step = state.range(0);
  perflab::sim::OrderServiceConfig config;
  config.index = step >= 1;
  config.join = step >= 2;
  config.keep_alive = step >= 3;
  config.tcp_nodelay = step >= 4;
  if (step >= 5) config.db_pool = 8;
  config.virtual_threads = step >= 6;
  config.cache = step >= 7;
  perflab::sim::Calibration calibration;
  if (processor_sharing) calibration.sched_quantum_us = 0;
  const perflab::sim::OrderServiceLoad load;
  double requests = 0, events = 0;
  for (auto _ : state) {
    auto r = perflab::sim::RunOrderService(calibration, config, load, 42);
    if (!r.ok()) {
      state.SkipWithError(std::string(r.status().message()).c_str());
      return;
    }
    // Requests completed in the measured window (warm-up not counted).
    requests += r->rps * load.duration_s;
    events += static_cast<double>(r->events);
  }
  state.counters["sim_requests_per_s"] =
      benchmark::Counter(requests, benchmark::Counter::kIsRate);
  state.counters["events_per_s"] =
      benchmark::Counter(events, benchmark::Counter::kIsRate);
  // Plain counts per run, for instruction profiles (callgrind) without timing.
  state.counters["events"] = events / static_cast<double>(state.iterations());
}

void BM_OrderService(benchmark::State& state) {
  RunOrderServiceSteps(state, false);
}
BENCHMARK(BM_OrderService)
    ->ArgName("step")
    ->Arg(1)
    ->Arg(4)
    ->Arg(7)
    ->Unit(benchmark::kMillisecond);

void BM_OrderServicePs(benchmark::State& state) {
  RunOrderServiceSteps(state, true);
}
BENCHMARK(BM_OrderServicePs)
    ->ArgName("step")
    ->Arg(1)
    ->Arg(7)
    ->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
