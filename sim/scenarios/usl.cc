// usl (laws chapter): N workers share a serial section and pay a pairwise
// coherency cost. Each job is fork-join: the serial section sigma T runs
// alone, then N workers each do (1 - sigma) T / N of the parallel work and
// exchange state with each of the other N - 1 workers (kappa T per
// exchange). With no jitter one job takes T (1 + sigma (N-1) + kappa N (N-1)) /
// N of capacity, exactly the USL; jitter adds the straggler (max of N) effect.
#include "models/usl.h"

#include <cmath>
#include <set>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "sim/random.h"
#include "sim/scenarios/internal/common.h"

namespace perflab::sim {
namespace {

struct Costs {
  Time serial, parallel_total, exchange;
  double jitter_cv;
};

Process Worker(Simulation& sim, Latch& done, Costs c, int64_t n, Rng& rng) {
  const double share =
      static_cast<double>(c.parallel_total) / static_cast<double>(n);
  co_await sim.Delay(c.jitter_cv > 0
                         ? SampleNs(Dist::Lognormal(share, c.jitter_cv), rng)
                         : static_cast<Time>(std::llround(share)));
  for (int64_t peer = 1; peer < n; ++peer) co_await sim.Delay(c.exchange);
  done.Done();
}

Process Jobs(Simulation& sim, Costs c, int64_t n, int64_t jobs, Rng& rng,
             Time& end) {
  for (int64_t j = 0; j < jobs; ++j) {
    co_await sim.Delay(c.serial);
    Latch done(sim, n);
    for (int64_t w = 0; w < n; ++w) sim.Spawn(Worker(sim, done, c, n, rng));
    co_await done.Wait();
  }
  end = sim.now();
}

absl::StatusOr<core::Document> Run(const Params& p, uint64_t seed) {
  const double sigma = p.Number("sigma"), kappa = p.Number("kappa");
  const double work_ms = p.Number("work_ms");
  const int64_t jobs = p.Integer("jobs");
  Costs c{MsToNs(sigma * work_ms), MsToNs((1 - sigma) * work_ms),
          MsToNs(kappa * work_ms), p.Number("jitter_cv")};
  core::Document doc("Universal Scalability Law: simulated workers, fitted");
  core::Table& t =
      doc.AddTable("rows", "Rows",
                   {{"n", "workers N"},
                    {"throughput_per_s", "jobs/s", 3},
                    {"capacity", "C(N) simulated", 3},
                    {"usl_capacity", "C(N) from sigma, kappa", 3}});
  std::vector<models::UslPoint> points;
  const double x1 = 1e3 / work_ms;  // one worker: a job every work_ms
  double best_x = 0;
  int64_t best_n = 0;
  std::vector<std::pair<int64_t, double>> capacity;  // N, simulated C(N)
  for (double nd : p.Numbers("workers")) {
    const int64_t n = static_cast<int64_t>(nd);
    Simulation sim(BudgetFrom(p));
    Rng rng(seed, absl::StrCat("jitter/", n));
    Time end = 0;
    sim.Spawn(Jobs(sim, c, n, jobs, rng, end));
    if (absl::Status s = sim.Run(kForever); !s.ok()) return s;
    const double x = static_cast<double>(jobs) / ToSec(end);
    if (x > best_x) {
      best_x = x;
      best_n = n;
    }
    points.push_back({static_cast<double>(n), x});
    capacity.emplace_back(n, x / x1);
    t.Add({n, x, x / x1,
           models::UslCapacity(sigma, kappa, static_cast<double>(n))});
  }
  absl::StatusOr<models::UslFit> fit = models::FitUsl(points);
  if (!fit.ok()) return fit.status();
  doc.Set("fitted_sigma", "fitted sigma", fit->sigma, 4);
  doc.Set("fitted_kappa", "fitted kappa", fit->kappa, 5);
  doc.Set("sigma_error_pct", "fitted vs true sigma (%)",
          sigma > 0 ? (fit->sigma - sigma) / sigma * 100 : 0.0, 2);
  doc.Set("kappa_error_pct", "fitted vs true kappa (%)",
          kappa > 0 ? (fit->kappa - kappa) / kappa * 100 : 0.0, 2);
  doc.Set("r_squared", "fit R^2", fit->r_squared, 5);
  doc.Set("simulated_peak_n", "N with the highest simulated throughput",
          best_n);
  if (kappa > 0) {
    doc.Set("predicted_peak_n", "sqrt((1 - sigma) / kappa)",
            std::sqrt((1 - sigma) / kappa), 2);
  }
  doc.Note(
      "C(N) = X(N) / X(1), where one worker alone finishes a job every "
      "work_ms.");
  // The laws chapter's worked example, when sigma and kappa are its own.
  namespace cs = case_study;
  if (sigma == cs::kUslSigma && kappa == cs::kUslKappa) {
    std::vector<CaseStudyRow> rows = {
        {"peak N", cs::kUslPeakN, static_cast<double>(best_n)}};
    const std::pair<int64_t, double> figures[] = {
        {12, cs::kUslC12}, {22, cs::kUslPeakCapacity}, {64, cs::kUslC64}};
    for (const auto& [n, c] : figures) {
      for (const auto& [sim_n, sim_c] : capacity) {
        if (sim_n == n) rows.push_back({absl::StrCat("C(", n, ")"), c, sim_c});
      }
    }
    AddCaseStudyTable(doc, rows);
  }
  return doc;
}

// A job at N workers is N shares and N (N - 1) exchanges, each a delay:
// about 8e6 of them a second here.
double Delays(const Params& p) {
  double per_job = 0;
  for (double n : p.Numbers("workers")) per_job += n * n;
  return static_cast<double>(p.Integer("jobs")) * per_job;
}

// The fit needs three worker counts: refused before simulating the others.
absl::Status CheckWorkers(const Params& p) {
  const std::set<double> counts(p.Numbers("workers").begin(),
                                p.Numbers("workers").end());
  if (counts.size() < 3) {
    return absl::InvalidArgumentError(absl::StrCat(
        "key 'workers' = '", p.Text("workers"), "': ", counts.size(),
        " different worker count(s); accepted at least 3 (the USL fit needs "
        "3 points)"));
  }
  return absl::OkStatus();
}

}  // namespace

Scenario UslScenario() {
  return {
      "usl",
      "fork-join workers with a serial section and pairwise coherency; USL fit",
      {NumKey("sigma", DefaultText(case_study::kUslSigma), 0, 0.99,
              "serial (contention) share of each job"),
       NumKey("kappa", DefaultText(case_study::kUslKappa), 0, 0.5,
              "coherency cost per pair, as a share of a job"),
       NumKey("work_ms", "100", 0, 1e6, "one job's work on one worker (ms)",
              LowerBound::kOpen),
       ListKey("workers", "1,2,4,8,12,16,22,32,48,64", 1, 4096,
               "worker counts N"),
       IntKey("jobs", "200", 1, 10000000, "jobs per worker count"),
       NumKey("jitter_cv", "0", 0, 10,
              "variation of each worker's share (lognormal cv)"),
       MaxPendingKey()},
      Run,
      {"jobs x sum(workers^2)", 5e7, "worker delays", Delays},
      CheckWorkers};
}

const ScenarioRegistration kUsl(UslScenario);

}  // namespace perflab::sim
