// pool-starvation and client-pool (the laws and pools chapters): open arrivals
// at several offered rates against a pool with an acquire timeout. Below pool /
// hold the pool copes; past it, pending grows until acquires time out.
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "models/little.h"
#include "sim/random.h"
#include "sim/resource.h"
#include "sim/scenarios/internal/common.h"

namespace perflab::sim {
namespace {

struct Names {
  const char* title;
  const char* hold_key;  // "hold_ms" or "call_ms"
};

Process Use(Simulation& sim, Meter& meter, Resource& pool, Time timeout,
            Time hold) {
  const Time start = sim.now();
  meter.Begin();
  const bool got = co_await pool.Acquire(timeout);
  if (got) {
    co_await sim.Delay(hold);
    pool.Release();
  }
  meter.End(start, got);
}

Process Arrivals(Simulation& sim, Meter& meter, Resource& pool, Time timeout,
                 Dist gap, Dist hold, Rng& arr, Rng& svc) {
  while (true) {
    co_await sim.Delay(SampleNs(gap, arr));
    sim.Spawn(Use(sim, meter, pool, timeout, SampleNs(hold, svc)));
  }
}

// Every `period`, one timeline row: pending acquires and timeouts so far.
Process Sample(Simulation& sim, Resource& pool, Time period, double rate,
               std::vector<std::vector<core::Value>>& rows) {
  while (true) {
    co_await sim.Delay(period);
    rows.push_back(
        {rate, ToSec(sim.now()), pool.queued(), pool.Stats().timeouts});
  }
}

// One row's figures the case-study table and the verdict need.
struct RowResult {
  double rate = 0;
  double served_per_s = 0;
  double busy = 0;  // mean connections in use
  int64_t timeouts = 0;
};

// The case study's figures, only when the pool and hold time are its own.
std::vector<CaseStudyRow> CaseStudyRows(const Params& p, Names n,
                                        const std::vector<RowResult>& rows) {
  namespace cs = case_study;
  std::vector<CaseStudyRow> out;
  const int64_t size = p.Integer("pool");
  const double hold_ms = p.Number(n.hold_key);
  // The highest offered rate: past the ceiling, what the pool still serves.
  const RowResult* top = nullptr;
  for (const RowResult& r : rows) {
    if (top == nullptr || r.rate > top->rate) top = &r;
  }
  if (std::string(n.hold_key) == "hold_ms") {
    if (size != cs::kDbPoolSize || hold_ms != cs::kDbHoldMs) return out;
    for (const RowResult& r : rows) {
      if (r.rate != cs::kPoolStarvationFineRatePerS) continue;
      // "Fine at 100 req/s": L = 100 x 0.05 = 5 connections busy, no timeout.
      out.push_back({"connections busy at 100 req/s",
                     cs::kPoolStarvationFineRatePerS * cs::kDbHoldMs / 1e3,
                     r.busy});
      out.push_back(
          {"timeouts at 100 req/s", 0, static_cast<double>(r.timeouts)});
    }
    if (top != nullptr && top->rate >= cs::kPoolStarvationPeakRatePerS) {
      out.push_back({"served at or past 200 req/s offered (req/s)",
                     cs::kPoolStarvationPeakRatePerS, top->served_per_s});
    }
    return out;
  }
  if (size != cs::kClientPoolConnections || hold_ms != cs::kClientPoolCallMs) {
    return out;
  }
  for (const RowResult& r : rows) {
    if (r.rate != cs::kClientPoolOfferedPerS) continue;
    out.push_back({"served at 1,000 calls/s offered (calls/s)",
                   cs::kClientPoolCeilingPerS, r.served_per_s});
    out.push_back({"share served at 1,000 calls/s offered",
                   cs::kClientPoolCeilingPerS / cs::kClientPoolOfferedPerS,
                   r.served_per_s / r.rate});
  }
  return out;
}

absl::StatusOr<core::Document> RunPool(const Params& p, uint64_t seed,
                                       Names n) {
  const int64_t size = p.Integer("pool");
  const double hold_ms = p.Number(n.hold_key);
  const Time timeout = MsToNs(p.Number("timeout_ms"));
  const bool poisson = p.Text("arrivals") == "poisson";
  const bool exp_hold = p.Text("hold") == "exp";
  core::Document doc(n.title);
  const double ceiling =
      models::PoolCeilingPerS(static_cast<double>(size), hold_ms / 1e3);
  doc.Set("ceiling_per_s", "pool / hold time (req/s)", ceiling, 1);
  core::Table& t = doc.AddTable("rows", "Offered load",
                                {{"offered_per_s", "offered (req/s)", 0},
                                 {"state", "offered vs ceiling"},
                                 {"throughput_per_s", "served (req/s)", 1},
                                 {"utilisation", "pool busy", 3},
                                 {"mean_wait_ms", "mean wait (ms)", 1},
                                 {"mean_pending", "mean pending", 1},
                                 {"max_pending", "max pending", 0},
                                 {"pending_at_end", "pending at end", 0},
                                 {"timeouts", "timeouts", 0},
                                 {"first_timeout_s", "first timeout (s)", 1},
                                 {"p99_ms", "p99 (ms)", 1},
                                 {"steady", "steady"}});
  // Pending and timeouts over time, for the plots; only when asked for, as
  // it is one row per rate and period.
  const Time period = SecToNs(p.Number("timeline_s"));
  std::vector<std::vector<core::Value>> timeline;
  std::vector<RowResult> results;
  SteadyVerdict verdict;
  for (double rate : p.Numbers("rates_per_s")) {
    Simulation sim(BudgetFrom(p));
    const MeterOptions mo = MeterOptionsFrom(p);
    Meter meter(sim, mo);
    Resource pool(sim, "pool", size);
    const std::string stream = absl::StrCat(rate);
    Rng arr(seed, "arrivals/" + stream), svc(seed, "hold/" + stream);
    const Dist gap =
        poisson ? Dist::Exp(1e9 / rate) : Dist::Constant(1e9 / rate);
    const Dist hold =
        exp_hold ? Dist::Exp(hold_ms * 1e6) : Dist::Constant(hold_ms * 1e6);
    sim.Spawn(Arrivals(sim, meter, pool, timeout, gap, hold, arr, svc));
    if (period > 0) sim.Spawn(Sample(sim, pool, period, rate, timeline));
    if (absl::Status s = sim.Run(mo.warmup); !s.ok()) return s;
    pool.ResetStats();
    if (absl::Status s = sim.Run(meter.window_end()); !s.ok()) return s;
    const Summary s = meter.Summarise();
    const ResourceStats rs = pool.Stats();
    // At or past the ceiling no steady state exists: the queue only grows
    // (bounded here by the window, the timeout and the max_pending budget).
    SteadyInputs in = meter.SteadyWindow();
    in.offered_per_s = rate;
    in.capacity_per_s = ceiling;
    in.load_knob = "rates_per_s";
    const SteadyVerdict v = CheckSteady(in);
    MergeSteady(verdict, absl::StrCat("offered ", rate, "/s"), v);
    t.Add({rate, std::string(rate >= ceiling ? "unstable" : "stable"),
           s.throughput_per_s, rs.utilisation, rs.mean_wait_s * 1e3,
           rs.mean_queue_length, rs.max_queue_length, pool.queued(),
           rs.timeouts,
           rs.first_timeout >= 0 ? core::Value(ToSec(rs.first_timeout))
                                 : core::Value(),
           s.p99_ms, v.steady});
    results.push_back({rate, s.throughput_per_s,
                       rs.utilisation * static_cast<double>(size),
                       rs.timeouts});
  }
  if (period > 0) {
    doc.AddTable("timeline", "Timeline",
                 {{"offered_per_s", "offered (req/s)", 0},
                  {"t_s", "time (s)", 1},
                  {"pending", "pending acquires", 0},
                  {"timeouts", "timeouts so far", 0}})
        .rows = std::move(timeline);
  }
  doc.Note(absl::StrCat(
      "Past ", ceiling,
      " req/s the pool cannot keep up: pending grows by the excess "
      "every second until waits reach the timeout."));
  AddSteadyFields(doc, verdict);
  AddCaseStudyTable(doc, CaseStudyRows(p, n, results));
  return doc;
}

std::vector<KeySpec> CommonKeys() {
  return {ChoiceKey("arrivals", "poisson", {"poisson", "constant"},
                    "arrival process"),
          ChoiceKey("hold", "det", {"det", "exp"}, "hold time distribution"),
          NumKey("warmup_s", "0", 0, 86400,
                 "discarded warm-up before each run's window (s)"),
          NumKey("timeline_s", "0", 0, 86400,
                 "sample pending and timeouts this often into a timeline "
                 "table (s; 0 = no table)"),
          MaxPendingKey()};
}

// Each rate's run simulates its arrivals over the warm-up and the window,
// and a timeline row every timeline_s: about 1.3e6 a second here.
double RequestsAndRows(const Params& p) {
  double rates = 0;
  for (double r : p.Numbers("rates_per_s")) rates += r;
  const double span_s = p.Number("warmup_s") + p.Number("duration_s");
  const double timeline_s = p.Number("timeline_s");
  const double rows =
      timeline_s > 0
          ? static_cast<double>(p.Numbers("rates_per_s").size()) / timeline_s
          : 0;
  return span_s * (rates + rows);
}

WorkBound PoolWork() {
  return {"(warmup_s + duration_s) x (sum(rates_per_s) + timeline_rows_per_s)",
          1e7, "requests and timeline rows", RequestsAndRows,
          "timeline_rows_per_s = count(rates_per_s) / timeline_s, or 0 when "
          "timeline_s = 0"};
}

}  // namespace

Scenario PoolStarvationScenario() {
  std::vector<KeySpec> keys = {
      IntKey("pool", DefaultText(case_study::kDbPoolSize), 1, 100000,
             "connections in the pool (Hikari maximumPoolSize)"),
      NumKey("hold_ms", DefaultText(case_study::kDbHoldMs), 0, 3600000,
             "time each request holds a connection (ms)", LowerBound::kOpen),
      NumKey("timeout_ms", DefaultText(case_study::kDbTimeoutMs), 0, 86400000,
             "acquire timeout (ms, connectionTimeout)"),
      ListKey("rates_per_s", "100,150,200,250", 0, 1e6, "offered rates (req/s)",
              LowerBound::kOpen),
      NumKey("duration_s", "180", 0, 86400, "measured window of each run (s)",
             LowerBound::kOpen)};
  for (KeySpec& k : CommonKeys()) keys.push_back(k);
  return {
      "pool-starvation",
      "a Hikari pool of 10 held 50 ms: fine at 100 req/s, timeouts past 200",
      keys,
      [](const Params& p, uint64_t seed) {
        return RunPool(
            p, seed,
            {"Pool starvation: offered load against pool / hold", "hold_ms"});
      },
      PoolWork()};
}

Scenario ClientPoolScenario() {
  std::vector<KeySpec> keys = {
      IntKey("pool", DefaultText(case_study::kClientPoolConnections), 1, 100000,
             "HTTP client connections"),
      NumKey("call_ms", DefaultText(case_study::kClientPoolCallMs), 0, 3600000,
             "downstream call time (ms)", LowerBound::kOpen),
      NumKey("timeout_ms", "5000", 0, 86400000,
             "wait-for-connection timeout (ms)"),
      ListKey("rates_per_s", "250,500,750,1000", 0, 1e6,
              "offered calls (calls/s)", LowerBound::kOpen),
      NumKey("duration_s", "60", 0, 86400, "measured window of each run (s)",
             LowerBound::kOpen)};
  for (KeySpec& k : CommonKeys()) keys.push_back(k);
  return {
      "client-pool",
      "an HTTP client pool of 20 with 40 ms calls: capped at 500 calls/s", keys,
      [](const Params& p, uint64_t seed) {
        return RunPool(
            p, seed,
            {"Client pool: calls offered against pool / call time", "call_ms"});
      },
      PoolWork()};
}

const ScenarioRegistration kPoolStarvation(PoolStarvationScenario);
const ScenarioRegistration kClientPool(ClientPoolScenario);

}  // namespace perflab::sim
