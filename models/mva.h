// Closed queueing networks by Mean Value Analysis (Reiser and Lavenberg,
// 1980): a fixed population of clients cycles through stations and a think
// time, as the clients of a closed-loop load test do. What it gives:
//
//   - exact single-class MVA with queueing stations (FCFS exponential or
//     processor sharing: the same means), delay stations (no queueing) and
//     c-server stations, whose rate min(n, c) / S depends on how many are
//     present (exact through the marginal probabilities p(j) for j < c);
//   - exact multi-class MVA over the whole population lattice, for small
//     populations: prod_c (N_c + 1) x 2^L <= kMaxExactMvaWork, with L the
//     number of c-server stations;
//   - Schweitzer-Bard approximate MVA for any population (its error is
//     stated at SolveSchweitzerBard);
//   - the asymptotic bounds of operational analysis, the balanced job bounds
//     and the knee N* of the throughput curve.
//
// Times are in seconds, throughputs per second. A station's demand D is its
// visits per request times its service time per visit. The response time R
// counts every station, delay stations included; the think time Z is outside
// it (X = N / (R + Z)). Invalid input (a negative or non-finite demand, zero
// servers, no station, a population too large for exact multi-class MVA) is an
// InvalidArgument error naming the value.
//
// Pure functions of their arguments; thread-safe.
#ifndef PERFLAB_MODELS_MVA_H_
#define PERFLAB_MODELS_MVA_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace perflab::models {

enum class StationKind {
  kQueue,  // FCFS with exponential service, or processor sharing
  kDelay,  // infinite servers: every client is served at once, no queueing
};

struct Station {
  std::string name;  // for results and messages: "cpu", "disk"
  StationKind kind = StationKind::kQueue;
  double demand_s = 0;  // service demand per request: visits x time per visit
  // Queueing stations: identical servers sharing one queue (an M/M/c-like
  // station, or c cores under processor sharing); its rate with n present is
  // min(n, c) / S. Ignored for delay stations. Must be in 1..kMaxServers.
  int64_t servers = 1;
};

// One class of clients in a closed network.
struct SingleClassNetwork {
  std::vector<Station> stations;  // at least one
  double think_s = 0;             // Z: mean think time between requests
};

struct StationPoint {
  // Busy share of one server: X D / c (queueing stations); 0 for a delay
  // station, which has no servers to keep busy.
  double utilisation = 0;
  double queue_length = 0;  // mean clients present, waiting or served
  double response_s = 0;    // mean time a request spends there (all visits)
};

struct MvaPoint {
  int64_t clients = 0;                 // N
  double throughput_per_s = 0;         // X(N)
  double response_s = 0;               // R(N) = N / X - Z
  std::vector<StationPoint> stations;  // in the network's order
};

// Exact MVA for N = 1..max_clients; element i is N = i + 1. O(N K) time for
// single-server and delay stations, O(N K c 2^L) with L c-server stations
// (see kMaxExactMvaWork).
absl::StatusOr<std::vector<MvaPoint>> SolveExactMva(
    const SingleClassNetwork& network, int64_t max_clients);

// The station that limits throughput as N grows: the largest D / c among
// queueing stations (the first of equals). -1 if there is none (all delay).
int BottleneckStation(const SingleClassNetwork& network);

// Operational bounds for N clients (Denning and Buzen; Lazowska et al.,
// Quantitative System Performance, 1984, ch. 5). D is the total demand, D_max
// the largest D / c of a queueing station; delay stations count as think time
// in the balanced job bounds, which hold for single-server stations only.
struct MvaBounds {
  double total_demand_s = 0;  // D
  double max_demand_s = 0;    // D_max
  double knee_clients = 0;    // N* = (D + Z) / D_max: where the bounds cross
  // X(N) <= min(N / (D + Z), 1 / D_max).
  double throughput_upper_per_s = 0;
  // R(N) >= max(D, N D_max - Z).
  double response_lower_s = 0;
  // Balanced job bounds with think time (Zahorjan et al., 1982); false (and
  // both 0) when a queueing station has more than one server.
  bool balanced = false;
  double balanced_throughput_lower_per_s = 0;
  double balanced_throughput_upper_per_s = 0;
};
absl::StatusOr<MvaBounds> Bounds(const SingleClassNetwork& network,
                                 int64_t clients);

// Multi-class networks: each station has one demand per class.
struct MultiClassStation {
  std::string name;
  StationKind kind = StationKind::kQueue;
  std::vector<double> demand_s;  // per class, in the network's class order
  // As Station::servers. With several classes a queueing station serves them
  // by processor sharing (or FCFS when every class has the same demand).
  int64_t servers = 1;
};

struct MultiClassNetwork {
  std::vector<MultiClassStation> stations;
  std::vector<int64_t> clients;  // N_c per class, each >= 0
  std::vector<double> think_s;   // Z_c per class
};

struct MultiClassResult {
  std::vector<double> throughput_per_s;  // X_c
  std::vector<double> response_s;        // R_c = N_c / X_c - Z_c (0 if N_c 0)
  // [class][station]: mean clients of the class present, and the mean time
  // one of its requests spends there.
  std::vector<std::vector<double>> queue_length;
  std::vector<std::vector<double>> station_response_s;
  // [station]: sum over classes of X_c D_ck / c (0 for delay stations).
  std::vector<double> utilisation;
  int64_t iterations = 0;  // Schweitzer-Bard's fixed-point steps; 0 if exact
};

// The most work exact MVA takes on: it walks the lattice of populations 0 <=
// n <= N, prod_c (N_c + 1) points of K stations each, once for the network
// and once for each sub-network without some of its L c-server stations
// (a c-server station's idle probability comes from the network without
// it), so time and memory grow with prod_c (N_c + 1) x 2^L. One class of N
// clients through single-server stations is N + 1 points. Past the limit
// (or past 63 stations, or 30 c-server ones) both exact solvers return
// InvalidArgument naming the limit and the approximate solver.
inline constexpr int64_t kMaxExactMvaWork = 1'000'000;
// Exact MVA also keeps, per lattice point, a queue length per station and
// the probabilities of 0..c-1 busy servers per c-server station: points x
// (K + the sum of c) numbers, at most this many (512 MiB of doubles).
inline constexpr int64_t kMaxExactMvaCells = 64'000'000;
// The most servers a station may have (a queueing station's c; far beyond
// any machine's cores, and small enough that nothing sized by it overflows).
inline constexpr int64_t kMaxServers = 1'000'000;

// A nonzero demand per request lies in [kMinDemandS, kMaxDemandS]: a
// picosecond (shorter than any clock cycle) to about 31 years. Within them
// N / D and N x D stay finite for every population the solvers take, where a
// subnormal demand would make the throughput infinite.
inline constexpr double kMinDemandS = 1e-12;
inline constexpr double kMaxDemandS = 1e9;

// Exact multi-class MVA at the full population.
absl::StatusOr<MultiClassResult> SolveExactMultiClassMva(
    const MultiClassNetwork& network);

struct SchweitzerOptions {
  double tolerance = 1e-10;  // stop when no queue length moves more than this
  int64_t max_iterations = 100'000;
};

// Schweitzer-Bard approximate MVA: the queue a class-c arrival sees at the
// full population N is estimated as Q_k(N) - Q_ck(N) / N_c instead of being
// solved at N - e_c, and the equations are iterated to a fixed point. A
// c-server station is replaced by Seidmann's pair (a queue of demand D / c
// and a delay of D (c - 1) / c) before the iteration.
//
// Error against exact MVA, the worst relative error mva_test observes on
// random networks of single-server and delay stations (demands 0.01-0.51 s,
// think times 0-2 s): one class at every N = 1..100, 7 % on throughput and 22
// % on response time; 1 to 3 classes of 1 to 15 clients, 12.5 % and 18 %.
// It is worst near the knee N*, and vanishes at N = 1 and far past the knee.
// Seidmann's replacement of c-server stations adds its own: 22 % and 28 % in
// the same test's networks with 2- to 5-server stations. Use it where exact
// MVA is out of reach (kMaxExactMvaWork), not in place of it.
absl::StatusOr<MultiClassResult> SolveSchweitzerBard(
    const MultiClassNetwork& network, const SchweitzerOptions& options = {});

// The single-class network as a multi-class one with one class of N clients.
MultiClassNetwork AsMultiClass(const SingleClassNetwork& network,
                               int64_t clients);

}  // namespace perflab::models

#endif  // PERFLAB_MODELS_MVA_H_
