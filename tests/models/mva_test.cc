// Mean Value Analysis against two sources that know nothing of models/mva.cc:
// a textbook's published table, and the continuous-time Markov chain of the
// same small networks solved here by brute force (every state enumerated,
// the generator built, the global-balance equations solved by Gaussian
// elimination). Schweitzer-Bard is checked against exact MVA within the
// error its header states; the bounds against exact MVA on random networks.
#include "models/mva.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "core/random.h"
#include "gtest/gtest.h"

namespace perflab::models {
namespace {

// --- The brute-force chain -------------------------------------------------

// Each class cycles think -> station 0 -> station 1 -> ... -> think (the
// think stage is left out when Z_c is 0), one visit to each station, so a
// demand is the mean service time of that visit. A queueing station with c
// servers and n present serves at total rate min(n, c) / S shared by
// processor sharing: class c leaves at (n_c / n) min(n, c) / S_c. With one
// class this is also the FCFS exponential station. The chain's answer is the
// exact mean behaviour of the network, product form or not.
struct ChainResult {
  std::vector<double> throughput_per_s;           // [class]
  std::vector<std::vector<double>> queue_length;  // [class][station]
  std::vector<double> utilisation;                // [station], per server
};

// Solves A x = b in place by Gaussian elimination with partial pivoting.
std::vector<double> SolveLinear(std::vector<std::vector<double>> a,
                                std::vector<double> b) {
  const size_t n = b.size();
  for (size_t col = 0; col < n; ++col) {
    size_t pivot = col;
    for (size_t row = col + 1; row < n; ++row) {
      if (std::abs(a[row][col]) > std::abs(a[pivot][col])) pivot = row;
    }
    std::swap(a[col], a[pivot]);
    std::swap(b[col], b[pivot]);
    for (size_t row = col + 1; row < n; ++row) {
      const double f = a[row][col] / a[col][col];
      if (f == 0) continue;
      for (size_t j = col; j < n; ++j) a[row][j] -= f * a[col][j];
      b[row] -= f * b[col];
    }
  }
  std::vector<double> x(n);
  for (size_t i = n; i-- > 0;) {
    double s = b[i];
    for (size_t j = i + 1; j < n; ++j) s -= a[i][j] * x[j];
    x[i] = s / a[i][i];
  }
  return x;
}

ChainResult SolveChain(const MultiClassNetwork& net) {
  const size_t classes = net.clients.size();
  const size_t stations = net.stations.size();
  // A state: for each class, how many of its clients are at each stage;
  // stage 0 is thinking, stages 1..K the stations.
  const size_t stages = stations + 1;
  using State = std::vector<int64_t>;  // [class * stages + stage]
  std::vector<State> all;
  std::map<State, size_t> index;
  // Every way to place each class's N_c clients over the stages it visits.
  State s(classes * stages, 0);
  auto place = [&](auto&& self, size_t c, size_t stage, int64_t left) -> void {
    if (c == classes) {
      index[s] = all.size();
      all.push_back(s);
      return;
    }
    const bool last = stage + 1 == stages;
    const bool visits = stage > 0 || net.think_s[c] > 0;
    if (last) {
      if (!visits && left > 0) return;
      s[c * stages + stage] = left;
      self(self, c + 1, 0, net.clients[c + 1 < classes ? c + 1 : c]);
      s[c * stages + stage] = 0;
      return;
    }
    for (int64_t here = 0; here <= (visits ? left : 0); ++here) {
      s[c * stages + stage] = here;
      self(self, c, stage + 1, left - here);
    }
    s[c * stages + stage] = 0;
  };
  place(place, 0, 0, net.clients[0]);

  // Rate at which one class-c client leaves `stage` in state `st`.
  auto rate = [&](const State& st, size_t c, size_t stage) -> double {
    const int64_t here = st[c * stages + stage];
    if (here == 0) return 0;
    if (stage == 0) return static_cast<double>(here) / net.think_s[c];
    const MultiClassStation& m = net.stations[stage - 1];
    const double service = m.demand_s[c];
    if (m.kind == StationKind::kDelay) {
      return static_cast<double>(here) / service;
    }
    int64_t total = 0;
    for (size_t i = 0; i < classes; ++i) total += st[i * stages + stage];
    const double busy = static_cast<double>(std::min(total, m.servers));
    return static_cast<double>(here) / static_cast<double>(total) * busy /
           service;
  };
  auto next_stage = [&](size_t c, size_t stage) -> size_t {
    if (stage + 1 < stages) return stage + 1;
    return net.think_s[c] > 0 ? 0 : 1;
  };

  // Global balance: pi Q = 0, written as Q^T pi = 0 with the last equation
  // replaced by sum pi = 1.
  const size_t n = all.size();
  std::vector<std::vector<double>> a(n, std::vector<double>(n, 0));
  for (size_t from = 0; from < n; ++from) {
    for (size_t c = 0; c < classes; ++c) {
      for (size_t stage = 0; stage < stages; ++stage) {
        const double r = rate(all[from], c, stage);
        if (r == 0) continue;
        State to = all[from];
        --to[c * stages + stage];
        ++to[c * stages + next_stage(c, stage)];
        const size_t j = index.at(to);
        a[j][from] += r;
        a[from][from] -= r;
      }
    }
  }
  std::vector<double> b(n, 0);
  a[n - 1].assign(n, 1);
  b[n - 1] = 1;
  const std::vector<double> pi = SolveLinear(a, b);

  ChainResult out;
  out.throughput_per_s.assign(classes, 0);
  out.queue_length.assign(classes, std::vector<double>(stations, 0));
  out.utilisation.assign(stations, 0);
  for (size_t i = 0; i < n; ++i) {
    const State& st = all[i];
    for (size_t c = 0; c < classes; ++c) {
      // A cycle ends when a client leaves the last station.
      out.throughput_per_s[c] += pi[i] * rate(st, c, stages - 1);
      for (size_t k = 0; k < stations; ++k) {
        out.queue_length[c][k] +=
            pi[i] * static_cast<double>(st[c * stages + k + 1]);
      }
    }
    for (size_t k = 0; k < stations; ++k) {
      const MultiClassStation& m = net.stations[k];
      if (m.kind == StationKind::kDelay) continue;
      int64_t total = 0;
      for (size_t c = 0; c < classes; ++c) total += st[c * stages + k + 1];
      out.utilisation[k] += pi[i] *
                            static_cast<double>(std::min(total, m.servers)) /
                            static_cast<double>(m.servers);
    }
  }
  return out;
}

void ExpectRelNear(double expected, double actual, double rel,
                   const std::string& what) {
  EXPECT_NEAR(actual, expected, rel * std::max(1.0, std::abs(expected)))
      << what;
}

// Exact MVA and the chain agree on every figure of a multi-class network.
void ExpectMatchesChain(const MultiClassNetwork& net) {
  const ChainResult chain = SolveChain(net);
  absl::StatusOr<MultiClassResult> mva = SolveExactMultiClassMva(net);
  ASSERT_TRUE(mva.ok()) << mva.status();
  for (size_t c = 0; c < net.clients.size(); ++c) {
    const std::string cls = "class " + std::to_string(c);
    ExpectRelNear(chain.throughput_per_s[c], mva->throughput_per_s[c], 1e-9,
                  cls + " X");
    double q_total = 0;
    for (size_t k = 0; k < net.stations.size(); ++k) {
      ExpectRelNear(chain.queue_length[c][k], mva->queue_length[c][k], 1e-9,
                    cls + " Q at " + net.stations[k].name);
      q_total += chain.queue_length[c][k];
    }
    if (net.clients[c] > 0) {
      // Little's Law on the chain: R = (clients not thinking) / X.
      ExpectRelNear(q_total / chain.throughput_per_s[c], mva->response_s[c],
                    1e-9, cls + " R");
    }
  }
  for (size_t k = 0; k < net.stations.size(); ++k) {
    ExpectRelNear(chain.utilisation[k], mva->utilisation[k], 1e-9,
                  "U at " + net.stations[k].name);
  }
}

// Single-class exact MVA at every N against the chain at that N.
void ExpectSingleClassMatchesChain(const SingleClassNetwork& net,
                                   int64_t max_clients) {
  absl::StatusOr<std::vector<MvaPoint>> points =
      SolveExactMva(net, max_clients);
  ASSERT_TRUE(points.ok()) << points.status();
  for (const MvaPoint& p : *points) {
    const ChainResult chain = SolveChain(AsMultiClass(net, p.clients));
    const std::string at = "N = " + std::to_string(p.clients);
    ExpectRelNear(chain.throughput_per_s[0], p.throughput_per_s, 1e-9,
                  at + " X");
    double q_total = 0;
    for (size_t k = 0; k < net.stations.size(); ++k) {
      ExpectRelNear(chain.queue_length[0][k], p.stations[k].queue_length, 1e-9,
                    at + " Q at " + net.stations[k].name);
      ExpectRelNear(chain.utilisation[k], p.stations[k].utilisation, 1e-9,
                    at + " U at " + net.stations[k].name);
      q_total += chain.queue_length[0][k];
    }
    ExpectRelNear(q_total / chain.throughput_per_s[0], p.response_s, 1e-9,
                  at + " R");
  }
}

// --- A published example ---------------------------------------------------

// R. Jain, The Art of Computer Systems Performance Analysis (Wiley, 1991),
// chapter 34, Example 34.2 and Table 34.1 ("MVA Results for Example 34.2"):
// a timesharing system with think time Z = 4 s, a CPU (0.125 s per visit, 16
// visits), disk A (0.3 s, 10 visits) and disk B (0.2 s, 5 visits). The table
// prints per-visit response times, the system response time, throughput and
// queue lengths to three decimals for N = 1..5 and 17..20.
TEST(MvaTextbook, JainExample34_2Table34_1) {
  SingleClassNetwork net;
  net.think_s = 4;
  net.stations = {{"cpu", StationKind::kQueue, 0.125 * 16, 1},
                  {"disk_a", StationKind::kQueue, 0.3 * 10, 1},
                  {"disk_b", StationKind::kQueue, 0.2 * 5, 1}};
  const double visits[] = {16, 10, 5};
  struct Row {
    int64_t n;
    double r_visit[3];  // per-visit response time at cpu, A, B (s)
    double r, x;        // system response time (s), throughput (/s)
    double q[3];        // queue lengths at cpu, A, B
  };
  const Row rows[] = {
      {1, {0.125, 0.300, 0.200}, 6.000, 0.100, {0.200, 0.300, 0.100}},
      {2, {0.150, 0.390, 0.220}, 7.400, 0.175, {0.421, 0.684, 0.193}},
      {3, {0.178, 0.505, 0.239}, 9.088, 0.229, {0.651, 1.158, 0.273}},
      {4, {0.206, 0.647, 0.255}, 11.051, 0.266, {0.878, 1.721, 0.338}},
      {5, {0.235, 0.816, 0.268}, 13.256, 0.290, {1.088, 2.365, 0.388}},
      {17, {0.370, 3.962, 0.300}, 47.045, 0.333, {1.974, 13.195, 0.499}},
      {18, {0.372, 4.259, 0.300}, 50.032, 0.333, {1.981, 14.187, 0.499}},
      {19, {0.373, 4.556, 0.300}, 53.022, 0.333, {1.987, 15.181, 0.500}},
      {20, {0.373, 4.854, 0.300}, 56.016, 0.333, {1.991, 16.177, 0.500}},
  };
  absl::StatusOr<std::vector<MvaPoint>> points = SolveExactMva(net, 20);
  ASSERT_TRUE(points.ok()) << points.status();
  // Three printed decimals: within half a unit of the last digit.
  const double tol = 0.0005 + 1e-9;
  for (const Row& row : rows) {
    const MvaPoint& p = (*points)[static_cast<size_t>(row.n - 1)];
    SCOPED_TRACE(row.n);
    EXPECT_NEAR(p.response_s, row.r, tol);
    EXPECT_NEAR(p.throughput_per_s, row.x, tol);
    for (size_t k = 0; k < 3; ++k) {
      EXPECT_NEAR(p.stations[k].response_s / visits[k], row.r_visit[k], tol);
      EXPECT_NEAR(p.stations[k].queue_length, row.q[k], tol);
    }
  }
}

// --- Exact MVA against the chain --------------------------------------------

TEST(MvaExact, SingleClassQueuesAndDelayMatchTheChain) {
  SingleClassNetwork net;
  net.think_s = 0.5;
  net.stations = {{"cpu", StationKind::kQueue, 0.04, 1},
                  {"disk", StationKind::kQueue, 0.09, 1},
                  {"net", StationKind::kDelay, 0.02, 1},
                  {"db", StationKind::kQueue, 0.06, 1}};
  ExpectSingleClassMatchesChain(net, 6);
}

TEST(MvaExact, SingleClassWithoutThinkTimeMatchesTheChain) {
  SingleClassNetwork net;
  net.stations = {{"a", StationKind::kQueue, 0.3, 1},
                  {"b", StationKind::kQueue, 0.1, 1}};
  ExpectSingleClassMatchesChain(net, 5);
}

TEST(MvaExact, MultiServerStationsMatchTheChain) {
  // A 3-core CPU and a 2-disk array: their rates depend on how many are
  // present, so the arrival theorem alone is not enough; the marginal
  // probabilities carry the rest. N up to 7 passes both stations' c.
  SingleClassNetwork net;
  net.think_s = 0.2;
  net.stations = {{"cpu", StationKind::kQueue, 0.15, 3},
                  {"disks", StationKind::kQueue, 0.08, 2},
                  {"log", StationKind::kQueue, 0.03, 1}};
  ExpectSingleClassMatchesChain(net, 7);
}

TEST(MvaExact, MultiClassMatchesTheChain) {
  // Two classes with different demands at each processor-sharing station.
  MultiClassNetwork net;
  net.clients = {3, 2};
  net.think_s = {0.4, 0.1};
  net.stations = {{"cpu", StationKind::kQueue, {0.05, 0.2}, 1},
                  {"disk", StationKind::kQueue, {0.12, 0.03}, 1},
                  {"net", StationKind::kDelay, {0.01, 0.06}, 1}};
  ExpectMatchesChain(net);
}

TEST(MvaExact, MultiClassWithAMultiServerStationMatchesTheChain) {
  MultiClassNetwork net;
  net.clients = {3, 3};
  net.think_s = {0.3, 0};
  net.stations = {{"cpu", StationKind::kQueue, {0.1, 0.25}, 2},
                  {"disk", StationKind::kQueue, {0.07, 0.04}, 1},
                  {"cores", StationKind::kQueue, {0.05, 0.12}, 3}};
  ExpectMatchesChain(net);
}

TEST(MvaExact, AClassWithNoClientsChangesNothing) {
  MultiClassNetwork two;
  two.clients = {4, 0};
  two.think_s = {0.2, 0.1};
  two.stations = {{"cpu", StationKind::kQueue, {0.05, 0.3}, 2},
                  {"disk", StationKind::kQueue, {0.1, 0.3}, 1}};
  ExpectMatchesChain(two);
  absl::StatusOr<MultiClassResult> r = SolveExactMultiClassMva(two);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->throughput_per_s[1], 0);
  EXPECT_EQ(r->response_s[1], 0);
}

TEST(MvaExact, OneClassOfTheMultiClassSolverIsTheSingleClassSolver) {
  SingleClassNetwork net;
  net.think_s = 1;
  net.stations = {{"cpu", StationKind::kQueue, 0.2, 4},
                  {"disk", StationKind::kQueue, 0.1, 1},
                  {"lan", StationKind::kDelay, 0.05, 1}};
  absl::StatusOr<std::vector<MvaPoint>> single = SolveExactMva(net, 30);
  absl::StatusOr<MultiClassResult> multi =
      SolveExactMultiClassMva(AsMultiClass(net, 30));
  ASSERT_TRUE(single.ok() && multi.ok());
  const MvaPoint& p = single->back();
  ExpectRelNear(p.throughput_per_s, multi->throughput_per_s[0], 1e-12, "X");
  ExpectRelNear(p.response_s, multi->response_s[0], 1e-12, "R");
  for (size_t k = 0; k < 3; ++k) {
    ExpectRelNear(p.stations[k].queue_length, multi->queue_length[0][k], 1e-12,
                  "Q");
  }
}

TEST(MvaExact, ManyClientsOnAMultiServerStationStaySane) {
  // Ten thousand clients on 8 cores: the p(j) recursion must not drift into
  // negative probabilities, and X must reach the cores' c / D.
  SingleClassNetwork net;
  net.think_s = 1;
  net.stations = {{"cpu", StationKind::kQueue, 0.08, 8},
                  {"disk", StationKind::kQueue, 0.005, 1}};
  absl::StatusOr<std::vector<MvaPoint>> points = SolveExactMva(net, 10'000);
  ASSERT_TRUE(points.ok());
  double last_x = 0;
  for (const MvaPoint& p : *points) {
    ASSERT_GE(p.throughput_per_s, last_x - 1e-12) << p.clients;
    ASSERT_LE(p.throughput_per_s, 100 + 1e-9) << p.clients;
    ASSERT_GE(p.stations[0].queue_length, 0);
    last_x = p.throughput_per_s;
  }
  // Far past the knee the cores are busy all the time: X = 8 / 0.08 s.
  EXPECT_NEAR(points->back().throughput_per_s, 100, 1e-9);
  EXPECT_NEAR(points->back().stations[0].utilisation, 1, 1e-9);
}

// --- Bounds ----------------------------------------------------------------

SingleClassNetwork RandomNetwork(core::Xoshiro256& rng, bool multi_server) {
  SingleClassNetwork net;
  net.think_s = rng.Uniform01() < 0.3 ? 0 : 2 * rng.Uniform01();
  const int64_t k = 1 + static_cast<int64_t>(rng.Below(6));
  for (int64_t i = 0; i < k; ++i) {
    Station s;
    s.name = "s" + std::to_string(i);
    s.demand_s = 0.01 + 0.5 * rng.Uniform01();
    if (i > 0 && rng.Uniform01() < 0.2) s.kind = StationKind::kDelay;
    if (multi_server && rng.Uniform01() < 0.4) {
      s.servers = 1 + static_cast<int64_t>(rng.Below(4));
    }
    net.stations.push_back(s);
  }
  return net;
}

TEST(MvaBounds, HoldForEveryPopulationOfRandomNetworks) {
  core::Xoshiro256 rng(2601);
  for (int trial = 0; trial < 200; ++trial) {
    const SingleClassNetwork net = RandomNetwork(rng, trial % 2 == 1);
    absl::StatusOr<std::vector<MvaPoint>> points = SolveExactMva(net, 200);
    ASSERT_TRUE(points.ok());
    for (const MvaPoint& p : *points) {
      absl::StatusOr<MvaBounds> b = Bounds(net, p.clients);
      ASSERT_TRUE(b.ok());
      SCOPED_TRACE(::testing::Message()
                   << "trial " << trial << " N " << p.clients);
      const double eps = 1e-12;
      EXPECT_LE(p.throughput_per_s,
                b->throughput_upper_per_s * (1 + eps) + eps);
      EXPECT_GE(p.response_s, b->response_lower_s * (1 - eps) - eps);
      if (b->balanced) {
        EXPECT_GE(p.throughput_per_s,
                  b->balanced_throughput_lower_per_s * (1 - eps));
        EXPECT_LE(p.throughput_per_s,
                  b->balanced_throughput_upper_per_s * (1 + eps));
      }
    }
  }
}

TEST(MvaBounds, TightWhereTheyMustBe) {
  SingleClassNetwork net;
  net.think_s = 2;
  net.stations = {{"cpu", StationKind::kQueue, 0.2, 1},
                  {"disk", StationKind::kQueue, 0.5, 1},
                  {"lan", StationKind::kDelay, 0.1, 1}};
  absl::StatusOr<std::vector<MvaPoint>> points = SolveExactMva(net, 2000);
  ASSERT_TRUE(points.ok());
  // N = 1: nobody queues, R = D = 0.2 + 0.5 + 0.1 and X = 1 / (D + Z).
  EXPECT_DOUBLE_EQ(points->front().response_s, 0.8);
  EXPECT_DOUBLE_EQ(points->front().throughput_per_s, 1 / 2.8);
  absl::StatusOr<MvaBounds> b1 = Bounds(net, 1);
  ASSERT_TRUE(b1.ok());
  EXPECT_DOUBLE_EQ(b1->response_lower_s, 0.8);
  EXPECT_DOUBLE_EQ(b1->throughput_upper_per_s, 1 / 2.8);
  EXPECT_DOUBLE_EQ(b1->balanced_throughput_lower_per_s, 1 / 2.8);
  EXPECT_DOUBLE_EQ(b1->balanced_throughput_upper_per_s, 1 / 2.8);
  // N* = (D + Z) / D_max = 2.8 / 0.5.
  EXPECT_DOUBLE_EQ(b1->knee_clients, 5.6);
  // Far past the knee the disk is saturated: X -> 1 / D_max, and R -> N
  // D_max - Z.
  absl::StatusOr<MvaBounds> b = Bounds(net, 2000);
  ASSERT_TRUE(b.ok());
  EXPECT_NEAR(points->back().throughput_per_s, 2, 1e-9);
  EXPECT_NEAR(points->back().response_s, b->response_lower_s, 1e-6);
  EXPECT_EQ(BottleneckStation(net), 1);
}

TEST(MvaBounds, MultiServerStationsCountAtTheirServiceRate) {
  SingleClassNetwork net;
  net.stations = {{"cpu", StationKind::kQueue, 0.8, 8},
                  {"disk", StationKind::kQueue, 0.2, 1}};
  // The cores' D / c = 0.1 s is below the disk's 0.2 s.
  EXPECT_EQ(BottleneckStation(net), 1);
  absl::StatusOr<MvaBounds> b = Bounds(net, 100);
  ASSERT_TRUE(b.ok());
  EXPECT_DOUBLE_EQ(b->max_demand_s, 0.2);
  EXPECT_FALSE(b->balanced);
}

// --- Schweitzer-Bard --------------------------------------------------------

MultiClassNetwork RandomMultiClass(core::Xoshiro256& rng, bool multi_server) {
  MultiClassNetwork net;
  const size_t classes = 1 + static_cast<size_t>(rng.Below(3));
  const size_t stations = 1 + static_cast<size_t>(rng.Below(6));
  for (size_t c = 0; c < classes; ++c) {
    net.clients.push_back(1 + static_cast<int64_t>(rng.Below(15)));
    net.think_s.push_back(rng.Uniform01() < 0.3 ? 0 : 2 * rng.Uniform01());
  }
  for (size_t k = 0; k < stations; ++k) {
    MultiClassStation s;
    s.name = "s" + std::to_string(k);
    if (k > 0 && rng.Uniform01() < 0.2) s.kind = StationKind::kDelay;
    if (multi_server && s.kind == StationKind::kQueue &&
        rng.Uniform01() < 0.5) {
      s.servers = 2 + static_cast<int64_t>(rng.Below(4));
    }
    for (size_t c = 0; c < classes; ++c) {
      s.demand_s.push_back(0.01 + 0.5 * rng.Uniform01());
    }
    net.stations.push_back(s);
  }
  return net;
}

struct WorstError {
  double throughput = 0, response = 0;
};

WorstError SchweitzerWorstError(bool multi_server, uint64_t seed) {
  core::Xoshiro256 rng(seed);
  WorstError worst;
  for (int trial = 0; trial < 200; ++trial) {
    const MultiClassNetwork net = RandomMultiClass(rng, multi_server);
    absl::StatusOr<MultiClassResult> exact = SolveExactMultiClassMva(net);
    absl::StatusOr<MultiClassResult> approx = SolveSchweitzerBard(net);
    EXPECT_TRUE(exact.ok() && approx.ok());
    if (!exact.ok() || !approx.ok()) continue;
    for (size_t c = 0; c < net.clients.size(); ++c) {
      worst.throughput = std::max(
          worst.throughput,
          std::abs(approx->throughput_per_s[c] - exact->throughput_per_s[c]) /
              exact->throughput_per_s[c]);
      worst.response = std::max(worst.response, std::abs(approx->response_s[c] -
                                                         exact->response_s[c]) /
                                                    exact->response_s[c]);
    }
  }
  return worst;
}

TEST(MvaSchweitzerBard, WithinItsStatedErrorOfExact) {
  // mva.h states the worst relative errors these tests observe: near the
  // knee of a small population (one station of 0.376 s, Z 0.941 s, N = 4:
  // exact R 0.829 s, Schweitzer-Bard 0.940 s, checked by hand) the estimate
  // of the queue an arrival sees, (N - 1) / N Q(N), is too pessimistic.
  const WorstError w = SchweitzerWorstError(false, 26);
  EXPECT_LE(w.throughput, 0.125) << w.throughput;
  EXPECT_LE(w.response, 0.18) << w.response;
  std::printf("single-server: worst X error %.4f, worst R error %.4f\n",
              w.throughput, w.response);
}

TEST(MvaSchweitzerBard, SeidmannMultiServerWithinItsStatedError) {
  const WorstError w = SchweitzerWorstError(true, 62);
  EXPECT_LE(w.throughput, 0.22) << w.throughput;
  EXPECT_LE(w.response, 0.28) << w.response;
  std::printf("multi-server: worst X error %.4f, worst R error %.4f\n",
              w.throughput, w.response);
}

TEST(MvaSchweitzerBard, SingleClassAtEveryPopulation) {
  // One class, every N from 1 to 100 of 100 random networks.
  core::Xoshiro256 rng(2626);
  WorstError w;
  for (int trial = 0; trial < 100; ++trial) {
    const SingleClassNetwork net = RandomNetwork(rng, false);
    absl::StatusOr<std::vector<MvaPoint>> exact = SolveExactMva(net, 100);
    ASSERT_TRUE(exact.ok());
    for (const MvaPoint& p : *exact) {
      absl::StatusOr<MultiClassResult> approx =
          SolveSchweitzerBard(AsMultiClass(net, p.clients));
      ASSERT_TRUE(approx.ok());
      w.throughput =
          std::max(w.throughput,
                   std::abs(approx->throughput_per_s[0] - p.throughput_per_s) /
                       p.throughput_per_s);
      w.response =
          std::max(w.response, std::abs(approx->response_s[0] - p.response_s) /
                                   p.response_s);
    }
  }
  EXPECT_LE(w.throughput, 0.07) << w.throughput;
  EXPECT_LE(w.response, 0.22) << w.response;
  std::printf("single class: worst X error %.4f, worst R error %.4f\n",
              w.throughput, w.response);
}

TEST(MvaSchweitzerBard, OneClientIsExact) {
  // With N = 1 the arrival sees nobody both ways: Q - Q / 1 = 0.
  MultiClassNetwork net;
  net.clients = {1};
  net.think_s = {1};
  net.stations = {{"a", StationKind::kQueue, {0.3}, 1},
                  {"b", StationKind::kQueue, {0.2}, 1}};
  absl::StatusOr<MultiClassResult> r = SolveSchweitzerBard(net);
  ASSERT_TRUE(r.ok());
  EXPECT_NEAR(r->throughput_per_s[0], 1 / 1.5, 1e-9);
  EXPECT_NEAR(r->response_s[0], 0.5, 1e-9);
}

// The Utilisation Law holds for the approximation as for any solution:
// U_k = sum_c X_c D_ck / c_k from the solver's own throughputs, below 1, on
// random networks with c-server stations.
TEST(MvaSchweitzerBard, UtilisationIsThroughputTimesDemandPerServer) {
  core::Xoshiro256 rng(3636);
  int multi_server_seen = 0;
  for (int trial = 0; trial < 100; ++trial) {
    const MultiClassNetwork net = RandomMultiClass(rng, true);
    absl::StatusOr<MultiClassResult> r = SolveSchweitzerBard(net);
    ASSERT_TRUE(r.ok()) << r.status();
    for (size_t k = 0; k < net.stations.size(); ++k) {
      const MultiClassStation& s = net.stations[k];
      double law = 0;
      if (s.kind == StationKind::kQueue) {
        for (size_t c = 0; c < net.clients.size(); ++c) {
          law += r->throughput_per_s[c] * s.demand_s[c];
        }
        law /= static_cast<double>(s.servers);
        multi_server_seen += s.servers > 1 ? 1 : 0;
      }
      EXPECT_NEAR(r->utilisation[k], law, 1e-12 + 1e-9 * law) << trial;
      EXPECT_LE(r->utilisation[k], 1 + 1e-9) << trial;
    }
  }
  EXPECT_GT(multi_server_seen, 20);
}

// --- Bad input -------------------------------------------------------------

// A server count sizes memory (exact MVA keeps c probabilities per point):
// beyond kMaxServers it is refused outright, and within it a lattice too
// large for memory is refused naming the limit and the approximation, which
// solves it.
TEST(MvaInput, ServerCountsAreBounded) {
  for (int64_t servers : {kMaxServers + 1, int64_t{2147483647}}) {
    SingleClassNetwork net;
    net.stations = {{"cpu", StationKind::kQueue, 0.01, servers}};
    absl::StatusOr<std::vector<MvaPoint>> r = SolveExactMva(net, 2);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(r.status().message().find("1..1000000"), std::string::npos)
        << r.status();
    EXPECT_FALSE(SolveSchweitzerBard(AsMultiClass(net, 2)).ok());
  }
  SingleClassNetwork big;
  big.stations = {{"cpu", StationKind::kQueue, 0.01, kMaxServers}};
  // 101 points x (1 + 10^6) numbers > 64 x 10^6.
  absl::StatusOr<std::vector<MvaPoint>> r = SolveExactMva(big, 100);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("64000000"), std::string::npos)
      << r.status();
  EXPECT_NE(r.status().message().find("Schweitzer-Bard"), std::string::npos);
  absl::StatusOr<MultiClassResult> approx =
      SolveSchweitzerBard(AsMultiClass(big, 100));
  ASSERT_TRUE(approx.ok()) << approx.status();
  // 100 clients on a million servers never queue: X = N / D.
  EXPECT_NEAR(approx->throughput_per_s[0], 100 / 0.01, 1e-6 * 100 / 0.01);
}

TEST(MvaInput, RejectsWhatHasNoAnswer) {
  SingleClassNetwork ok;
  ok.stations = {{"cpu", StationKind::kQueue, 0.1, 1}};
  EXPECT_TRUE(SolveExactMva(ok, 3).ok());
  EXPECT_FALSE(SolveExactMva(ok, 0).ok());

  for (double bad : {-0.1, std::nan(""), HUGE_VAL}) {
    SingleClassNetwork net = ok;
    net.stations[0].demand_s = bad;
    absl::StatusOr<std::vector<MvaPoint>> r = SolveExactMva(net, 3);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(r.status().message().find("cpu"), std::string::npos);
  }
  SingleClassNetwork zero_servers = ok;
  zero_servers.stations[0].servers = 0;
  EXPECT_FALSE(SolveExactMva(zero_servers, 3).ok());
  SingleClassNetwork empty;
  EXPECT_FALSE(SolveExactMva(empty, 3).ok());
  SingleClassNetwork nothing = ok;
  nothing.stations[0].demand_s = 0;
  EXPECT_FALSE(SolveExactMva(nothing, 3).ok());
}

TEST(MvaInput, MultiClassTooLargeNamesTheLimitAndTheApproximation) {
  MultiClassNetwork net;
  net.clients = {200, 200, 200};  // 201^3 > 10^6 lattice points
  net.think_s = {1, 1, 1};
  net.stations = {{"cpu", StationKind::kQueue, {0.1, 0.2, 0.3}, 1}};
  absl::StatusOr<MultiClassResult> r = SolveExactMultiClassMva(net);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(r.status().message().find("1000000"), std::string::npos);
  EXPECT_NE(r.status().message().find("Schweitzer-Bard"), std::string::npos);
  EXPECT_TRUE(SolveSchweitzerBard(net).ok());
}

}  // namespace
}  // namespace perflab::models
