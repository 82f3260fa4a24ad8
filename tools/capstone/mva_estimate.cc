#include "tools/capstone/mva_estimate.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "core/case_study.h"

namespace perflab::capstone {
namespace {

constexpr char kGenerator[] = "generator";
constexpr char kCores[] = "cores";
constexpr char kPool[] = "pool";
constexpr char kWaits[] = "waits";

// The busiest queueing station in the simulation: its name and busy share.
std::pair<std::string, double> Busiest(const StepFigures& f) {
  std::pair<std::string, double> best = {kGenerator, f.generator_utilisation};
  if (f.app_cores > 0) {
    const double u = f.cpu_cores / static_cast<double>(f.app_cores);
    if (u > best.second) best = {kCores, u};
  }
  if (f.pool > 0) {
    const double u = f.pool_busy / static_cast<double>(f.pool);
    if (u > best.second) best = {kPool, u};
  }
  return best;
}

std::string Pct(double share) {
  return absl::StrFormat("%.0f %%", 100 * share);
}

}  // namespace

double MissWaitMs(const sim::Calibration& calibration,
                  const sim::OrderServiceConfig& config) {
  const bool stalls = config.keep_alive && !config.tcp_nodelay;
  return calibration.inventory_service_ms +
         (stalls ? calibration.nagle_stall_ms : 0);
}

absl::StatusOr<models::SingleClassNetwork> StepNetwork(const StepFigures& f) {
  if (!(f.rps > 0) || !std::isfinite(f.rps)) {
    return absl::InvalidArgumentError(
        absl::StrCat("MVA: step RPS = ", f.rps, ": accepted a number > 0"));
  }
  if (f.generator_cores < 1 || f.app_cores < 1 || f.pool < 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "MVA: generator cores = ", f.generator_cores, ", app cores = ",
        f.app_cores, ", pool = ", f.pool, ": each must be >= 1"));
  }
  const double x = f.rps;
  // Cores busy on statements: a connection is held while they run.
  const double statements_cpu = f.cpu_share.database / 100 * f.cpu_cores;
  models::SingleClassNetwork net;
  net.think_s = 0;  // the rig's clients send again at once
  net.stations = {
      {kGenerator, models::StationKind::kQueue,
       f.generator_utilisation * static_cast<double>(f.generator_cores) / x,
       f.generator_cores},
      {kCores, models::StationKind::kQueue, f.cpu_cores / x, f.app_cores},
      {kPool, models::StationKind::kQueue,
       std::max(0.0, f.pool_busy - statements_cpu) / x, f.pool},
      {kWaits, models::StationKind::kDelay,
       (1 - f.cache_hit_ratio) * f.miss_wait_ms / 1000, 1},
  };
  return net;
}

StepMva EstimateStep(const StepFigures& f, int64_t clients) {
  StepMva m;
  absl::StatusOr<models::SingleClassNetwork> net = StepNetwork(f);
  if (!net.ok() || clients < 1) return m;
  absl::StatusOr<std::vector<models::MvaPoint>> points =
      models::SolveExactMva(*net, clients);
  absl::StatusOr<models::MvaBounds> bounds = models::Bounds(*net, clients);
  const int bottleneck = models::BottleneckStation(*net);
  if (!points.ok() || !bounds.ok() || bottleneck < 0 ||
      !(bounds->max_demand_s > 0)) {
    return m;
  }
  m.solved = true;
  m.network = *std::move(net);
  m.mva_rps = points->back().throughput_per_s;
  m.bound_rps = 1 / bounds->max_demand_s;
  m.knee_clients = bounds->knee_clients;
  m.bottleneck = m.network.stations[static_cast<size_t>(bottleneck)].name;
  m.difference_pct = 100 * (m.mva_rps / f.rps - 1);
  if (std::abs(m.difference_pct) > kMvaAgreementPct) {
    m.gap = GapOf(f);
    m.reason = Reason(f, m.gap);
  }
  return m;
}

MvaGap GapOf(const StepFigures& f) {
  const double busy = Busiest(f).second;
  const bool threads_full =
      f.threads > 0 &&
      f.threads_busy >= kCapFullShare * static_cast<double>(f.threads) &&
      f.thread_wait_ms > 0;
  const bool pool_full =
      f.pool > 0 &&
      f.pool_busy >= kCapFullShare * static_cast<double>(f.pool) &&
      f.pool_wait_ms > 0;
  if (threads_full && busy < kCapFullShare) return MvaGap::kThreadCap;
  if (pool_full) return MvaGap::kPool;
  return MvaGap::kStations;
}

std::string Reason(const StepFigures& f, MvaGap gap) {
  const auto [station, busy] = Busiest(f);
  switch (gap) {
    case MvaGap::kNone:
      return "";
    case MvaGap::kThreadCap:
      return absl::StrFormat(
          "the thread cap binds: %.1f of %d threads busy, %.2f ms of waiting "
          "per request, while the busiest station, %s, is %s busy",
          f.threads_busy, f.threads, f.thread_wait_ms, station, Pct(busy));
    case MvaGap::kPool:
      return absl::StrFormat(
          "the pool is full: %.2f of %d connections held, %.2f ms of waiting "
          "per request",
          f.pool_busy, f.pool, f.pool_wait_ms);
    case MvaGap::kStations:
      break;
  }
  return absl::StrFormat(
      "no passive cap is full; the busiest station, %s, is %s busy", station,
      Pct(busy));
}

namespace {

const char* GapExplanation(MvaGap gap) {
  switch (gap) {
    case MvaGap::kNone:
      return "";
    case MvaGap::kThreadCap:
      return "Where the request-thread cap binds before any station "
             "saturates, MVA, which has no thread cap, lets every client "
             "queue at the stations and over-estimates RPS.";
    case MvaGap::kPool:
      return "Where the pool is full, its cap is connections / hold: the "
             "hold includes the statements' CPU, which the network serves at "
             "the cores, so MVA's pool station holds for less and lets more "
             "through.";
    case MvaGap::kStations:
      break;
  }
  return "Where no cap is full, the gap is the stations' own: their service "
         "is not the exponential, independent service MVA assumes.";
}

}  // namespace

void AddMvaTable(core::Document& doc, const std::vector<const Step*>& steps,
                 const std::vector<StepFigures>& figures) {
  const int64_t clients = case_study::kClosedLoopClients;
  core::Table& t = doc.AddTable(
      "mva",
      absl::StrCat("MVA estimate (exact MVA, ", clients,
                   " clients, no think time; demands D = busy / RPS from "
                   "each step's closed-loop run)"),
      {{"name", "step"},
       {"mva_rps", "MVA RPS", 0},
       {"rps", "simulated RPS", 0},
       {"difference_pct", "difference %", 1},
       {"bottleneck", "bottleneck"},
       {"bound_rps", "1/D_max (req/s)", 0},
       {"generator_ms", "generator D (ms)", 3},
       {"generator_cores", "c"},
       {"cores_ms", "cores D (ms)", 3},
       {"app_cores", "c"},
       {"pool_ms", "pool D (ms)", 3},
       {"pool", "c"},
       {"waits_ms", "waits D (ms)", 3}});
  std::vector<std::string> off;
  std::vector<MvaGap> gaps;
  for (size_t i = 0; i < steps.size(); ++i) {
    const StepFigures& f = figures[i];
    const StepMva m = EstimateStep(f, clients);
    const std::string name(steps[i]->name);
    if (!m.solved) {
      t.Add({name, std::monostate{}, f.rps, std::monostate{}, std::string("-"),
             std::monostate{}, std::monostate{}, f.generator_cores,
             std::monostate{}, f.app_cores, std::monostate{}, f.pool,
             std::monostate{}});
      continue;
    }
    const std::vector<models::Station>& s = m.network.stations;
    t.Add({name, m.mva_rps, f.rps, m.difference_pct, m.bottleneck, m.bound_rps,
           1000 * s[0].demand_s, s[0].servers, 1000 * s[1].demand_s,
           s[1].servers, 1000 * s[2].demand_s, s[2].servers,
           1000 * s[3].demand_s});
    if (m.gap != MvaGap::kNone) {
      off.push_back(absl::StrFormat("%s (%+.1f %%: %s)", name, m.difference_pct,
                                    m.reason));
      if (std::find(gaps.begin(), gaps.end(), m.gap) == gaps.end()) {
        gaps.push_back(m.gap);
      }
    }
  }
  doc.Note(absl::StrCat(
      "MVA: each step's closed loop as a closed network of the load "
      "generator's cores, the application's cores and the database pool "
      "(multi-server stations, c as shown) and the waits of a cache miss "
      "(inventory stub, Nagle stall) as a delay; each demand is busy / RPS "
      "(the utilisation law) from that step's own closed-loop run, so "
      "agreement checks the queueing structure rather than predicting the "
      "run. The request-thread cap and the pool are passive resources, held "
      "across other stations (a request's thread across all of them, a "
      "connection across its statement's CPU, which the cores station "
      "serves, so the pool's demand is its hold less that CPU): the network "
      "is not product-form, so MVA RPS is an approximation and 1/D_max an "
      "upper bound."));
  if (off.empty()) {
    doc.Note(absl::StrCat("MVA and the simulation agree within ",
                          kMvaAgreementPct, " % at every step."));
  } else {
    std::string why;
    for (MvaGap g : gaps) absl::StrAppend(&why, " ", GapExplanation(g));
    doc.Note(absl::StrCat("MVA and the simulation differ by more than ",
                          kMvaAgreementPct, " % at: ", absl::StrJoin(off, "; "),
                          ".", why));
  }
}

core::Node MvaRecords(const std::vector<const Step*>& steps,
                      const std::vector<StepFigures>& figures) {
  core::Node list = core::Node::List();
  for (size_t i = 0; i < steps.size(); ++i) {
    const StepFigures& f = figures[i];
    const StepMva m = EstimateStep(f, case_study::kClosedLoopClients);
    double total = 0;
    for (const models::Station& s : m.network.stations) total += s.demand_s;
    core::Node stations = core::Node::List();
    for (const models::Station& s : m.network.stations) {
      const bool delay = s.kind == models::StationKind::kDelay;
      stations.Add(core::Node::Record()
                       .Set("name", s.name)
                       .Set("kind", std::string(delay ? "delay" : "queue"))
                       .Set("servers", int64_t{delay ? 0 : s.servers})
                       .Set("demand_ms", 1000 * s.demand_s));
    }
    list.Add(core::Node::Record()
                 .Set("name", std::string(steps[i]->name))
                 .Set("mva_rps", m.mva_rps)
                 .Set("rps", f.rps)
                 .Set("difference_pct", m.difference_pct)
                 .Set("bottleneck", m.bottleneck)
                 .Set("bound_rps", m.bound_rps)
                 .Set("knee_clients", m.knee_clients)
                 .Set("total_demand_ms", 1000 * total)
                 .Set("stations", std::move(stations))
                 .Set("agrees", m.solved && m.gap == MvaGap::kNone)
                 .Set("reason", m.reason));
  }
  return list;
}

}  // namespace perflab::capstone
