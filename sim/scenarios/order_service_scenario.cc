// order-service as an ordinary scenario: `perflab sim order-service --set
// index=1 --set join=1 ...`. Defaults are the case study's baseline step with
// the seed-h2 calibration (the Calibration struct's defaults); the capstone
// composer calls RunOrderService directly instead.
#include <algorithm>
#include <cmath>
#include <variant>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/case_study.h"
#include "sim/cpu.h"
#include "sim/order_service/model.h"
#include "sim/scenarios/internal/common.h"

namespace perflab::sim {
namespace {

OrderServiceConfig ConfigFrom(const Params& p) {
  OrderServiceConfig c;
  c.index = p.Integer("index") != 0;
  c.join = p.Integer("join") != 0;
  c.keep_alive = p.Integer("keep_alive") != 0;
  c.tcp_nodelay = p.Integer("tcp_nodelay") != 0;
  c.db_pool = p.Integer("db_pool");
  c.virtual_threads = p.Text("threads") == "virtual";
  if (!c.virtual_threads) c.request_threads = p.Integer("threads");
  c.cache = p.Integer("cache") != 0;
  c.heap_mib = p.Number("heap_mib");
  c.cores = p.Integer("cores");
  return c;
}

OrderServiceLoad LoadFrom(const Params& p) {
  OrderServiceLoad l;
  l.open = p.Text("loop") == "open";
  l.clients = p.Integer("clients");
  l.rate_per_s = p.Number("rate_per_s");
  l.warmup_s = p.Number("warmup_s");
  l.duration_s = p.Number("duration_s");
  l.customers = p.Integer("customers");
  return l;
}

// The run's figures as fields.
void SetFigures(core::Document& doc, const OrderServiceResult& r) {
  // No completed request: no latency was measured, and 0 ms would say the
  // opposite of what happened.
  const bool measured = r.rps > 0;
  auto ms = [measured](double v) {
    return measured ? core::Value(v) : core::Value();
  };
  doc.Set("rps", "throughput (req/s)", r.rps, 1);
  doc.Set("avg_ms", "mean latency (ms)", ms(r.avg_ms), 2);
  doc.Set("p95_ms", "p95 (ms)", ms(r.p95_ms), 2);
  doc.Set("p99_ms", "p99 (ms)", ms(r.p99_ms), 2);
  if (!measured) {
    doc.Note(
        "no request completed in the window: the latencies are not measured "
        "(shown as -)");
  }
  doc.Set("cpu_cores", "application CPU (cores)", r.cpu_cores, 2);
  doc.Set("queries_per_request", "statements per request",
          r.queries_per_request, 1);
  doc.Set("cache_hit_ratio", "cache hit ratio", r.cache_hit_ratio, 3);
  doc.Set("generator_utilisation", "load generator utilisation",
          r.generator_utilisation, 3);
  doc.Set("gc_pauses", "young GC pauses in the window", r.gc_pauses);
  doc.Set("gc_pause_total_ms", "total pause (ms)", r.gc_pause_total_ms, 1);
  doc.Set("timeouts", "pool acquisitions that timed out", r.timeouts);
  AddSteadyFields(doc, r.steady);
  if (r.latency) doc.Attach(std::string(kLatencyHistogram), *r.latency);
}

// The application's CPU by use, and the caps in series.
void AddCpuAndCaps(core::Document& doc, const OrderServiceResult& r,
                   const OrderServiceConfig& c) {
  core::Table& t = doc.AddTable(
      "cpu", "Application CPU by use",
      {{"use", "use"}, {"cores", "cores", 3}, {"share", "share (%)", 1}});
  const double uses[] = {r.cpu.database, r.cpu.http, r.cpu.serialisation,
                         r.cpu.gc, r.cpu.other};
  for (int u = 0; u < kCpuUses; ++u) {
    t.Add({std::string(CpuUseName(static_cast<CpuUse>(u))), uses[u],
           r.cpu_cores > 0 ? 100 * uses[u] / r.cpu_cores : 0.0});
  }
  // Caps in series: the full one is the limit; the others only add waits.
  core::Table& caps =
      doc.AddTable("caps", "Where a request waits: the caps in series",
                   {{"cap", "cap"},
                    {"capacity", "capacity"},
                    {"busy", "mean busy", 2},
                    {"busy_pct", "busy (%)", 1},
                    {"wait_ms", "wait per request (ms)", 3}});
  auto pct = [](double busy, int64_t capacity) {
    return capacity > 0 ? 100 * busy / static_cast<double>(capacity) : 0.0;
  };
  if (r.threads > 0) {
    caps.Add({std::string("request threads"), r.threads, r.threads_busy,
              pct(r.threads_busy, r.threads), r.thread_wait_ms});
  }
  caps.Add({std::string("database connections"), c.db_pool, r.pool_busy,
            pct(r.pool_busy, c.db_pool), r.pool_wait_ms});
  caps.Add({std::string("application cores"), r.app_cores, r.cpu_cores,
            pct(r.cpu_cores, r.app_cores), std::monostate{}});
}

// Every step key at its default: the case study's baseline step.
bool IsBaseline(const OrderServiceConfig& c) {
  const OrderServiceConfig baseline;
  return c.index == baseline.index && c.join == baseline.join &&
         c.keep_alive == baseline.keep_alive &&
         c.tcp_nodelay == baseline.tcp_nodelay &&
         c.db_pool == baseline.db_pool &&
         c.virtual_threads == baseline.virtual_threads &&
         c.request_threads == baseline.request_threads &&
         c.cache == baseline.cache && c.heap_mib == baseline.heap_mib &&
         c.cores == baseline.cores;
}

// The case study's baseline row, when this run is its rig: every step key
// at its default, 32 closed-loop clients or the 40 req/s open loop. The
// other steps are perflab capstone's table.
void AddBaselineRow(core::Document& doc, const OrderServiceResult& r,
                    const OrderServiceLoad& l) {
  const case_study::CapstoneStepFigures& row =
      case_study::CapstoneRow(case_study::CapstoneStep::kBaseline);
  if (!l.open && l.clients == case_study::kClosedLoopClients) {
    AddCaseStudyTable(doc,
                      {{"throughput, baseline (req/s)", row.rps, r.rps},
                       {"p95, baseline (ms)", row.p95_ms, r.p95_ms},
                       {"p99, baseline (ms)", row.p99_ms, r.p99_ms},
                       {"CPU, baseline (cores)", row.cpu_cores, r.cpu_cores},
                       {"statements per request", row.queries_per_request,
                        r.queries_per_request}});
  } else if (l.open && l.rate_per_s == case_study::kOpenLoopRatePerS) {
    AddCaseStudyTable(
        doc, {{"open-loop p99, baseline (ms)", row.open_p99_ms, r.p99_ms}});
  }
}

absl::StatusOr<core::Document> Run(const Params& p, uint64_t seed) {
  const OrderServiceConfig c = ConfigFrom(p);
  const OrderServiceLoad l = LoadFrom(p);
  Calibration cal;
  cal.db_round_trip_ms = p.Number("db_round_trip_ms");
  absl::StatusOr<OrderServiceResult> r = RunOrderService(cal, c, l, seed);
  if (!r.ok()) {
    if (absl::IsInvalidArgument(r.status()) && c.heap_mib <= cal.live_set_mib) {
      return absl::InvalidArgumentError(
          absl::StrCat("key 'heap_mib' = '", p.Text("heap_mib"),
                       "': accepted a heap above the live set of ",
                       cal.live_set_mib, " MiB"));
    }
    return r.status();
  }
  core::Document doc(absl::StrCat(
      "Order service: ",
      l.open ? absl::StrCat("open loop at ", p.Text("rate_per_s"), " req/s")
             : absl::StrCat(l.clients, " closed-loop clients"),
      ", seed-h2 calibration"));
  SetFigures(doc, *r);
  AddCpuAndCaps(doc, *r, c);
  const bool is_baseline = IsBaseline(c);
  if (is_baseline) AddBaselineRow(doc, *r, l);
  doc.Note(
      "Costs are the seed-h2 calibration: each derived from the case study's "
      "published figures (sim/order_service/calibration.h says which and "
      "how).");
  doc.Note(
      "Caps: a busy cap near 100 % is the limit; a wait is per completed "
      "request (its statements' pool waits summed). Busy cores queue as "
      "stretched work, not as a wait.");
  if (r->threads == 0) {
    doc.Note("Virtual threads: no cap on request threads.");
  }
  if (is_baseline) {
    doc.Note(
        "This is the case study's baseline; `perflab capstone` runs all ten "
        "steps and sets each beside the case study's row.");
  }
  return doc;
}

// A closed loop never runs faster than the load generator's cores allow
// (the calibration's, not a key).
double GeneratorCeilingPerS() {
  const Calibration cal;
  return std::floor(cal.generator_cores /
                    (cal.generator_cpu_per_request_us / 1e6));
}

// Statements a request runs without the cache: the N+1's page query and 80
// item queries, or one join.
double Statements(const Params& p) { return p.Integer("join") != 0 ? 1 : 81; }

// A request's CPU without the cache (ms): the framework, serialisation and
// its statements, as the calibration costs them.
double CpuPerRequestMs(const Params& p) {
  const Calibration cal;
  const bool index = p.Integer("index") != 0;
  const double statements_us =
      p.Integer("join") != 0
          ? (index ? cal.join_index_us : cal.join_scan_us)
          : (index ? cal.orders_query_index_us : cal.orders_query_scan_us) +
                80 * cal.item_statement_us;
  return (cal.other_cpu_us + cal.serialize_us + statements_us) / 1e3;
}

// A request and each of its statements as units of work, about 1e6 a second
// here. An open loop runs at rate_per_s; a closed one at most at the
// generator's ceiling, or what `cores` serve at the request's CPU (a cache
// hit is cheaper, so the cache's runs are over-counted: a bound, not a
// forecast).
double ArrivalsPerS(const Params& p) {
  if (p.Text("loop") == "open") return p.Number("rate_per_s");
  return std::min(
      GeneratorCeilingPerS(),
      static_cast<double>(p.Integer("cores")) / CpuPerRequestMs(p) * 1000);
}
// Each of them costs more the more cores there are: the time-sliced CPU's
// scheduler walks its map of the cores in use at every slice's end, and
// with many cores many are in use at once (measured with virtual threads
// at the generator's ceiling: 1.9 us a unit at cores=512, 5.9 us at 4096).
double Requests(const Params& p) {
  return (p.Number("warmup_s") + p.Number("duration_s")) * ArrivalsPerS(p) *
         (1 + Statements(p)) *
         (1 + static_cast<double>(p.Integer("cores")) / 512);
}

KeySpec Flag(std::string name, std::string help) {
  return IntKey(std::move(name), "0", 0, 1, std::move(help));
}

}  // namespace

Scenario OrderServiceScenario() {
  const OrderServiceConfig c;
  const OrderServiceLoad l;
  KeySpec threads =
      IntKey("threads", DefaultText(static_cast<double>(c.request_threads)), 1,
             1000000, "platform request threads, or virtual");
  threads.choices = {"virtual"};
  return {
      "order-service",
      "the case study's order service: one request's story on shared cores",
      {Flag("index", "1: orders(customer_id, created_at) is indexed"),
       Flag("join", "1: one join instead of the N+1's 81 statements"),
       Flag("keep_alive", "1: the inventory client reuses connections"),
       Flag("tcp_nodelay", "1: the inventory stub sets TCP_NODELAY"),
       IntKey("db_pool", DefaultText(static_cast<double>(c.db_pool)), 1, 100000,
              "pooled database connections"),
       threads, Flag("cache", "1: page cache (10,000 entries, 30 s TTL)"),
       NumKey("heap_mib", DefaultText(c.heap_mib), 1, 1e6, "JVM heap (MiB)"),
       IntKey("cores", DefaultText(static_cast<double>(c.cores)), 1, 4096,
              "the application's cores"),
       ChoiceKey("loop", "closed", {"closed", "open"},
                 "closed loop of `clients`, or open at rate_per_s"),
       IntKey("clients", DefaultText(static_cast<double>(l.clients)), 1, 100000,
              "closed-loop clients"),
       NumKey("rate_per_s", DefaultText(l.rate_per_s), 0, 1e6,
              "open loop: arrival rate (req/s)", LowerBound::kOpen),
       NumKey("warmup_s", DefaultText(l.warmup_s), 0, 86400,
              "discarded warm-up (s)"),
       NumKey("duration_s", DefaultText(l.duration_s), 0, 86400,
              "measured window (s)", LowerBound::kOpen),
       IntKey("customers", DefaultText(static_cast<double>(l.customers)), 1,
              1e9, "customer ids drawn as 1 + customers u^3"),
       NumKey("db_round_trip_ms", "0", 0, 60000,
              "network per statement (ms; 0: embedded database)"),
       MaxPendingKey()},
      Run,
      {"(warmup_s + duration_s) x arrivals_per_s x (1 + statements) x "
       "(1 + cores / 512)",
       5e6, "requests and statements", Requests,
       absl::StrCat(
           "statements = 1 with join=1, else 81; arrivals_per_s = rate_per_s "
           "for loop=open, else min(",
           DefaultText(GeneratorCeilingPerS()),
           " (the load generator), 1000 x cores / the request's CPU in ms "
           "without the cache, by index and join); 1 + cores / 512: each "
           "costs more with more cores (the scheduler's walks)"),
       [](const Params& p) {
         return absl::StrCat(
             "arrivals_per_s = ", absl::StrFormat("%.6g", ArrivalsPerS(p)),
             ", statements = ", Statements(p));
       }}};
}

const ScenarioRegistration kOrderService(OrderServiceScenario);

}  // namespace perflab::sim
