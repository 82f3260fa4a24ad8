// mmc and hockey-stick: the plain multi-server queue, simulated beside the
// analytic results (Erlang C for exponential service, Pollaczek-Khinchine
// for one server with any service distribution).
#include "sim/mmc.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "models/queues.h"
#include "sim/scenarios/internal/common.h"

namespace perflab::sim {
namespace {

MmcOptions::Service ServiceOf(const std::string& s) {
  if (s == "det") return MmcOptions::Service::kDet;
  if (s == "lognormal") return MmcOptions::Service::kLognormal;
  return MmcOptions::Service::kExp;
}

// The shared steady-state verdict of one M/M/c run: offered load against c
// mu, and the warm-up (the discarded customers' time) against W.
SteadyVerdict VerdictOf(const MmcOptions& o, const MmcResult& r,
                        int64_t warmup_customers, std::string load_knob,
                        std::string warmup_knob, std::string window_knob) {
  SteadyInputs in;
  in.offered_per_s = o.arrival_rate_per_s;
  in.capacity_per_s = static_cast<double>(o.servers) * o.service_rate_per_s;
  in.warmup_s = static_cast<double>(warmup_customers) / o.arrival_rate_per_s;
  in.window_s = static_cast<double>(r.customers) / o.arrival_rate_per_s;
  in.mean_response_s = r.mean_response_s;
  in.load_knob = std::move(load_knob);
  in.warmup_knob = std::move(warmup_knob);
  in.window_knob = std::move(window_knob);
  return CheckSteady(in);
}

// The analytic answer when one exists: M/M/c, or M/G/1 for any service.
std::optional<models::QueueMetrics> Analytic(const MmcOptions& o) {
  if (o.arrival_rate_per_s >= o.servers * o.service_rate_per_s)
    return std::nullopt;
  double cv = 1;
  if (o.service == MmcOptions::Service::kDet) cv = 0;
  if (o.service == MmcOptions::Service::kLognormal) cv = o.service_cv;
  absl::StatusOr<models::QueueMetrics> m;
  if (cv == 1) {
    m = models::MMc(static_cast<int>(o.servers), o.arrival_rate_per_s,
                    o.service_rate_per_s);
  } else if (o.servers == 1) {
    m = models::MG1(o.arrival_rate_per_s, 1.0 / o.service_rate_per_s, cv);
  } else {
    return std::nullopt;
  }
  if (!m.ok()) return std::nullopt;
  return *m;
}

absl::Status CheckServiceCv(const Params& p) {
  if (p.Text("service") != "lognormal" && p.Number("service_cv") != 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "key 'service_cv' = '", p.Text("service_cv"),
        "' with service = ", p.Text("service"),
        ": only service=lognormal reads it (exp has cv 1, det cv 0); "
        "accepted service=lognormal, or leave service_cv at 1"));
  }
  return absl::OkStatus();
}

// Every customer, the warm-up's too, is an arrival and a departure: about
// 1e7 customers a second here.
double Customers(const Params& p) {
  return static_cast<double>(p.Integer("customers")) +
         static_cast<double>(p.Integer("warmup_customers"));
}

absl::StatusOr<core::Document> RunMmcScenario(const Params& p, uint64_t seed) {
  MmcOptions o;
  o.servers = p.Integer("servers");
  o.arrival_rate_per_s = p.Number("arrival_rate_per_s");
  o.service_rate_per_s = p.Number("service_rate_per_s");
  o.service = ServiceOf(p.Text("service"));
  o.service_cv = p.Number("service_cv");
  o.customers = p.Integer("customers");
  o.warmup_customers = p.Integer("warmup_customers");
  o.seed = seed;
  o.budget = BudgetFrom(p);
  absl::StatusOr<MmcResult> r = RunMmc(o);
  if (!r.ok()) return r.status();
  core::Document doc(absl::StrCat("M/",
                                  p.Text("service") == "exp"   ? "M"
                                  : p.Text("service") == "det" ? "D"
                                                               : "G",
                                  "/", o.servers, " queue"));
  doc.Set("stability", "stability",
          std::string(r->unstable ? "unstable" : "stable"));
  doc.Set("rho", "offered utilisation lambda / (c mu)", r->rho, 3);
  doc.Set("customers", "measured customers", r->customers);
  doc.Set("mean_wait_s", "mean wait in queue (s)", r->mean_wait_s, 4);
  // No interval for a run with no steady state: it would pretend to one.
  doc.Set("mean_wait_ci95_s", "95 % confidence half-width (s, batch means)",
          r->unstable ? core::Value() : core::Value(r->mean_wait_ci95_s), 4);
  doc.Set("mean_response_s", "mean time in system (s)", r->mean_response_s, 4);
  doc.Set("p_wait", "share that had to queue", r->p_wait, 4);
  doc.Set("utilisation", "server utilisation", r->utilisation, 4);
  doc.Set("throughput_per_s", "throughput (customers/s)", r->throughput_per_s,
          3);
  doc.Set("mean_queue_length", "mean queue length (time-weighted)",
          r->mean_queue_length, 3);
  doc.Set("p99_response_s", "p99 time in system (s)", r->p99_response_s, 4);
  if (std::optional<models::QueueMetrics> a = Analytic(o)) {
    doc.Set("analytic_mean_wait_s", "analytic mean wait (s)", a->mean_wait_s,
            4);
    doc.Set("analytic_p_wait", "analytic P(wait)", a->p_wait, 4);
    doc.Set("wait_error_pct", "simulated vs analytic mean wait (%)",
            (r->mean_wait_s - a->mean_wait_s) / a->mean_wait_s * 100, 2);
    doc.Set("wait_ci95_pct", "95 % confidence half-width (% of analytic)",
            r->mean_wait_ci95_s / a->mean_wait_s * 100, 2);
  }
  const int64_t warmup_customers =
      o.warmup_customers >= 0 ? o.warmup_customers : o.customers / 10;
  AddSteadyFields(doc, VerdictOf(o, *r, warmup_customers, "arrival_rate_per_s",
                                 "warmup_customers", "customers"));
  if (r->unstable) {
    doc.Note(
        absl::StrCat("unstable: rho = ", r->rho,
                     " >= 1, so no steady state exists; the queue grew for the "
                     "whole run and the means depend on its length."));
  }
  return doc;
}

// Customers for a point at utilisation rho: the reference count up to
// rho = 0.5, then scaled with 1 / (1 - rho)^2 (the queue's relaxation time
// grows like that, and so does the variance of its mean), capped.
int64_t CustomersFor(double rho, int64_t reference, int64_t cap) {
  const double scale = rho <= 0.5 ? 1 : (0.5 / (1 - rho)) * (0.5 / (1 - rho));
  return std::min<int64_t>(cap, static_cast<int64_t>(std::llround(
                                    static_cast<double>(reference) * scale)));
}

// Every point's customers and its warm-up (a tenth of them, RunMmc's
// default), each an arrival and a departure: about 1.2e7 customers a second
// here, as for mmc.
double HockeyStickCustomers(const Params& p) {
  double per_server_count = 0;
  for (double rho : p.Numbers("utilisations")) {
    per_server_count += static_cast<double>(
        CustomersFor(rho, p.Integer("customers"), p.Integer("max_customers")));
  }
  return 1.1 * static_cast<double>(p.Numbers("servers").size()) *
         per_server_count;
}

absl::StatusOr<core::Document> RunHockeyStick(const Params& p, uint64_t seed) {
  core::Document doc("Hockey stick: latency against utilisation");
  core::Table& t = doc.AddTable("rows", "Rows",
                                {{"servers", "servers"},
                                 {"rho", "utilisation", 2},
                                 {"customers", "customers"},
                                 {"sim_response_ms", "simulated W (ms)", 2},
                                 {"ci95_ms", "95 % half-width (ms)", 2},
                                 {"analytic_response_ms", "analytic W (ms)", 2},
                                 {"error_pct", "error (%)", 2},
                                 {"ci95_pct", "95 % half-width (%)", 2},
                                 {"sim_p99_ms", "simulated p99 (ms)", 1},
                                 {"steady", "steady"}});
  SteadyVerdict verdict;
  double batch_over_tau = 0;  // smallest batch / autocorrelation time
  const double service_s = p.Number("service_ms") / 1e3;
  const double target_pct = p.Number("target_ci_pct");
  double widest_pct = 0;
  for (double c : p.Numbers("servers")) {
    for (double rho : p.Numbers("utilisations")) {
      MmcOptions o;
      o.servers = static_cast<int64_t>(c);
      o.service_rate_per_s = 1.0 / service_s;
      o.arrival_rate_per_s = rho * c / service_s;
      o.customers =
          CustomersFor(rho, p.Integer("customers"), p.Integer("max_customers"));
      o.seed = seed;
      o.budget = BudgetFrom(p);
      absl::StatusOr<MmcResult> r = RunMmc(o);
      if (!r.ok()) return r.status();
      std::optional<models::QueueMetrics> a = Analytic(o);
      const double sim_ms = r->mean_response_s * 1e3;
      const double an_ms = a ? a->mean_response_s * 1e3 : 0;
      // W = wait + service: the wait's batch-means interval and the service
      // times' own sampling error (exponential: sd = mean) together.
      const double service_ci_s =
          1.96 * service_s / std::sqrt(static_cast<double>(r->customers));
      const double ci_ms = std::hypot(r->mean_wait_ci95_s, service_ci_s) * 1e3;
      const double ci_pct = an_ms > 0 ? ci_ms / an_ms * 100 : 0;
      widest_pct = std::max(widest_pct, ci_pct);
      // customers / 10 discarded first (RunMmc's default warm-up).
      const SteadyVerdict v = VerdictOf(o, *r, o.customers / 10, "utilisations",
                                        "customers", "customers");
      MergeSteady(verdict, absl::StrCat("c = ", c, ", rho = ", rho), v);
      // The waits' integrated autocorrelation time, in customers, of M/M/1
      // at this rho (the slowest-mixing case; c > 1 mixes faster):
      // (2 + 5 rho - 4 rho^2 + rho^3) / ((2 - rho) (1 - rho)^2).
      const double tau = (2 + 5 * rho - 4 * rho * rho + rho * rho * rho) /
                         ((2 - rho) * (1 - rho) * (1 - rho));
      const double ratio = static_cast<double>(r->customers) / 20 / tau;
      if (batch_over_tau == 0 || ratio < batch_over_tau) batch_over_tau = ratio;
      t.Add({static_cast<int64_t>(c), rho, r->customers, sim_ms, ci_ms,
             a ? core::Value(an_ms) : core::Value(),
             a ? core::Value((sim_ms - an_ms) / an_ms * 100) : core::Value(),
             a ? core::Value(ci_pct) : core::Value(), r->p99_response_s * 1e3,
             v.steady});
    }
  }
  doc.Set("widest_ci95_pct", "widest 95 % half-width (% of analytic W)",
          widest_pct, 2);
  doc.Set("batch_over_autocorrelation",
          "shortest batch / the waits' autocorrelation time (M/M/1 bound)",
          batch_over_tau, 0);
  AddSteadyFields(doc, verdict);
  doc.Note(
      "Latency stays near the service time until utilisation passes ~0.7, "
      "then bends up like a hockey stick; more servers bend later.");
  doc.Note(absl::StrCat(
      "Read each error against its 95 % half-width (20 batch means): a "
      "difference inside it is sampling noise, not bias. Customers grow with "
      "1 / (1 - rho)^2 from ",
      p.Text("customers"), " at rho <= 0.5 (at most ", p.Text("max_customers"),
      ") so every half-width stays within ", p.Text("target_ci_pct"), " %",
      widest_pct <= target_pct
          ? "."
          : absl::StrCat("; warning: the widest is ",
                         absl::StrFormat("%.1f", widest_pct),
                         " % (raise max_customers).")));
  const std::string batches = absl::StrFormat("%.0f", batch_over_tau);
  doc.Note(
      batch_over_tau >= 10
          ? absl::StrCat(
                "An error a little outside its half-width, often at high "
                "rho, is not bias from batches too short: every batch is at "
                "least ",
                batches,
                " times the waits' autocorrelation time, so batch means are "
                "independent. At high rho the batch means are skewed (rare "
                "long busy periods): a run that saw fewer of them has both a "
                "low mean and a narrow interval, so misses fall on the low "
                "side; a 95 % interval also misses 1 time in 20; and every "
                "row reuses the seed's streams, so rows err together. Across "
                "seeds the errors centre on zero (try --seed).")
          : absl::StrCat("warning: the shortest batch is only ", batches,
                         " times the waits' autocorrelation time (want 10 or "
                         "more), so the half-widths are too narrow (raise "
                         "customers)."));
  return doc;
}

}  // namespace

Scenario MmcScenario() {
  return {
      "mmc",
      "the M/M/c (M/D/c, M/G/c) queue against Erlang C and Pollaczek-Khinchine",
      {IntKey("servers", "4", 1, 100000, "servers c"),
       NumKey("arrival_rate_per_s", "3.6", 0, 1e9, "Poisson arrival rate (1/s)",
              LowerBound::kOpen),
       NumKey("service_rate_per_s", "1", 0, 1e9,
              "service rate per server (1/s)", LowerBound::kOpen),
       ChoiceKey("service", "exp", {"exp", "det", "lognormal"},
                 "service time distribution"),
       NumKey("service_cv", "1", 0, 100, "lognormal service: sd / mean"),
       IntKey("customers", "1000000", 1, 1000000000, "measured customers"),
       IntKey("warmup_customers", "100000", 0, 1000000000,
              "discarded first customers"),
       MaxPendingKey()},
      RunMmcScenario,
      {"customers + warmup_customers", 5e7, "customers", Customers},
      CheckServiceCv};
}

Scenario HockeyStickScenario() {
  return {"hockey-stick",
          "mean latency against utilisation, M/M/1 and M/M/c, simulated and "
          "analytic",
          {ListKey("servers", "1,4", 1, 1000, "server counts c"),
           ListKey("utilisations", "0.1,0.3,0.5,0.7,0.8,0.9,0.95", 0, 0.99,
                   "utilisations rho", LowerBound::kOpen),
           NumKey("service_ms", "10", 0, 1e6, "mean service time (ms)",
                  LowerBound::kOpen),
           IntKey("customers", "100000", 1000, 1000000000,
                  "measured customers per point at rho <= 0.5"),
           IntKey("max_customers", "10000000", 1000, 1000000000,
                  "cap on customers per point"),
           NumKey("target_ci_pct", "5", 0, 100,
                  "stated width: 95 % half-width (% of W) to stay within",
                  LowerBound::kOpen),
           MaxPendingKey()},
          RunHockeyStick,
          {"1.1 x count(servers) x sum over utilisations of "
           "min(max_customers, customers x scale)",
           8e7, "customers", HockeyStickCustomers,
           "scale = 1 for rho <= 0.5, else (0.5 / (1 - rho))^2, rho each of "
           "utilisations; 1.1: a tenth more for the warm-up"}};
}

const ScenarioRegistration kMmc(MmcScenario);
const ScenarioRegistration kHockeyStick(HockeyStickScenario);

}  // namespace perflab::sim
