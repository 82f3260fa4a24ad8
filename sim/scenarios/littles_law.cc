// littles-law (laws chapter): open arrivals at fixed rates, fixed service
// times, in-flight L sampled every 5 ms; L must match lambda x W on every row.
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "models/little.h"
#include "models/queues.h"
#include "sim/random.h"
#include "sim/scenarios/internal/common.h"

namespace perflab::sim {
namespace {

Process Request(Simulation& sim, Meter& meter, Time service) {
  const Time start = sim.now();
  meter.Begin();
  co_await sim.Delay(service);
  meter.End(start);
}

Process Arrivals(Simulation& sim, Meter& meter, Dist gap, Dist service,
                 Rng& arr, Rng& svc) {
  while (true) {
    co_await sim.Delay(SampleNs(gap, arr));
    sim.Spawn(Request(sim, meter, SampleNs(service, svc)));
  }
}

struct Row {
  Summary summary;
  SteadyVerdict verdict;
};

// Simulates one row: open arrivals at `rate`, each held `service_ms`. No
// server limits it (every request is served at once), so the verdict checks
// the warm-up, Little's Law and the trend, not offered load.
absl::StatusOr<Row> SimulateRow(const Params& p, uint64_t seed, double rate,
                                double service_ms) {
  const bool poisson = p.Text("arrivals") == "poisson";
  const bool exp_service = p.Text("service") == "exp";
  Simulation sim(BudgetFrom(p));
  MeterOptions mo = MeterOptionsFrom(p);
  mo.sample_period = MsToNs(p.Number("sample_ms"));
  Meter meter(sim, mo);
  const std::string stream = absl::StrCat(rate, "/", service_ms);
  Rng arr(seed, "arrivals/" + stream), svc(seed, "service/" + stream);
  const Dist gap = poisson ? Dist::Exp(1e9 / rate) : Dist::Constant(1e9 / rate);
  const Dist service = exp_service ? Dist::Exp(service_ms * 1e6)
                                   : Dist::Constant(service_ms * 1e6);
  sim.Spawn(Arrivals(sim, meter, gap, service, arr, svc));
  if (absl::Status s = sim.Run(meter.window_end()); !s.ok()) return s;
  return Row{meter.Summarise(), CheckSteady(meter.SteadyWindow())};
}

absl::StatusOr<core::Document> Run(const Params& p, uint64_t seed) {
  core::Document doc("Little's Law: L = lambda x W, measured two ways");
  core::Table& t =
      doc.AddTable("rows", "Rows",
                   {{"rate_per_s", "offered (req/s)", 0},
                    {"service_ms", "service (ms)", 0},
                    {"lambda_per_s", "lambda measured (req/s)", 2},
                    {"w_ms", "W measured (ms)", 3},
                    {"l_sampled", "L sampled", 3},
                    {"lambda_w", "lambda x W", 3},
                    {"error_pct", "|L - lambda W| / lambda W (%)", 3},
                    {"steady", "steady"}});
  double worst = 0;
  SteadyVerdict verdict;
  for (double rate : p.Numbers("rates_per_s")) {
    for (double service_ms : p.Numbers("service_ms")) {
      absl::StatusOr<Row> row = SimulateRow(p, seed, rate, service_ms);
      if (!row.ok()) return row.status();
      const Summary* s = &row->summary;
      MergeSteady(verdict, absl::StrCat(rate, "/s x ", service_ms, " ms"),
                  row->verdict);
      const double lw = s->arrival_rate_per_s * s->mean_ms / 1e3;
      const double err = lw > 0 ? std::fabs(s->l_sampled - lw) / lw * 100 : 0;
      worst = std::max(worst, err);
      t.Add({rate, service_ms, s->arrival_rate_per_s, s->mean_ms, s->l_sampled,
             lw, err, row->verdict.steady});
    }
  }
  doc.Set("worst_error_pct", "worst |L - lambda W| / lambda W (%)", worst, 3);

  // The pool-sizing row: simulate the peak, then size the pool from the
  // measured in-flight count (pool >= L, plus headroom).
  const double peak = p.Number("pool_rate_per_s"),
               hold_ms = p.Number("pool_hold_ms");
  absl::StatusOr<Row> peak_row = SimulateRow(p, seed, peak, hold_ms);
  if (!peak_row.ok()) return peak_row.status();
  MergeSteady(verdict, "pool sizing row", peak_row->verdict);
  AddSteadyFields(doc, verdict);
  const Summary* s = &peak_row->summary;
  absl::StatusOr<models::PoolSizing> pool = models::SizePool(
      s->arrival_rate_per_s, s->mean_ms / 1e3, p.Number("pool_headroom"));
  if (!pool.ok()) return pool.status();
  doc.Set("pool_in_flight", "pool sizing: measured L at the peak", s->l_sampled,
          2);
  doc.Set("pool_minimum", "pool sizing: ceil(L), holds only the mean in flight",
          pool->minimum);
  doc.Set("pool_with_headroom", "pool sizing: ceil(L) with headroom",
          pool->with_headroom);
  // Holding the mean is not enough under Poisson arrivals: at pool = ceil(L)
  // most requests queue. Erlang C gives the pool for a stated P(wait).
  const double target = p.Number("pool_wait_probability");
  const double erlangs = peak * hold_ms / 1e3;
  int64_t erlang_pool = static_cast<int64_t>(std::floor(erlangs)) + 1;
  double p_wait = 1;
  double p_wait_at_minimum = 1;
  for (;; ++erlang_pool) {
    absl::StatusOr<models::QueueMetrics> q =
        models::MMc(static_cast<int>(erlang_pool), peak, 1e3 / hold_ms);
    if (!q.ok()) return q.status();
    if (erlang_pool == pool->minimum) p_wait_at_minimum = q->p_wait;
    p_wait = q->p_wait;
    if (p_wait <= target) break;
  }
  doc.Set("pool_wait_probability_at_minimum",
          "P(wait) at ceil(L) under Poisson arrivals (Erlang C)",
          p_wait_at_minimum, 3);
  doc.Set("pool_erlang_c", "pool sizing: smallest pool with P(wait) <= target",
          erlang_pool);
  doc.Set("pool_erlang_c_wait_probability", "its P(wait) (Erlang C)", p_wait,
          3);
  doc.AddTable("pool_sizing", "Pool sizing",
               {{"rate_per_s", "peak (req/s)", 0},
                {"hold_ms", "hold (ms)", 0},
                {"l_sampled", "L sampled", 2},
                {"minimum", "minimum pool"},
                {"with_headroom", "with headroom"}})
      .Add({peak, hold_ms, s->l_sampled, pool->minimum, pool->with_headroom});
  doc.Note(
      absl::StrCat("Pool sizing: ceil(L) = ", pool->minimum,
                   " holds the mean in flight, "
                   "but under Poisson arrivals ",
                   absl::StrFormat("%.0f", p_wait_at_minimum * 100),
                   " % of requests would wait for a connection (Erlang C at ",
                   absl::StrFormat("%g", erlangs), " Erlangs); ", erlang_pool,
                   " connections keep P(wait) at or below ",
                   p.Text("pool_wait_probability"), "."));
  namespace cs = case_study;
  if (peak == cs::kLittleRatePerS && hold_ms == cs::kLittleHoldMs) {
    AddCaseStudyTable(
        doc, {{"L at 250 req/s x 60 ms",
               cs::kLittleRatePerS * cs::kLittleHoldMs / 1e3, s->l_sampled},
              {"pool picked", static_cast<double>(cs::kLittlePoolPicked),
               static_cast<double>(erlang_pool)}});
  }
  doc.Note(
      "lambda counts arrivals in the window, W is the mean time in system of "
      "the requests that left in it, L the mean of the periodic samples.");
  return doc;
}

// Each row (a rate and a service time, and the pool-sizing row) simulates
// its arrivals and an in-flight sample every sample_ms over the warm-up and
// the window: about 2e6 a second here.
double RequestsAndSamples(const Params& p) {
  double rates = 0;
  for (double r : p.Numbers("rates_per_s")) rates += r;
  const auto services = static_cast<double>(p.Numbers("service_ms").size());
  const double rows =
      static_cast<double>(p.Numbers("rates_per_s").size()) * services + 1;
  return (p.Number("warmup_s") + p.Number("duration_s")) *
         (services * rates + p.Number("pool_rate_per_s") +
          1000 / p.Number("sample_ms") * rows);
}

}  // namespace

Scenario LittlesLawScenario() {
  return {
      "littles-law",
      "L sampled on a fixed period against lambda x W, over rates and service "
      "times",
      {ListKey("rates_per_s", "50,100,250,400", 0, 1e6, "arrival rates (req/s)",
               LowerBound::kOpen),
       ListKey("service_ms", "20,60,200", 0, 1e6, "service times (ms)",
               LowerBound::kOpen),
       ChoiceKey("arrivals", "constant", {"constant", "poisson"},
                 "arrival process"),
       ChoiceKey("service", "det", {"det", "exp"}, "service time distribution"),
       NumKey("sample_ms", "5", 0, 60000, "in-flight sampling period (ms)",
              LowerBound::kOpen),
       NumKey("warmup_s", "2", 0, 86400, "discarded warm-up (s)"),
       NumKey("duration_s", "60", 0, 86400, "measured window (s)",
              LowerBound::kOpen),
       NumKey("pool_rate_per_s", DefaultText(case_study::kLittleRatePerS), 0,
              1e6, "pool sizing: peak rate (req/s)", LowerBound::kOpen),
       NumKey("pool_hold_ms", DefaultText(case_study::kLittleHoldMs), 0, 1e6,
              "pool sizing: hold time (ms)", LowerBound::kOpen),
       NumKey("pool_headroom", DefaultText(case_study::kLittleHeadroom), 0, 10,
              "pool sizing: headroom fraction"),
       NumKey("pool_wait_probability", "0.2", 0, 1,
              "pool sizing: accepted share of requests that wait (Erlang C)",
              LowerBound::kOpen),
       MaxPendingKey()},
      Run,
      {"(warmup_s + duration_s) x (count(service_ms) x sum(rates_per_s) + "
       "pool_rate_per_s + 1000 / sample_ms x rows)",
       1.5e7, "requests and samples", RequestsAndSamples,
       "rows = count(rates_per_s) x count(service_ms) + 1 (the pool-sizing "
       "row)"}};
}

const ScenarioRegistration kLittlesLaw(LittlesLawScenario);

}  // namespace perflab::sim
