#include "tools/capstone/real_run.h"

#include <sched.h>
#include <sys/types.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <mutex>
#include <optional>
#include <thread>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "bench/http/load_client.h"
#include "bench/http/wrk.h"
#include "bench/order_service/customer_picker.h"
#include "bench/order_service/dataset.h"
#include "bench/order_service/orders_service_process.h"
#include "bench/order_service/server.h"
#include "core/case_study.h"
#include "core/cpu_time.h"
#include "core/parallel.h"
#include "models/cost.h"
#include "models/median.h"
#include "tools/capstone/pg_compose.h"
#include "tools/capstone/schedstat.h"
#include "tools/capstone/service_stats.h"
#include "tools/capstone/wrk_script.h"

namespace perflab::capstone {
namespace {

using models::Median;

double UsdPerMillion(double rps, int64_t vcpu) {
  if (rps <= 0) return 0;
  auto c = models::CostPerMillion(rps, static_cast<double>(vcpu),
                                  case_study::kCapstoneMemGib);
  return c.ok() ? c->usd_per_million : 0;
}

// One step's repeats, a sample per figure; the row is their medians.
struct Repeats {
  std::vector<double> rps, avg, p95, p99, open_p99, cpu, qpr, hit, db_cpu;
  std::vector<double> cpu_us, wait_us, slices;  // per request

  // One real repeat: its loops, the service's counters around the closed
  // one and the cores it used then.
  void AddRun(const http::LoadResult& closed, const http::LoadResult& opened,
              const ServiceCounters& before, const ServiceCounters& after,
              double cores) {
    auto ms = [](int64_t ns) { return static_cast<double>(ns) / 1e6; };
    rps.push_back(closed.throughput_per_s());
    avg.push_back(closed.latency_ns.Mean() / 1e6);
    p95.push_back(ms(closed.latency_ns.Percentile(95)));
    p99.push_back(ms(closed.latency_ns.Percentile(99)));
    open_p99.push_back(ms(opened.latency_ns.Percentile(99)));
    cpu.push_back(cores);
    const double pages = static_cast<double>(after.requests - before.requests);
    const double misses =
        static_cast<double>(after.cache_misses - before.cache_misses);
    const double hits =
        static_cast<double>(after.cache_hits - before.cache_hits);
    qpr.push_back(
        pages > 0 ? static_cast<double>(after.queries - before.queries) / pages
                  : 0);
    hit.push_back(hits + misses > 0 ? hits / (hits + misses) : 0);
  }

  // Fills `f`'s figures, priced at the case study's `vcpu` for the step.
  void MediansInto(RealFigures& f, int64_t vcpu) const {
    f.rps = Median(rps);
    f.rps_min = rps.empty() ? 0 : *std::min_element(rps.begin(), rps.end());
    f.rps_max = rps.empty() ? 0 : *std::max_element(rps.begin(), rps.end());
    f.avg_ms = Median(avg);
    f.p95_ms = Median(p95);
    f.p99_ms = Median(p99);
    f.open_p99_ms = Median(open_p99);
    f.cpu_cores = Median(cpu);
    f.db_cpu_cores = db_cpu.empty() ? 0 : Median(db_cpu);
    f.queries_per_request = Median(qpr);
    f.cache_hit_ratio = Median(hit);
    f.cpu_us_per_request = Median(cpu_us);
    f.wait_us_per_request = Median(wait_us);
    f.slices_per_request = Median(slices);
    f.usd_per_million = UsdPerMillion(f.rps, vcpu);
  }
};

std::vector<std::string> ServiceFlags(const sim::OrderServiceConfig& c) {
  std::vector<std::string> f;
  if (c.index) f.emplace_back("--index");
  if (c.join) f.emplace_back("--join");
  if (c.keep_alive) f.emplace_back("--keep-alive");
  if (c.tcp_nodelay) f.emplace_back("--nodelay");
  f.insert(f.end(), {"--db-pool", absl::StrCat(c.db_pool), "--threads",
                     c.virtual_threads ? std::string("virtual")
                                       : absl::StrCat(c.request_threads)});
  if (c.cache) f.emplace_back("--cache");
  if (c.heap_mib > case_study::kHeapMib) f.emplace_back("--arena");
  return f;
}

// Thread-safe customer paths: 1 + n*u^3, seeded.
struct Paths {
  std::mutex mu;
  orders::CustomerPicker picker;
  std::string Next() {
    std::unique_lock<std::mutex> lock(mu);
    return absl::StrCat("/customers/", picker.Next(), "/orders");
  }
};

// Reads the service's schedstat and /stats twice inside a closed loop of
// `window_s`, a tenth of it in from each end, when every connection's thread
// is alive (a thread per connection lives as long as its connection): its
// CPU, run-queue wait and slices per request in between. Started just
// before the loop; Take() waits for the second reading.
class SchedSampler {
 public:
  SchedSampler() = default;
  ~SchedSampler() {
    if (thread_.joinable()) thread_.join();
  }
  SchedSampler(const SchedSampler&) = delete;
  SchedSampler& operator=(const SchedSampler&) = delete;

  // A thread the system refuses (ulimit -u) is its one line: the caller
  // stops the step's service and returns it.
  absl::Status Start(pid_t pid, uint16_t port, double window_s) {
    absl::StatusOr<std::thread> t = core::StartThread(
        "the run-queue sampler's thread (capstone --real)",
        [this, pid, port, window_s] { Run(pid, port, window_s); });
    if (!t.ok()) return t.status();
    thread_ = std::move(*t);
    return absl::OkStatus();
  }

  // Per request: cpu us, wait us, slices; nullopt if a reading failed.
  std::optional<std::array<double, 3>> Take() {
    thread_.join();
    return result_;
  }

 private:
  void Run(pid_t pid, uint16_t port, double window_s) {
    using std::chrono::duration;
    const auto start = std::chrono::steady_clock::now();
    std::this_thread::sleep_until(start + duration<double>(window_s * 0.1));
    const auto b = ReadSchedstat(pid);
    const auto sb = ReadServiceStats(port);
    std::this_thread::sleep_until(start + duration<double>(window_s * 0.9));
    const auto a = ReadSchedstat(pid);
    const auto sa = ReadServiceStats(port);
    if (!b.ok() || !sb.ok() || !a.ok() || !sa.ok()) return;
    const double n = static_cast<double>(sa->requests - sb->requests);
    if (n <= 0) return;
    const ThreadSched d = SchedDelta(*b, *a);
    result_ = {static_cast<double>(d.cpu_ns) / 1e3 / n,
               static_cast<double>(d.wait_ns) / 1e3 / n,
               static_cast<double>(d.slices) / n};
  }

  std::optional<std::array<double, 3>> result_;
  std::thread thread_;
};

// The step's canary; one that cannot run says so on the progress line and
// leaves the step unscaled (a long run is not lost to it).
CanaryResult Canary(const RealOptions& o,
                    const sim::OrderServiceConfig& config) {
  absl::StatusOr<CanaryResult> c =
      RunCanary(*o.canary, o.canary_reference, config);
  if (c.ok()) return *c;
  if (o.progress) {
    o.progress(absl::StrCat("perflab capstone --real: canary not run (",
                            c.status().message(), "); this step unscaled"));
  }
  return CanaryResult{};
}

// The line after each step's real runs: its RPS, canary and time so far.
std::string ProgressLine(const RealOptions& o, const RealComparison& out,
                         std::chrono::steady_clock::time_point started) {
  const size_t i = out.real.size() - 1;
  return absl::StrCat(
      "perflab capstone --real: step ", i + 1, "/", o.steps.size(), " (",
      std::string(o.steps[i]->name), ") ", std::llround(out.real[i].rps),
      " req/s",
      out.canaries.empty()
          ? std::string()
          : absl::StrFormat(", canary x%.3f", out.canaries.back().ratio),
      ", ",
      std::llround(std::chrono::duration<double>(
                       std::chrono::steady_clock::now() - started)
                       .count()),
      " s elapsed");
}

}  // namespace

RealOptions QuickRealOptions(RealOptions o) {
  o.repeats = 1;
  o.warmup_s = 1;
  o.closed_s = 3;
  o.open_s = 3;
  o.wrk_s = 2;
  return o;
}

bool HasCppParts(const sim::Calibration& c) { return c.cpp_front_end_us > 0; }

namespace {

// What sharing costs on top of each part alone, at the step's thread count
// (a thread per connection is beyond the measured 16, so it takes the
// 16-thread figure): the counters on every request, the lookup with the
// cache, and on a miss the pool's borrow and return and the page's
// allocations (none on the global heap with the arena).
void AddContention(const sim::OrderServiceConfig& config, sim::Calibration& c) {
  using sim::SharedPart;
  const int64_t threads = config.virtual_threads ? 16 : config.request_threads;
  c.other_cpu_us += sim::ContentionUs(c, SharedPart::kStats, threads);
  if (config.cache) {
    c.cache_hit_us += sim::ContentionUs(c, SharedPart::kCache, threads);
  }
  const bool arena = config.heap_mib > case_study::kHeapMib;
  c.inventory_cpu_us +=
      sim::ContentionUs(c, SharedPart::kPool, threads) +
      (arena ? 0 : sim::ContentionUs(c, SharedPart::kPage, threads));
}

}  // namespace

sim::Calibration CppService(sim::Calibration c,
                            const sim::OrderServiceConfig& config) {
  // The real service is C++: no garbage collector, so nothing allocated is
  // ever collected.
  c.alloc_per_request_mib = 0;
  // Nor the case study's JVM figures, which its table gives: the database is
  // SQLite in the service's own process, so a join holds its connection for
  // the join's CPU alone (join_index_us, measured on that database), and
  // each vCPU does a core's work, with no JVM to share it.
  c.join_hold_ms = 0;
  c.effective_cores = static_cast<double>(sim::OrderServiceConfig{}.cores);
  if (!HasCppParts(c)) {
    // Not measured (a calibration without the parts' benchmarks): the front
    // end is taken as the server's half of a kept-alive loopback request,
    // which bench_net times with both ends in one process.
    c.other_cpu_us = c.inventory_cpu_us / 2;
    return c;
  }
  // Every request crosses the front end; a pooled one is also handed from
  // the poller to a worker. The lookup, the join, the serialisation and the
  // inventory call are the model's own fields, measured alone. What a miss
  // adds beyond them (the page's object graph, the thread woken when the
  // stub's 5 ms sleep ends) goes with the inventory call, which every miss
  // makes once.
  c.other_cpu_us =
      c.cpp_front_end_us + (config.virtual_threads ? 0 : c.cpp_handoff_us);
  const bool arena = config.heap_mib > case_study::kHeapMib;
  c.inventory_cpu_us += c.cpp_idle_wake_us + (arena ? c.cpp_build_page_arena_us
                                                    : c.cpp_build_page_us);
  AddContention(config, c);
  if (c.cpp_generator_cpu_us > 0) {
    c.generator_cpu_per_request_us = c.cpp_generator_cpu_us;
  }
  return c;
}

CppWholeAndParts CompareCppParts(const sim::Calibration& c) {
  CppWholeAndParts out;
  for (bool pooled : {true, false}) {
    sim::OrderServiceConfig config;
    config.index = config.join = config.keep_alive = config.tcp_nodelay = true;
    config.virtual_threads = !pooled;
    const sim::Calibration parts = CppService(c, config);
    const double response = parts.serialize_us + parts.gzip_us;
    // BM_OrdersService's hit runs are all hits (the cache filled first); its
    // miss runs have no cache at all, so no lookup.
    const double hit = parts.other_cpu_us + parts.cache_hit_us + response;
    const double miss = parts.other_cpu_us + parts.join_index_us +
                        parts.inventory_cpu_us + response;
    out.rows.push_back(
        {pooled ? "hit, 16 threads" : "hit, thread per connection",
         pooled ? c.cpp_hit_pooled_us : c.cpp_hit_per_connection_us, hit});
    out.rows.push_back(
        {pooled ? "miss, 16 threads" : "miss, thread per connection",
         pooled ? c.cpp_miss_pooled_us : c.cpp_miss_per_connection_us, miss});
  }
  return out;
}

absl::StatusOr<std::vector<RealFigures>> ComposeScaled(const RealOptions& o) {
  // Every figure is a median of the repeats, and no repeats have none.
  if (o.repeats < 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "capstone --real: repeats = ", o.repeats, "; accepted: >= 1"));
  }
  std::vector<RealFigures> out;
  // Like for like: the generator has one core here, as the service does.
  const int64_t customers =
      static_cast<int64_t>(std::llround(case_study::kCustomers * o.scale));
  const std::vector<sim::OrderServiceConfig> configs =
      CumulativeConfigs(o.steps);
  for (size_t i = 0; i < configs.size(); ++i) {
    sim::OrderServiceConfig config = configs[i];
    const int64_t priced_vcpu = config.cores;
    config.cores = 1;  // scaled: the service gets one core here
    // Its repository borrows a connection once for the page's statements.
    config.page_on_one_connection = true;
    const double scale = i < o.step_scale.size() ? o.step_scale[i] : 1.0;
    sim::Calibration calibration =
        CppService(ScaleCosts(o.calibration, scale), config);
    if (o.db == "postgres") calibration = OnPostgres(calibration);
    calibration.generator_cores = 1;
    Repeats rep;
    for (int r = 0; r < o.repeats; ++r) {
      sim::OrderServiceLoad closed{.clients = o.clients,
                                   .warmup_s = o.warmup_s,
                                   .duration_s = o.closed_s,
                                   .customers = customers};
      auto c = sim::RunOrderService(calibration, config, closed,
                                    o.seed + static_cast<uint64_t>(r));
      if (!c.ok()) return c.status();
      sim::OrderServiceLoad open = closed;
      open.open = true;
      open.rate_per_s = o.open_rate_per_s;
      open.duration_s = o.open_s;
      // As for real: the open loop follows the closed one in the same
      // service, so it starts on the cache the closed loop left.
      sim::StartOnClosedLoopsCache(closed, c->rps, open);
      auto p = sim::RunOrderService(calibration, config, open,
                                    o.seed + static_cast<uint64_t>(r));
      if (!p.ok()) return p.status();
      rep.rps.push_back(c->rps);
      rep.avg.push_back(c->avg_ms);
      rep.p95.push_back(c->p95_ms);
      rep.p99.push_back(c->p99_ms);
      rep.open_p99.push_back(p->p99_ms);
      rep.cpu.push_back(c->cpu_cores);
      rep.db_cpu.push_back(c->cpu.database);
      rep.qpr.push_back(c->queries_per_request);
      rep.hit.push_back(c->cache_hit_ratio);
      rep.cpu_us.push_back(c->cpu_us_per_request);
      rep.wait_us.push_back(c->run_queue_wait_us_per_request);
      rep.slices.push_back(c->slices_per_request);
    }
    RealFigures f;
    rep.MediansInto(f, priced_vcpu);
    out.push_back(f);
  }
  return out;
}

namespace {

// The CPUs of a set, in order.
std::vector<int> CpusOf(const cpu_set_t& set) {
  std::vector<int> cpus;
  for (int c = 0; c < CPU_SETSIZE; ++c) {
    if (CPU_ISSET(c, &set)) cpus.push_back(c);
  }
  return cpus;
}

// wrk against the step's service, the witness of its first repeat. Spawned
// from the calling thread, wrk inherits the generator's core.
void RunWrkWitness(uint16_t port, const WrkScript& script, const RealOptions& o,
                   RealFigures& f) {
  absl::StatusOr<http::WrkResult> w =
      http::RunWrk({.url = absl::StrCat("http://127.0.0.1:", port, "/"),
                    .script = script.path(),
                    .threads = 1,
                    .connections = o.clients,
                    .duration_s = std::max(1.0, std::round(o.wrk_s))});
  if (w.ok()) {
    f.wrk_rps = w->requests_per_s;
    f.wrk_p99_ms = w->p99_ms;
  }
}

}  // namespace

namespace {

// The protocol's own options, checked before any service starts.
absl::Status CheckRealOptions(const RealOptions& o) {
  if (o.steps.empty() || o.repeats < 1 || o.clients < 1 || !(o.closed_s > 0) ||
      !(o.open_s > 0) || !(o.warmup_s >= 0) || !(o.open_rate_per_s > 0)) {
    return absl::InvalidArgumentError(
        "capstone --real: accepted steps, repeats >= 1, clients >= 1 and "
        "positive durations and rate");
  }
  return CheckDb(o.db);
}

// What every step's services share: the dataset, the CPUs this process
// may use (restored after each repeat and at the end) and the wrk script.
struct RealRig {
  std::string dataset;
  int64_t customers = 0;
  cpu_set_t original;
  // With two CPUs or more, the service gets one (--cores 1) and this
  // thread, the load generator, another.
  bool split = false;
  // The service may run on any of them (it pins itself with --cores), not
  // only on the generator's core this thread is pinned to while it runs.
  std::vector<int> any_cpu;
  std::vector<std::string> common;  // the service's flags at every step
  std::optional<WrkScript> script;  // removed with its directory
};

// Generates the dataset unless it is there, reads this process's CPUs and,
// with wrk, writes its script.
absl::StatusOr<RealRig> PrepareRig(const RealOptions& o) {
  RealRig rig;
  rig.dataset =
      o.dataset.empty() ? orders::DefaultDatasetPath(o.scale) : o.dataset;
  absl::StatusOr<orders::BuildReport> built =
      orders::EnsureDataset(rig.dataset, {.scale = o.scale});
  if (!built.ok()) return built.status();
  rig.customers = built->shape.customers;
  CPU_ZERO(&rig.original);
  ::sched_getaffinity(0, sizeof rig.original, &rig.original);
  rig.split = CPU_COUNT(&rig.original) >= 2;
  rig.any_cpu = CpusOf(rig.original);
  rig.common = {"--dataset", rig.dataset, "--scale", absl::StrCat(o.scale)};
  if (rig.split) rig.common.insert(rig.common.end(), {"--cores", "1"});
  if (o.wrk) {
    absl::StatusOr<WrkScript> made = WrkScript::Create(rig.customers, o.seed);
    if (!made.ok()) return made.status();
    rig.script = *std::move(made);
  }
  return rig;
}

void RestoreAffinity(const RealRig& rig) {
  ::sched_setaffinity(0, sizeof rig.original, &rig.original);
}

// What is read on either side of the closed loop: the service's /stats
// and CPU, its database's CPU, and this process's, which is the load
// generator's (the service is a child and wrk is not waited for here).
struct Readings {
  absl::StatusOr<ServiceCounters> stats;
  double service_cpu_s = 0, db_cpu_s = 0, self_cpu_s = 0;
};

struct ClosedLoop {
  absl::StatusOr<http::LoadResult> result;
  Readings before, after;
};

// The recorded closed loop, with the run-queue sampler beside it (its
// figures go into `rep`). Its error is the sampler's thread, refused; the
// loop's and the readings' errors are in the result.
absl::StatusOr<ClosedLoop> RunClosedLoop(
    const RealOptions& o, const orders::OrdersServiceProcess& child,
    http::LoadOptions load, Repeats& rep) {
  ClosedLoop c;
  c.before.stats = ReadServiceStats(child.port());
  c.before.service_cpu_s = child.CpuSeconds();
  c.before.db_cpu_s = child.DatabaseCpuSeconds();
  c.before.self_cpu_s = core::ProcessCpuSeconds();
  load.duration_s = o.closed_s;
  SchedSampler sampler;
  if (absl::Status s = sampler.Start(child.pid(), child.port(), o.closed_s);
      !s.ok()) {
    return s;
  }
  c.result = http::RunLoad(load);
  if (const auto per = sampler.Take(); per.has_value()) {
    rep.cpu_us.push_back((*per)[0]);
    rep.wait_us.push_back((*per)[1]);
    rep.slices.push_back((*per)[2]);
  }
  c.after.self_cpu_s = core::ProcessCpuSeconds();
  c.after.service_cpu_s = child.CpuSeconds();
  c.after.db_cpu_s = child.DatabaseCpuSeconds();
  c.after.stats = ReadServiceStats(child.port());
  return c;
}

// The first failure among a repeat's loops and readings.
absl::Status FirstFailure(const ClosedLoop& closed,
                          const absl::StatusOr<http::LoadResult>& opened) {
  if (!closed.result.ok()) return closed.result.status();
  if (!opened.ok()) return opened.status();
  if (!closed.before.stats.ok()) return closed.before.stats.status();
  return closed.after.stats.status();
}

// A repeat's figures into the step's: its loops and counters into `rep`,
// its errors into `f`, the generator's CPU per request sent into
// `generator_us`.
void AddRepeat(const RealOptions& o, const ClosedLoop& closed,
               const http::LoadResult& opened, Repeats& rep, RealFigures& f,
               std::vector<double>& generator_us) {
  const Readings& b = closed.before;
  const Readings& a = closed.after;
  // PostgreSQL's server processes work for the service: its CPU includes
  // theirs, shown apart too.
  const double db_cores = (a.db_cpu_s - b.db_cpu_s) / o.closed_s;
  rep.AddRun(*closed.result, opened, *b.stats, *a.stats,
             (a.service_cpu_s - b.service_cpu_s) / o.closed_s + db_cores);
  rep.db_cpu.push_back(db_cores);
  f.errors += closed.result->errors() + opened.errors();
  if (closed.result->sent > 0) {
    generator_us.push_back((a.self_cpu_s - b.self_cpu_s) * 1e6 /
                           static_cast<double>(closed.result->sent));
  }
}

// One repeat of a step on a service of its own: a warm-up, the recorded
// closed loop, then the open loop on the cache the closed one left. The
// first repeat also runs wrk, the witness.
absl::Status RunRealRepeat(const RealOptions& o, const RealRig& rig,
                           const std::vector<std::string>& flags, int r,
                           Repeats& rep, RealFigures& f,
                           std::vector<double>& generator_us) {
  absl::StatusOr<orders::OrdersServiceProcess> child =
      orders::OrdersServiceProcess::Start(o.service_binary, flags, rig.any_cpu,
                                          o.db);
  if (!child.ok()) return child.status();
  if (rig.split) (void)orders::PinToFirstCpus(1);  // the generator's core
  Paths paths{
      .mu = {},
      .picker = {rig.customers, true, o.seed + static_cast<uint64_t>(r)}};
  http::LoadOptions load;
  load.port = child->port();
  load.connections = o.clients;
  load.timeout_ms = 30'000;
  load.next_path = [&paths] { return paths.Next(); };
  load.duration_s = o.warmup_s > 0 ? o.warmup_s : 0.1;
  (void)http::RunLoad(load);  // warm-up, discarded
  absl::StatusOr<ClosedLoop> closed = RunClosedLoop(o, *child, load, rep);
  if (!closed.ok()) return closed.status();
  http::LoadOptions open = load;
  open.open_loop = true;
  open.rate_per_s = o.open_rate_per_s;
  open.duration_s = o.open_s;
  absl::StatusOr<http::LoadResult> opened = http::RunLoad(open);
  if (absl::Status s = FirstFailure(*closed, opened); !s.ok()) return s;
  AddRepeat(o, *closed, *opened, rep, f, generator_us);
  if (r == 0 && rig.script.has_value()) {
    RunWrkWitness(child->port(), *rig.script, o, f);
  }
  RestoreAffinity(rig);
  return absl::OkStatus();
}

// One step's row: the medians of its repeats.
absl::StatusOr<RealFigures> RunRealStep(const RealOptions& o,
                                        const RealRig& rig,
                                        const sim::OrderServiceConfig& config,
                                        std::vector<double>& generator_us) {
  std::vector<std::string> flags = ServiceFlags(config);
  flags.insert(flags.end(), rig.common.begin(), rig.common.end());
  Repeats rep;
  RealFigures f;
  for (int r = 0; r < o.repeats; ++r) {
    absl::Status s = RunRealRepeat(o, rig, flags, r, rep, f, generator_us);
    if (!s.ok()) return s;
  }
  rep.MediansInto(f, config.cores);
  return f;
}

// The composed side: the model at the same steps, each step's costs scaled
// by its canary, and the C++ service's whole against its parts.
absl::Status AddComposed(const RealOptions& o, RealComparison& out) {
  RealOptions scaled = o;
  for (const CanaryResult& c : out.canaries) {
    scaled.step_scale.push_back(c.ratio);
  }
  absl::StatusOr<std::vector<RealFigures>> composed = ComposeScaled(scaled);
  if (!composed.ok()) return composed.status();
  out.composed = std::move(*composed);
  out.whole_and_parts = CompareCppParts(o.calibration);
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<RealComparison> RunReal(const RealOptions& o) {
  if (absl::Status s = CheckRealOptions(o); !s.ok()) return s;
  absl::StatusOr<RealRig> rig = PrepareRig(o);
  if (!rig.ok()) return rig.status();
  RealComparison out;
  out.steps = o.steps;
  out.db = o.db;
  const auto started = std::chrono::steady_clock::now();
  std::vector<double> generator_us;  // this process's CPU per request sent
  absl::Status failure = absl::OkStatus();
  for (const sim::OrderServiceConfig& config : CumulativeConfigs(o.steps)) {
    if (o.canary.has_value()) out.canaries.push_back(Canary(o, config));
    absl::StatusOr<RealFigures> f = RunRealStep(o, *rig, config, generator_us);
    if (!f.ok()) {
      failure = f.status();
      break;
    }
    out.real.push_back(*f);
    if (o.progress) o.progress(ProgressLine(o, out, started));
  }
  RestoreAffinity(*rig);
  if (!failure.ok()) return failure;
  out.service_cores = 1;
  out.generator_cores = rig->split ? 1 : 0;
  // Shown beside the calibration's cpp_generator_cpu_us; the composed side
  // never reads a figure of this run.
  if (!generator_us.empty()) {
    out.generator_cpu_per_request_us = Median(generator_us);
  }
  if (absl::Status s = AddComposed(o, out); !s.ok()) return s;
  return out;
}

}  // namespace perflab::capstone
