// The capstone's caps predicted by Mean Value Analysis (models/mva.h): each
// step's closed loop as a closed queueing network whose demands come from
// that step's own simulated closed-loop run, solved by exact MVA for the
// rig's clients with no think time, beside the simulated RPS.
//
// The network, one station per thing a request queues for or waits on, each
// moment of a request in one station, each demand D by the utilisation law
// D = busy / X (X the step's RPS):
//   generator  the load generator's cores: c = its whole cores,
//              D = generator utilisation x c / X;
//   cores      the application's cores (processor sharing): c = app_cores,
//              D = cores busy / X, all of its CPU, GC and statements included;
//   pool       the database connections: c = pool, D = (connections held -
//              the cores busy on statements) / X, the hold per request less
//              its statements' CPU, which the cores station serves: round
//              trips, and a held connection's wait for a core;
//   waits      a delay station: the pure waits of a cache miss (the
//              inventory stub, the Nagle stall where it applies) x the share
//              of requests that miss.
// The request-thread cap is no station: a request holds its thread across
// all of them, as it holds a connection across its statement's CPU. Such
// passive resources make the network non-product-form, so the MVA figure is
// an approximation and 1 / D_max an upper bound (every D is at most what the
// run measured for its cap); where MVA and the simulation differ by more
// than kMvaAgreementPct, Reason says what the caps table shows. The demands
// come from the run it is set beside: agreement checks the queueing
// structure, it does not predict the run.
//
// Pure functions of their arguments; thread-safe.
#ifndef PERFLAB_TOOLS_CAPSTONE_MVA_ESTIMATE_H_
#define PERFLAB_TOOLS_CAPSTONE_MVA_ESTIMATE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/document.h"
#include "models/mva.h"
#include "sim/order_service/calibration.h"
#include "sim/order_service/model.h"
#include "tools/capstone/composer.h"
#include "tools/capstone/thresholds.h"

namespace perflab::capstone {

// MVA and the simulation agree when they differ by at most this (%).
inline constexpr double kMvaAgreementPct = 15;

// The pure waits of one cache miss (ms): the inventory stub's service time,
// plus the Nagle + delayed-ACK stall on a kept-alive connection without
// TCP_NODELAY (every call but a connection's first, which the model pays).
double MissWaitMs(const sim::Calibration& calibration,
                  const sim::OrderServiceConfig& config);

// The step's closed loop as a network in seconds, stations in the order
// generator, cores, pool, waits. InvalidArgument when the step's RPS is not
// > 0 or a station has no servers (a figure the run did not measure).
absl::StatusOr<models::SingleClassNetwork> StepNetwork(const StepFigures& f);

// Why MVA and the simulation differ by more than kMvaAgreementPct, as the
// step's caps show it: a request-thread cap full while no station is
// (kThreadCap), a full pool (kPool), or neither (kStations: the stations'
// own service, not exponential as MVA assumes). kNone: they agree.
enum class MvaGap { kNone, kThreadCap, kPool, kStations };

struct StepMva {
  bool solved = false;  // false: no network (StepNetwork's error), all 0
  models::SingleClassNetwork network;
  double mva_rps = 0;         // exact MVA X(N) at N clients, Z = 0
  double bound_rps = 0;       // 1 / D_max
  double knee_clients = 0;    // N* = D / D_max
  std::string bottleneck;     // the station of D_max
  double difference_pct = 0;  // 100 (MVA / simulated - 1)
  MvaGap gap = MvaGap::kNone;
  std::string reason;  // the gap with the step's figures; empty for kNone
};

// Exact MVA for `clients` clients of the step's network.
StepMva EstimateStep(const StepFigures& f, int64_t clients);

// The gap a step's caps show (never kNone: call it for a step that differs).
MvaGap GapOf(const StepFigures& f);
// The gap in words with the step's own figures ("" for kNone).
std::string Reason(const StepFigures& f, MvaGap gap);

// The "mva" table (text, csv, Markdown) and its notes, for the rig's
// closed-loop clients.
void AddMvaTable(core::Document& doc, const std::vector<const Step*>& steps,
                 const std::vector<StepFigures>& figures);

// The JSON record's "mva" list: [{name, mva_rps, rps, difference_pct,
// bottleneck, bound_rps, knee_clients, total_demand_ms, stations: [{name, kind,
// servers, demand_ms}], agrees, reason}], one per step (unsolved steps: zeros,
// no stations).
core::Node MvaRecords(const std::vector<const Step*>& steps,
                      const std::vector<StepFigures>& figures);

}  // namespace perflab::capstone

#endif  // PERFLAB_TOOLS_CAPSTONE_MVA_ESTIMATE_H_
