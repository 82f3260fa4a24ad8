#include "models/mva.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <utility>

#include "absl/strings/str_cat.h"

namespace perflab::models {
namespace {

absl::Status CheckDemand(const std::string& station, double demand_s) {
  if (!std::isfinite(demand_s) || demand_s < 0 ||
      (demand_s > 0 && demand_s < kMinDemandS) || demand_s > kMaxDemandS) {
    return absl::InvalidArgumentError(
        absl::StrCat("station '", station, "': demand ", demand_s,
                     " s; accepted: 0 or a number in [", kMinDemandS, ", ",
                     kMaxDemandS, "] s"));
  }
  return absl::OkStatus();
}

absl::Status CheckServers(const std::string& station, StationKind kind,
                          int64_t servers) {
  if (kind == StationKind::kQueue && (servers < 1 || servers > kMaxServers)) {
    return absl::InvalidArgumentError(
        absl::StrCat("station '", station, "': ", servers,
                     " servers; accepted: 1..", kMaxServers));
  }
  return absl::OkStatus();
}

absl::Status CheckThink(double think_s) {
  if (!std::isfinite(think_s) || think_s < 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "think time ", think_s, " s; accepted: a finite number >= 0"));
  }
  return absl::OkStatus();
}

absl::Status Validate(const SingleClassNetwork& net) {
  if (net.stations.empty()) {
    return absl::InvalidArgumentError("a network needs at least one station");
  }
  double total = net.think_s;
  for (const Station& s : net.stations) {
    if (absl::Status st = CheckDemand(s.name, s.demand_s); !st.ok()) return st;
    if (absl::Status st = CheckServers(s.name, s.kind, s.servers); !st.ok())
      return st;
    total += s.demand_s;
  }
  if (absl::Status st = CheckThink(net.think_s); !st.ok()) return st;
  if (total <= 0) {
    return absl::InvalidArgumentError(
        "every demand and the think time are 0: throughput is unbounded");
  }
  return absl::OkStatus();
}

absl::Status Validate(const MultiClassNetwork& net) {
  const size_t classes = net.clients.size();
  if (classes == 0) {
    return absl::InvalidArgumentError("a network needs at least one class");
  }
  if (net.stations.empty()) {
    return absl::InvalidArgumentError("a network needs at least one station");
  }
  if (net.think_s.size() != classes) {
    return absl::InvalidArgumentError(
        absl::StrCat(net.think_s.size(), " think times for ", classes,
                     " classes; accepted: one per class"));
  }
  for (const MultiClassStation& s : net.stations) {
    if (s.demand_s.size() != classes) {
      return absl::InvalidArgumentError(
          absl::StrCat("station '", s.name, "': ", s.demand_s.size(),
                       " demands for ", classes, " classes"));
    }
    for (double d : s.demand_s) {
      if (absl::Status st = CheckDemand(s.name, d); !st.ok()) return st;
    }
    if (absl::Status st = CheckServers(s.name, s.kind, s.servers); !st.ok())
      return st;
  }
  for (size_t c = 0; c < classes; ++c) {
    if (net.clients[c] < 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "class ", c, ": ", net.clients[c], " clients; accepted: >= 0"));
    }
    if (absl::Status st = CheckThink(net.think_s[c]); !st.ok()) return st;
    double total = net.think_s[c];
    for (const MultiClassStation& s : net.stations) total += s.demand_s[c];
    if (net.clients[c] > 0 && total <= 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "class ", c,
          ": every demand and the think time are 0: throughput is unbounded"));
    }
  }
  return absl::OkStatus();
}

bool MultiServer(StationKind kind, int64_t servers) {
  return kind == StationKind::kQueue && servers > 1;
}

// A c-server station's response time for an arrival that sees `q` clients
// on average and the marginal probabilities p[0..c-1] of finding j present
// (the arrival theorem): with rate min(j, c) / S, the arrival waits for
// every client beyond c - 1 at c times the speed of one server, so
//   R = D / c (1 + q + sum_{j < c} (c - 1 - j) p(j)).
double MultiServerResponse(double demand_s, int64_t servers, double q,
                           const double* p) {
  double slack = 0;
  for (int64_t j = 0; j + 1 < servers; ++j) {
    slack += static_cast<double>(servers - 1 - j) * p[j];
  }
  return demand_s / static_cast<double>(servers) * (1 + q + slack);
}

// The population lattice 0 <= n <= N in mixed radix, class 0 fastest.
struct Lattice {
  std::vector<int64_t> stride;
  size_t states = 1;
};

// Called at every lattice point with n, X_c(n) and R_ck(n) ([c * K + k]).
using Visit = std::function<void(size_t idx, const std::vector<int64_t>& n,
                                 const std::vector<double>& x,
                                 const std::vector<double>& r)>;

// Exact MVA of the sub-network of the stations in `mask` (think times
// always included) over the whole lattice; returns X_c at every point
// ([idx * C + c]). A c-server station's p(j | n) for 0 < j < c follow from
// p(j - 1 | n - e_c) by products; its p(0 | n) is G_{-k}(n) / G(n), the
// normalising constants of the network without it and with it, so
//   p(0 | n) = p(0 | n - e_c) X_c(n) / X_{-k,c}(n)
// from the throughput of the sub-network without k. That keeps every step a
// product of positive numbers: the textbook p(0) = 1 - sum_{j>0} p(j) loses
// every digit once the station saturates (p(0) ~ 1e-30 from 1 - 0.99...).
// Sub-networks are solved once each (`memo`), so c-server stations cost a
// factor 2^L in time and memory for L of them.
std::vector<double> SolveLattice(const MultiClassNetwork& net,
                                 const Lattice& lat, uint64_t mask,
                                 std::map<uint64_t, std::vector<double>>& memo,
                                 const Visit* visit) {
  const size_t c_count = net.clients.size();
  const size_t k_count = net.stations.size();
  std::vector<size_t> members, multi;
  for (size_t k = 0; k < k_count; ++k) {
    if ((mask >> k & 1) == 0) continue;
    members.push_back(k);
    if (MultiServer(net.stations[k].kind, net.stations[k].servers)) {
      multi.push_back(k);
    }
  }
  // The throughputs without each c-server station.
  std::vector<const std::vector<double>*> without(k_count, nullptr);
  for (size_t k : multi) {
    const uint64_t sub = mask & ~(uint64_t{1} << k);
    auto it = memo.find(sub);
    if (it == memo.end()) {
      std::vector<double> x = SolveLattice(net, lat, sub, memo, nullptr);
      it = memo.emplace(sub, std::move(x)).first;
    }
    without[k] = &it->second;
  }
  std::vector<size_t> p_offset(k_count, 0);
  size_t p_width = 0;
  for (size_t k : multi) {
    p_offset[k] = p_width;
    p_width += static_cast<size_t>(net.stations[k].servers);
  }
  std::vector<double> q(lat.states * k_count, 0);
  std::vector<double> p(lat.states * p_width, 0);
  for (size_t k : multi) p[p_offset[k]] = 1;  // p(0 | 0) = 1
  std::vector<double> x_all(lat.states * c_count, 0);
  std::vector<int64_t> n(c_count, 0);
  std::vector<double> x(c_count, 0);
  std::vector<double> r(c_count * k_count, 0);
  for (size_t idx = 1; idx < lat.states; ++idx) {
    for (size_t c = 0; c < c_count; ++c) {  // the next point of the lattice
      if (++n[c] <= net.clients[c]) break;
      n[c] = 0;
    }
    for (size_t c = 0; c < c_count; ++c) {
      x[c] = 0;
      if (n[c] == 0) continue;
      const size_t prev = idx - static_cast<size_t>(lat.stride[c]);
      double total_r = 0;
      for (size_t k : members) {
        const MultiClassStation& s = net.stations[k];
        const double d = s.demand_s[c];
        double rck = d;
        if (s.kind == StationKind::kQueue) {
          // The arrival theorem: a class-c arrival sees the network with
          // one class-c client fewer.
          const double qk = q[prev * k_count + k];
          rck = s.servers == 1
                    ? d * (1 + qk)
                    : MultiServerResponse(d, s.servers, qk,
                                          &p[prev * p_width + p_offset[k]]);
        }
        r[c * k_count + k] = rck;
        total_r += rck;
      }
      x[c] = static_cast<double>(n[c]) / (total_r + net.think_s[c]);
      x_all[idx * c_count + c] = x[c];
    }
    for (size_t k : members) {
      double qk = 0;
      for (size_t c = 0; c < c_count; ++c) {
        if (n[c] > 0) qk += x[c] * r[c * k_count + k];
      }
      q[idx * k_count + k] = qk;
    }
    for (size_t k : multi) {
      const MultiClassStation& s = net.stations[k];
      double* pk = &p[idx * p_width + p_offset[k]];
      // p_k(j | n) = (1 / j) sum_c X_c(n) D_ck p_k(j - 1 | n - e_c), j < c.
      for (int64_t j = 1; j < s.servers; ++j) {
        double sum = 0;
        for (size_t c = 0; c < c_count; ++c) {
          if (n[c] == 0) continue;
          const size_t prev = idx - static_cast<size_t>(lat.stride[c]);
          sum += x[c] * s.demand_s[c] * p[prev * p_width + p_offset[k] + j - 1];
        }
        pk[j] = sum / static_cast<double>(j);
      }
      size_t c = 0;
      while (n[c] == 0) ++c;
      const size_t prev = idx - static_cast<size_t>(lat.stride[c]);
      // Without k the clients may have nowhere to be (no station with a
      // demand, no think time): then X_{-k} is infinite and p(0) is 0.
      const double x_without = (*without[k])[idx * c_count + c];
      pk[0] = p[prev * p_width + p_offset[k]] * x[c] / x_without;
    }
    if (visit != nullptr) (*visit)(idx, n, x, r);
  }
  return x_all;
}

absl::StatusOr<Lattice> MakeLattice(const MultiClassNetwork& net,
                                    bool multi_class) {
  const int64_t limit = kMaxExactMvaWork;
  int multi = 0;
  for (const MultiClassStation& s : net.stations) {
    if (MultiServer(s.kind, s.servers)) ++multi;
  }
  if (net.stations.size() > 63) {  // a sub-network is a 64-bit mask
    return absl::InvalidArgumentError(
        absl::StrCat(net.stations.size(),
                     " stations; exact MVA accepts at most 63; use the "
                     "approximate Schweitzer-Bard solver"));
  }
  if (multi > 30) {
    return absl::InvalidArgumentError(absl::StrCat(
        multi,
        " multi-server stations; exact MVA accepts at most 30 (each "
        "doubles its work); use the approximate Schweitzer-Bard solver"));
  }
  Lattice lat;
  lat.stride.resize(net.clients.size());
  // Each c-server station doubles the work: its p(0) needs the network
  // without it.
  int64_t work = int64_t{1} << multi;
  for (size_t c = 0; c < net.clients.size(); ++c) {
    lat.stride[c] = static_cast<int64_t>(lat.states);
    const int64_t radix = net.clients[c] + 1;
    if (work > limit / radix) {
      std::string pops;
      for (size_t i = 0; i < net.clients.size(); ++i) {
        absl::StrAppend(&pops, i == 0 ? "" : ", ", net.clients[i]);
      }
      return absl::InvalidArgumentError(absl::StrCat(
          multi_class ? "populations (" : "population (", pops, ") with ",
          multi, " multi-server stations are too large for exact ",
          multi_class ? "multi-class " : "",
          "MVA: the product of (clients + 1) over the classes, times 2^L for L "
          "multi-server stations, must be <= ",
          limit, "; use the approximate Schweitzer-Bard solver"));
    }
    work *= radix;
    lat.states *= static_cast<size_t>(radix);
  }
  // Each point keeps K queue lengths and c probabilities per c-server
  // station (servers <= kMaxServers, so the sum cannot overflow).
  int64_t per_point = static_cast<int64_t>(net.stations.size());
  for (const MultiClassStation& s : net.stations) {
    if (MultiServer(s.kind, s.servers)) per_point += s.servers;
  }
  if (static_cast<int64_t>(lat.states) > kMaxExactMvaCells / per_point) {
    return absl::InvalidArgumentError(absl::StrCat(
        lat.states, " populations x ", per_point,
        " numbers each (K stations plus the servers of every multi-server "
        "station) are too many for exact MVA: at most ",
        kMaxExactMvaCells, "; use the approximate Schweitzer-Bard solver"));
  }
  return lat;
}

}  // namespace

absl::StatusOr<std::vector<MvaPoint>> SolveExactMva(
    const SingleClassNetwork& network, int64_t max_clients) {
  if (absl::Status s = Validate(network); !s.ok()) return s;
  if (max_clients < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat(max_clients, " clients; accepted: >= 1"));
  }
  const MultiClassNetwork net = AsMultiClass(network, max_clients);
  absl::StatusOr<Lattice> lat = MakeLattice(net, false);
  if (!lat.ok()) return lat.status();
  const size_t k_count = network.stations.size();
  std::vector<MvaPoint> points(static_cast<size_t>(max_clients));
  const Visit visit = [&](size_t idx, const std::vector<int64_t>& n,
                          const std::vector<double>& x,
                          const std::vector<double>& r) {
    MvaPoint& point = points[idx - 1];
    point.clients = n[0];
    point.throughput_per_s = x[0];
    point.stations.resize(k_count);
    for (size_t k = 0; k < k_count; ++k) {
      const Station& s = network.stations[k];
      StationPoint& sp = point.stations[k];
      sp.response_s = r[k];
      sp.queue_length = x[0] * r[k];
      point.response_s += r[k];
      if (s.kind == StationKind::kQueue) {
        sp.utilisation = x[0] * s.demand_s / static_cast<double>(s.servers);
      }
    }
  };
  std::map<uint64_t, std::vector<double>> memo;
  const uint64_t all = (uint64_t{1} << k_count) - 1;
  SolveLattice(net, *lat, all, memo, &visit);
  return points;
}

int BottleneckStation(const SingleClassNetwork& network) {
  int best = -1;
  double best_d = -1;
  for (size_t k = 0; k < network.stations.size(); ++k) {
    const Station& s = network.stations[k];
    if (s.kind != StationKind::kQueue) continue;
    const double d = s.demand_s / static_cast<double>(s.servers);
    if (d > best_d) {
      best_d = d;
      best = static_cast<int>(k);
    }
  }
  return best;
}

absl::StatusOr<MvaBounds> Bounds(const SingleClassNetwork& network,
                                 int64_t clients) {
  if (absl::Status s = Validate(network); !s.ok()) return s;
  if (clients < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat(clients, " clients; accepted: >= 1"));
  }
  const double n = static_cast<double>(clients);
  const double z = network.think_s;
  double d = 0, d_queue = 0, d_delay = 0, d_max = 0;
  int queues = 0;
  bool single_servers = true;
  for (const Station& s : network.stations) {
    d += s.demand_s;
    if (s.kind == StationKind::kDelay) {
      d_delay += s.demand_s;
      continue;
    }
    ++queues;
    d_queue += s.demand_s;
    d_max = std::max(d_max, s.demand_s / static_cast<double>(s.servers));
    if (s.servers > 1) single_servers = false;
  }
  MvaBounds b;
  b.total_demand_s = d;
  b.max_demand_s = d_max;
  if (d_max > 0) {
    b.knee_clients = (d + z) / d_max;
    b.throughput_upper_per_s = std::min(n / (d + z), 1 / d_max);
  } else {
    b.knee_clients = std::numeric_limits<double>::infinity();
    b.throughput_upper_per_s = n / (d + z);
  }
  b.response_lower_s = std::max(d, n * d_max - z);
  if (single_servers && queues > 0 && d_queue > 0) {
    // Delay stations only add to every cycle, as think time does.
    const double zz = z + d_delay;
    const double d_avg = d_queue / queues;
    b.balanced = true;
    b.balanced_throughput_lower_per_s =
        n / (d_queue + zz + (n - 1) * d_max / (1 + zz / (n * d_queue)));
    b.balanced_throughput_upper_per_s = std::min(
        1 / d_max, n / (d_queue + zz + (n - 1) * d_avg / (1 + zz / d_queue)));
  }
  return b;
}

absl::StatusOr<MultiClassResult> SolveExactMultiClassMva(
    const MultiClassNetwork& network) {
  if (absl::Status s = Validate(network); !s.ok()) return s;
  absl::StatusOr<Lattice> lat = MakeLattice(network, true);
  if (!lat.ok()) return lat.status();
  const size_t c_count = network.clients.size();
  const size_t k_count = network.stations.size();
  MultiClassResult out;
  out.throughput_per_s.assign(c_count, 0);
  out.response_s.assign(c_count, 0);
  out.queue_length.assign(c_count, std::vector<double>(k_count, 0));
  out.station_response_s.assign(c_count, std::vector<double>(k_count, 0));
  out.utilisation.assign(k_count, 0);
  const Visit visit = [&](size_t idx, const std::vector<int64_t>& n,
                          const std::vector<double>& x,
                          const std::vector<double>& r) {
    if (idx + 1 != lat->states) return;  // only the full population
    for (size_t c = 0; c < c_count; ++c) {
      if (n[c] == 0) continue;
      out.throughput_per_s[c] = x[c];
      for (size_t k = 0; k < k_count; ++k) {
        const double rck = r[c * k_count + k];
        out.station_response_s[c][k] = rck;
        out.queue_length[c][k] = x[c] * rck;
        out.response_s[c] += rck;
        const MultiClassStation& s = network.stations[k];
        if (s.kind == StationKind::kQueue) {
          out.utilisation[k] +=
              x[c] * s.demand_s[c] / static_cast<double>(s.servers);
        }
      }
    }
  };
  std::map<uint64_t, std::vector<double>> memo;
  const uint64_t all = (uint64_t{1} << k_count) - 1;
  SolveLattice(network, *lat, all, memo, &visit);
  return out;
}

absl::StatusOr<MultiClassResult> SolveSchweitzerBard(
    const MultiClassNetwork& network, const SchweitzerOptions& options) {
  if (absl::Status s = Validate(network); !s.ok()) return s;
  const size_t c_count = network.clients.size();
  const size_t k_count = network.stations.size();
  // Seidmann: a c-server station of demand D becomes a single server of
  // demand D / c (its saturation throughput) plus a delay of D (c - 1) / c
  // (its light-load response time D).
  auto queue_demand = [&](size_t c, size_t k) {
    const MultiClassStation& s = network.stations[k];
    if (s.kind == StationKind::kDelay) return 0.0;
    return s.demand_s[c] / static_cast<double>(s.servers);
  };
  auto delay_demand = [&](size_t c, size_t k) {
    return network.stations[k].demand_s[c] - queue_demand(c, k);
  };
  // Q_ck: the queued part of each station, spread evenly to start.
  std::vector<double> q(c_count * k_count, 0), r(c_count * k_count, 0);
  std::vector<double> x(c_count, 0), total_q(k_count, 0);
  for (size_t c = 0; c < c_count; ++c) {
    for (size_t k = 0; k < k_count; ++k) {
      q[c * k_count + k] = static_cast<double>(network.clients[c]) /
                           static_cast<double>(k_count);
    }
  }
  int64_t it = 0;
  for (;;) {
    if (++it > options.max_iterations) {
      return absl::FailedPreconditionError(
          absl::StrCat("Schweitzer-Bard did not converge in ",
                       options.max_iterations, " iterations"));
    }
    for (size_t k = 0; k < k_count; ++k) {
      total_q[k] = 0;
      for (size_t c = 0; c < c_count; ++c) total_q[k] += q[c * k_count + k];
    }
    for (size_t c = 0; c < c_count; ++c) {
      x[c] = 0;
      if (network.clients[c] == 0) continue;
      const double nc = static_cast<double>(network.clients[c]);
      double total_r = 0;
      for (size_t k = 0; k < k_count; ++k) {
        // What a class-c arrival sees: everyone but itself, one of N_c.
        const double seen = total_q[k] - q[c * k_count + k] / nc;
        const double rck = queue_demand(c, k) * (1 + seen) + delay_demand(c, k);
        r[c * k_count + k] = rck;
        total_r += rck;
      }
      x[c] = nc / (total_r + network.think_s[c]);
    }
    double moved = 0;
    for (size_t c = 0; c < c_count; ++c) {
      for (size_t k = 0; k < k_count; ++k) {
        const double queued = x[c] * (r[c * k_count + k] - delay_demand(c, k));
        moved = std::max(moved, std::abs(queued - q[c * k_count + k]));
        q[c * k_count + k] = queued;
      }
    }
    if (moved <= options.tolerance) break;
  }
  MultiClassResult out;
  out.iterations = it;
  out.throughput_per_s = x;
  out.response_s.assign(c_count, 0);
  out.queue_length.assign(c_count, std::vector<double>(k_count, 0));
  out.station_response_s.assign(c_count, std::vector<double>(k_count, 0));
  out.utilisation.assign(k_count, 0);
  for (size_t c = 0; c < c_count; ++c) {
    if (network.clients[c] == 0) continue;
    for (size_t k = 0; k < k_count; ++k) {
      const double rck = r[c * k_count + k];
      out.station_response_s[c][k] = rck;
      out.queue_length[c][k] = x[c] * rck;
      out.response_s[c] += rck;
      out.utilisation[k] += x[c] * queue_demand(c, k);
    }
  }
  return out;
}

MultiClassNetwork AsMultiClass(const SingleClassNetwork& network,
                               int64_t clients) {
  MultiClassNetwork m;
  m.clients = {clients};
  m.think_s = {network.think_s};
  for (const Station& s : network.stations) {
    m.stations.push_back({s.name, s.kind, {s.demand_s}, s.servers});
  }
  return m;
}

}  // namespace perflab::models
