// order-service (capstone chapter): the case study's service as one model.
// A request's story, top to bottom (Serve below): a request thread (16
// platform threads, or virtual threads: no cap) -> with the cache on, a lookup
// that serves a hit -> on a miss the inventory call (a 5 ms stub in the same
// JVM; Connection: close pays a new connection, keep-alive without
// TCP_NODELAY pays the Nagle stall) -> 81 statements or 1, each on a pooled
// connection held while its CPU runs -> serialisation -> response. All of it
// shares the application's cores with the GC threads; a young pause stops
// every thread at a safepoint. The load generator has cores of its own.
#include "sim/order_service/model.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <optional>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "sim/cache.h"
#include "sim/cpu.h"
#include "sim/database.h"
#include "sim/gc.h"
#include "sim/http.h"
#include "sim/load.h"
#include "sim/random.h"
#include "sim/resource.h"

namespace perflab::sim {
namespace {

// The app's HTTP client: http.maxConnections=256 in the case study's code.
constexpr int64_t kClientConnections = 256;
// The vCPU count the calibration's effective_cores is quoted for.
constexpr double kCalibratedVcpus = 8;

// Whole cores of work for `config.cores` vCPUs, at least one.
int64_t AppCores(const Calibration& cal, const OrderServiceConfig& config) {
  const double cores = cal.effective_cores * static_cast<double>(config.cores) /
                       kCalibratedVcpus;
  return std::max<int64_t>(1, std::llround(cores));
}

Time Us(double us) { return static_cast<Time>(std::llround(us * 1e3)); }

// Thread ids the model gives the sliced CPU: the pool's workers are 1..N;
// a request with a thread of its own (virtual threads) gets one above them.
constexpr uint64_t kOwnThreadBase = uint64_t{1} << 32;

struct Service {
  Simulation& sim;
  const Calibration& cal;
  const OrderServiceConfig& config;
  Cpu& cpu;
  Gc& gc;
  Database& db;
  HttpClient& http;
  Resource* threads;  // nullptr: virtual threads
  Cache* cache;       // nullptr: no cache
  int64_t customers;
  Rng keys;
  // Request work varies (JIT, caches, row counts, scheduling): each CPU piece
  // is lognormal around its calibrated mean, with the calibration's cv,
  // drawn from a generator the sampler owns (stream "order/work").
  LognormalDraws work_times;
  // The pool's idle workers, longest idle first (a condition variable wakes
  // its waiters in order), and the next thread of a request of its own.
  std::deque<uint64_t> idle_workers = {};
  uint64_t next_own_thread = kOwnThreadBase;
};

Time Work(Service& s, double mean_us) {
  if (mean_us <= 0) return 0;
  return s.work_times.SampleNs(mean_us * 1e3);
}

Task<bool> Serve(Service& s, int64_t customer, uint64_t thread) {
  const Calibration& c = s.cal;
  constexpr int64_t kWs = Cpu::kDefaultWorkingSet;
  s.gc.Allocate(c.alloc_per_request_mib);
  co_await s.cpu.Run(Work(s, c.other_cpu_us), CpuUse::kOther, kWs, thread);
  if (s.cache != nullptr) {
    co_await s.cpu.Run(Work(s, c.cache_hit_us), CpuUse::kOther, kWs, thread);
    if (s.cache->Get(customer, s.sim.now())) {
      co_await s.cpu.Run(Work(s, c.serialize_us + c.gzip_us),
                         CpuUse::kSerialisation, kWs, thread);
      co_return true;
    }
  }
  // Results are named before testing them: GCC 12 miscompiles
  // `if (!co_await ...) co_return` in some coroutines.
  const bool answered =
      co_await s.http.Call(MsToNs(c.inventory_service_ms), thread);
  if (!answered) co_return false;
  const bool index = s.config.index;
  const double first =
      s.config.join
          ? (index ? c.join_index_us : c.join_scan_us)
          : (index ? c.orders_query_index_us : c.orders_query_scan_us);
  const int64_t more = s.config.join ? 0 : kItemStatements;
  const Time join_hold = s.config.join ? MsToNs(c.join_hold_ms) : 0;
  if (s.config.page_on_one_connection) {
    std::vector<Time> works;
    works.reserve(static_cast<size_t>(more) + 1);
    for (int64_t i = 0; i <= more; ++i) {
      works.push_back(Work(s, i == 0 ? first : c.item_statement_us));
    }
    const bool ran =
        co_await s.db.Statements(std::move(works), join_hold, thread);
    if (!ran) co_return false;
  }
  // The page's statements, each on a connection of its own; a series runs
  // those that follow one another without an event between in place.
  const double item = c.item_statement_us;
  for (int64_t i = 0; !s.config.page_on_one_connection && i <= more;) {
    const Database::SeriesStep step = co_await s.db.StatementSeries(
        Work(s, i == 0 ? first : item), more - i,
        [&s, item] { return Work(s, item); }, join_hold, thread);
    if (!step.ok) co_return false;
    i += step.ran;
  }
  if (s.cache != nullptr) s.cache->Put(customer, s.sim.now());
  co_await s.cpu.Run(Work(s, c.serialize_us + c.gzip_us),
                     CpuUse::kSerialisation, kWs, thread);
  co_return true;
}

Task<bool> Handle(Service& s) {
  const int64_t customer = SkewedKey(s.customers, s.keys);
  uint64_t thread = 0;
  if (s.threads != nullptr) {
    co_await s.threads->Acquire();  // Tomcat's accept queue: no timeout
    thread = s.idle_workers.front();
    s.idle_workers.pop_front();
    co_await s.gc.Safepoint();
  } else {
    thread = s.next_own_thread++;
  }
  const bool ok = co_await Serve(s, customer, thread);
  if (s.threads != nullptr) {
    s.idle_workers.push_back(thread);
    s.threads->Release();
  }
  co_return ok;
}

absl::Status Validate(const Calibration& cal, const OrderServiceConfig& c,
                      const OrderServiceLoad& l) {
  for (const CalibrationField& f : CalibrationFields()) {
    const double v = cal.*f.member;
    if (!std::isfinite(v) || v < 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "calibration field '", std::string(f.name), "' = ", v,
          ": accepted a finite number >= 0 (", std::string(f.unit), ")"));
    }
  }
  if (cal.effective_cores < 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "calibration field 'effective_cores' = ", cal.effective_cores,
        ": accepted a number >= 1"));
  }
  for (const double Calibration::*m :
       {&Calibration::sched_quantum_us, &Calibration::sched_switch_us,
        &Calibration::sched_refill_16kib_us,
        &Calibration::sched_refill_64kib_us,
        &Calibration::sched_refill_256kib_us,
        &Calibration::sched_refill_1mib_us}) {
    if (cal.*m > 1e6) {
      for (const CalibrationField& f : CalibrationFields()) {
        if (f.member != m) continue;
        return absl::InvalidArgumentError(
            absl::StrCat("calibration field '", std::string(f.name),
                         "' = ", cal.*m, ": accepted 0 to 1e6 (us)"));
      }
    }
  }
  if (absl::Status s = ValidateContention(cal); !s.ok()) return s;
  if (cal.sched_quantum_us > 0 && cal.handler_working_set_kib > 1024) {
    return absl::InvalidArgumentError(absl::StrCat(
        "calibration field 'handler_working_set_kib' = ",
        cal.handler_working_set_kib,
        ": accepted 0 to 1024 (the refill curve's range, in KiB)"));
  }
  if (cal.generator_cores < 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "calibration field 'generator_cores' = ", cal.generator_cores,
        ": accepted a number >= 1"));
  }
  if (c.db_pool < 1 || c.request_threads < 1 || c.cores < 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "order service: db_pool = ", c.db_pool, ", request_threads = ",
        c.request_threads, ", cores = ", c.cores, ": each must be >= 1"));
  }
  if (l.clients < 1 || !(l.rate_per_s > 0) || !(l.warmup_s >= 0) ||
      !(l.duration_s > 0) || l.customers < 1 || l.cache_prewarm_requests < 0 ||
      !(l.cache_prewarm_s >= 0) || !std::isfinite(l.cache_prewarm_s)) {
    return absl::InvalidArgumentError(
        "order service load: clients >= 1, rate_per_s > 0, warmup_s >= 0, "
        "duration_s > 0, customers >= 1 and a finite cache prewarm >= 0 "
        "required");
  }
  return absl::OkStatus();
}

// The application CPU's figures over the window of `window_s`.
void FillCpu(const Cpu& cpu, int64_t completed, double window_s,
             OrderServiceResult& r) {
  r.cpu_cores = cpu.CoresUsed();
  r.cpu.database = cpu.CoresUsedFor(CpuUse::kDatabase);
  r.cpu.http = cpu.CoresUsedFor(CpuUse::kHttp);
  r.cpu.serialisation = cpu.CoresUsedFor(CpuUse::kSerialisation);
  r.cpu.gc = cpu.CoresUsedFor(CpuUse::kGc);
  r.cpu.other = cpu.CoresUsedFor(CpuUse::kOther);
  r.scheduling_cores = cpu.CoresUsedFor(CpuUse::kScheduling);
  if (completed <= 0) return;
  const double n = static_cast<double>(completed);
  r.cpu_us_per_request = r.cpu_cores * window_s * 1e6 / n;
  r.run_queue_wait_us_per_request =
      static_cast<double>(cpu.run_queue_wait_ns()) / 1e3 / n;
  r.slices_per_request = static_cast<double>(cpu.slices()) / n;
}

}  // namespace

CpuScheduling SchedulingOf(const Calibration& c) {
  CpuScheduling s;
  if (!(c.sched_quantum_us > 0)) return s;
  s.discipline = CpuDiscipline::kSliced;
  s.quantum_ns = std::max<Time>(1, Us(c.sched_quantum_us));
  s.switch_ns = Us(c.sched_switch_us);
  s.refill = {{0, 0},
              {16 << 10, Us(c.sched_refill_16kib_us)},
              {64 << 10, Us(c.sched_refill_64kib_us)},
              {256 << 10, Us(c.sched_refill_256kib_us)},
              {1 << 20, Us(c.sched_refill_1mib_us)}};
  s.working_set_bytes =
      static_cast<int64_t>(std::llround(c.handler_working_set_kib * 1024));
  return s;
}

void StartOnClosedLoopsCache(const OrderServiceLoad& closed, double closed_rps,
                             OrderServiceLoad& open) {
  open.cache_prewarm_s = closed.warmup_s + closed.duration_s;
  open.cache_prewarm_requests = std::llround(closed_rps * open.cache_prewarm_s);
}

bool ReadsField(const OrderServiceConfig& config, double Calibration::*member) {
  using C = Calibration;
  const bool nplus1 = !config.join;
  if (member == &C::orders_query_scan_us) return nplus1 && !config.index;
  if (member == &C::orders_query_index_us) return nplus1 && config.index;
  if (member == &C::item_statement_us) return nplus1;
  if (member == &C::join_scan_us) return config.join && !config.index;
  if (member == &C::join_index_us) return config.join && config.index;
  if (member == &C::join_hold_ms) return config.join;
  if (member == &C::cache_hit_us) return config.cache;
  if (member == &C::nagle_stall_ms) {
    return config.keep_alive && !config.tcp_nodelay;
  }
  // The C++ service's figures: capstone --real folds them into the others.
  if (member == &C::cpp_hit_pooled_us ||
      member == &C::cpp_hit_per_connection_us ||
      member == &C::cpp_miss_pooled_us ||
      member == &C::cpp_miss_per_connection_us ||
      member == &C::cpp_front_end_us || member == &C::cpp_handoff_us ||
      member == &C::cpp_idle_wake_us || member == &C::cpp_build_page_us ||
      member == &C::cpp_build_page_arena_us ||
      member == &C::cpp_generator_cpu_us) {
    return false;
  }
  // connect_us too: keep-alive still opens its first connections.
  return true;  // read on every request or by the GC and the generator
}

bool SameRun(const Calibration& a, const Calibration& b,
             const OrderServiceConfig& config) {
  for (const CalibrationField& f : CalibrationFields()) {
    if (!ReadsField(config, f.member)) continue;
    if (f.member == &Calibration::effective_cores) {
      if (AppCores(a, config) != AppCores(b, config)) return false;
    } else if (f.member == &Calibration::generator_cores) {
      if (std::llround(a.generator_cores) != std::llround(b.generator_cores))
        return false;
    } else if (a.*f.member != b.*f.member) {
      return false;
    }
  }
  return true;
}

namespace {

// The JVM's G1 collector at the step's heap, with the calibration's pauses.
GcOptions GcOptionsOf(const Calibration& cal,
                      const OrderServiceConfig& config) {
  GcOptions go;
  go.heap_mib = config.heap_mib;
  go.live_set_mib = cal.live_set_mib;
  go.pause_base_ms = cal.young_pause_base_ms;
  go.pause_per_young_mib_ms = cal.young_pause_per_mib_ms;
  go.concurrent_cpu_per_mib_us = cal.gc_concurrent_cpu_per_mib_us;
  go.initiating_occupancy = kG1InitiatingOccupancy;
  return go;
}

// The inventory call's HTTP client, at the step's keep-alive and
// TCP_NODELAY.
HttpOptions HttpOptionsOf(const Calibration& cal,
                          const OrderServiceConfig& config) {
  HttpOptions ho;
  ho.keep_alive = config.keep_alive;
  ho.tcp_nodelay = config.tcp_nodelay;
  ho.call = 0;     // a call's time is its CPU plus the stub's service time
  ho.connect = 0;  // and a new connection's is its CPU (connect_us)
  ho.call_cpu = Us(cal.inventory_cpu_us);
  ho.connect_cpu = Us(cal.connect_us);
  ho.delayed_ack = MsToNs(cal.nagle_stall_ms);
  ho.max_connections = kClientConnections;
  return ho;
}

// Replays the earlier loop's ids before time 0: a write on each miss, so an
// entry keeps its first write (expire-after-write) as it did.
void PrewarmCache(Cache& cache, const OrderServiceLoad& load, uint64_t seed) {
  Rng prewarm(seed, "order/prewarm");
  const double n = static_cast<double>(load.cache_prewarm_requests);
  for (int64_t i = 0; i < load.cache_prewarm_requests; ++i) {
    const Time at = -SecToNs(load.cache_prewarm_s *
                             (1 - (static_cast<double>(i) + 0.5) / n));
    const int64_t key = SkewedKey(load.customers, prewarm);
    if (!cache.Get(key, at)) cache.Put(key, at);
  }
}

// The rig's load: closed clients or an open rate until the window ends,
// each request costing the generator's own cores.
LoadOptions LoadOptionsOf(const Calibration& cal, const OrderServiceLoad& load,
                          const Meter& meter, Cpu& generator) {
  LoadOptions lo;
  lo.kind =
      load.open ? LoadOptions::Kind::kConstant : LoadOptions::Kind::kClosed;
  lo.clients = load.clients;
  lo.stagger = MsToNs(cal.inventory_service_ms);
  lo.rate_per_s = load.rate_per_s;
  lo.end = meter.window_end();
  lo.generator = &generator;
  lo.generator_cpu = Us(cal.generator_cpu_per_request_us);
  return lo;
}

// At the end of the warm-up: every figure is the window's alone.
void ResetStats(Service& s, Cpu& generator) {
  s.cpu.ResetStats();
  generator.ResetStats();
  s.gc.ResetStats();
  s.db.ResetStats();
  s.http.ResetStats();
  if (s.threads != nullptr) s.threads->ResetStats();
  if (s.cache != nullptr) s.cache->ResetStats();
}

// The caps in series: capacity, mean busy and wait per request of the
// request threads (none with virtual threads) and the connection pool.
void FillCaps(const Service& s, double completed, OrderServiceResult& r) {
  auto per_request_ms = [completed](const ResourceStats& st) {
    return completed > 0 ? 1e3 * st.mean_wait_s *
                               static_cast<double>(st.grants) / completed
                         : 0.0;
  };
  r.app_cores = s.cpu.cores();
  if (s.threads != nullptr) {
    const ResourceStats st = s.threads->Stats();
    r.threads = s.threads->capacity();
    r.threads_busy = st.utilisation * static_cast<double>(r.threads);
    r.thread_wait_ms = per_request_ms(st);
  }
  const ResourceStats pool = s.db.pool().Stats();
  r.pool_busy = pool.utilisation * static_cast<double>(s.config.db_pool);
  r.pool_wait_ms = per_request_ms(pool);
}

// The window's figures once the simulation has run to its end.
OrderServiceResult Measure(const Service& s, const Meter& meter,
                           const Cpu& generator, const OrderServiceLoad& load) {
  const Summary sum = meter.Summarise();
  OrderServiceResult r;
  r.rps = sum.throughput_per_s;
  r.avg_ms = sum.mean_ms;
  r.p95_ms = sum.p95_ms;
  r.p99_ms = sum.p99_ms;
  r.queries_per_request = sum.completed > 0
                              ? static_cast<double>(s.db.stats().statements) /
                                    static_cast<double>(sum.completed)
                              : 0;
  r.cache_hit_ratio = s.cache != nullptr ? s.cache->stats().hit_ratio() : 0;
  FillCpu(s.cpu, sum.completed, load.duration_s, r);
  r.generator_utilisation =
      generator.CoresUsed() / static_cast<double>(generator.cores());
  r.gc_pauses = s.gc.stats().collections;
  r.gc_pause_total_ms = ToMs(s.gc.stats().total_pause);
  r.timeouts = s.db.stats().timeouts;
  FillCaps(s, static_cast<double>(sum.completed), r);
  r.events = s.sim.events_executed();
  if (load.latency_histogram) r.latency = meter.latencies().histogram();
  SteadyInputs steady = meter.SteadyWindow();
  if (load.open) {
    // The open loop's capacity is not known beforehand; an overloaded one
    // shows as L against lambda W and as a trend between the halves.
    steady.offered_per_s = load.rate_per_s;
  } else {
    steady.load_knob = "clients";
  }
  r.steady = CheckSteady(steady);
  return r;
}

}  // namespace

absl::StatusOr<OrderServiceResult> RunOrderService(
    const Calibration& cal, const OrderServiceConfig& config,
    const OrderServiceLoad& load, uint64_t seed) {
  if (absl::Status s = Validate(cal, config, load); !s.ok()) return s;
  Simulation sim;
  MeterOptions mo;
  mo.warmup = SecToNs(load.warmup_s);
  mo.window = SecToNs(load.duration_s);
  Meter meter(sim, mo);
  Cpu cpu(sim, AppCores(cal, config), SchedulingOf(cal));
  Cpu generator(sim, std::llround(cal.generator_cores));
  absl::StatusOr<Gc> gc = Gc::Create(sim, &cpu, GcOptionsOf(cal, config));
  if (!gc.ok()) return gc.status();
  DatabaseOptions dbo;
  dbo.pool = config.db_pool;
  dbo.round_trip = MsToNs(cal.db_round_trip_ms);
  Database db(sim, cpu, dbo, &*gc);
  HttpClient http(sim, HttpOptionsOf(cal, config), &cpu, &*gc);
  std::optional<Resource> threads;
  if (!config.virtual_threads) {
    threads.emplace(sim, "request threads", config.request_threads);
  }
  std::optional<Cache> cache;
  if (config.cache) cache.emplace(CacheOptions{});
  if (cache && load.cache_prewarm_requests > 0) {
    PrewarmCache(*cache, load, seed);
  }
  Service service{sim,
                  cal,
                  config,
                  cpu,
                  *gc,
                  db,
                  http,
                  threads ? &*threads : nullptr,
                  cache ? &*cache : nullptr,
                  load.customers,
                  Rng(seed, "order/keys"),
                  LognormalDraws(cal.work_cv, Rng(seed, "order/work"))};
  for (int64_t t = 1; threads && t <= config.request_threads; ++t) {
    service.idle_workers.push_back(static_cast<uint64_t>(t));
  }
  StartLoad(
      sim, meter, LoadOptionsOf(cal, load, meter, generator),
      [&service] { return Handle(service); }, seed);
  if (absl::Status s = sim.Run(mo.warmup); !s.ok()) return s;
  ResetStats(service, generator);
  if (absl::Status s = sim.Run(meter.window_end()); !s.ok()) return s;
  return Measure(service, meter, generator, load);
}

}  // namespace perflab::sim
