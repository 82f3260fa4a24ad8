// `perflab models mva`: a closed queueing network solved by Mean Value
// Analysis (models/mva.h). Stations come as repeated --station flags, a
// population as --clients N or a range A..B (one row per N), several classes
// as repeated --class flags; the bounds and the bottleneck come with it.
#include <algorithm>
#include <cmath>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "core/number.h"
#include "models/mva.h"
#include "tools/perflab/commands.h"

namespace perflab::cli {
namespace {

using core::Document;
using StatusOrDoc = absl::StatusOr<Document>;

constexpr char kStationHelp[] =
    "NAME:demand_ms=D[,visits=V][,servers=C][,kind=queue|ps|delay], "
    "repeatable: D is the service time per visit (ms), V visits per request "
    "(default 1), C servers (default 1; a c-core CPU is servers=c), kind "
    "queue (FCFS exponential, default), ps (processor sharing) or delay (no "
    "queueing: a network hop). With --class, D and V take one value per "
    "class separated by '/': demand_ms=10/40";

struct Flags {
  std::vector<std::string> stations;
  std::vector<std::string> classes;
  std::string clients = "1..32";
  double think_ms = 0;
  std::string solver = "exact";
};

absl::Status BadStation(const std::string& spec, const std::string& why) {
  return absl::InvalidArgumentError(absl::StrCat(
      "--station: got '", spec, "': ", why,
      "; accepted: NAME:demand_ms=D[,visits=V][,servers=C][,kind=queue|ps|"
      "delay]"));
}

// An integer as every flag reads one (core/number.h): decimal digits and an
// optional '-', no '+', spaces or hexadecimal.
bool ParseWhole(std::string_view text, int64_t* v) {
  const std::optional<int64_t> parsed = core::ParseDecimalInteger(text);
  if (parsed) *v = *parsed;
  return parsed.has_value();
}

// "10" or "10/40": one finite number >= 0 per class (one number serves all).
absl::StatusOr<std::vector<double>> PerClass(const std::string& spec,
                                             const std::string& key,
                                             const std::string& text,
                                             size_t classes) {
  std::vector<double> values;
  for (absl::string_view part : absl::StrSplit(text, '/')) {
    const std::optional<double> v =
        core::ParseDecimal(std::string_view(part.data(), part.size()));
    if (!v || *v < 0) {
      return BadStation(
          spec, absl::StrCat(key, " '", text, "' is not a finite number >= 0"));
    }
    values.push_back(*v);
  }
  if (values.size() == 1) values.assign(classes, values[0]);
  if (values.size() != classes) {
    return BadStation(spec, absl::StrCat(key, " has ", values.size(),
                                         " values for ", classes, " classes"));
  }
  return values;
}

absl::StatusOr<models::MultiClassStation> ParseStation(const std::string& spec,
                                                       size_t classes) {
  std::pair<std::string, std::string> name_rest = absl::StrSplit(spec, ':');
  models::MultiClassStation s;
  s.name = name_rest.first;
  if (s.name.empty()) return BadStation(spec, "no name");
  std::vector<double> per_visit, visits(classes, 1);
  for (absl::string_view kv :
       absl::StrSplit(name_rest.second, ',', absl::SkipEmpty())) {
    std::pair<std::string, std::string> p = absl::StrSplit(kv, '=');
    if (p.first == "demand_ms") {
      absl::StatusOr<std::vector<double>> v =
          PerClass(spec, p.first, p.second, classes);
      if (!v.ok()) return v.status();
      per_visit = *v;
    } else if (p.first == "visits") {
      absl::StatusOr<std::vector<double>> v =
          PerClass(spec, p.first, p.second, classes);
      if (!v.ok()) return v.status();
      visits = *v;
    } else if (p.first == "servers") {
      if (!ParseWhole(p.second, &s.servers) || s.servers < 1 ||
          s.servers > models::kMaxServers) {
        return BadStation(spec, absl::StrCat("servers '", p.second,
                                             "' is not a whole number in 1..",
                                             models::kMaxServers));
      }
    } else if (p.first == "kind") {
      if (p.second == "queue" || p.second == "ps") {
        s.kind = models::StationKind::kQueue;
      } else if (p.second == "delay") {
        s.kind = models::StationKind::kDelay;
      } else {
        return BadStation(spec, absl::StrCat("unknown kind '", p.second,
                                             "' (queue, ps or delay)"));
      }
    } else {
      return BadStation(spec, absl::StrCat("unknown key '", p.first, "'"));
    }
  }
  if (per_visit.empty()) return BadStation(spec, "no demand_ms");
  if (s.kind == models::StationKind::kDelay && s.servers != 1) {
    return BadStation(spec, "a delay station has no servers to count");
  }
  for (size_t c = 0; c < classes; ++c) {
    s.demand_s.push_back(per_visit[c] * visits[c] / 1000);
  }
  return s;
}

// The largest population (of --clients or a --class) and the most rows (one
// per N of A..B) --clients takes: each row is a solve.
constexpr int64_t kMaxClients = 1'000'000'000;
constexpr int64_t kMaxRows = 100'000;

struct ClassSpec {
  std::string name;
  int64_t clients = 0;
  double think_ms = 0;
};

absl::StatusOr<ClassSpec> ParseClass(const std::string& spec) {
  auto bad = [&](const std::string& why) {
    return absl::InvalidArgumentError(
        absl::StrCat("--class: got '", spec, "': ", why,
                     "; accepted: NAME:clients=N[,think_ms=Z] with N a whole "
                     "number in 0..",
                     kMaxClients, ", Z >= 0"));
  };
  std::pair<std::string, std::string> name_rest = absl::StrSplit(spec, ':');
  ClassSpec c;
  c.name = name_rest.first;
  if (c.name.empty()) return bad("no name");
  bool has_clients = false;
  for (absl::string_view kv : absl::StrSplit(name_rest.second, ',')) {
    std::pair<std::string, std::string> p = absl::StrSplit(kv, '=');
    if (p.first == "clients") {
      if (!ParseWhole(p.second, &c.clients) || c.clients < 0 ||
          c.clients > kMaxClients) {
        return bad(absl::StrCat("clients '", p.second, "'"));
      }
      has_clients = true;
    } else if (p.first == "think_ms") {
      const std::optional<double> think = core::ParseDecimal(p.second);
      if (!think || *think < 0) {
        return bad(absl::StrCat("think_ms '", p.second, "'"));
      }
      c.think_ms = *think;
    } else {
      return bad(absl::StrCat("unknown key '", p.first, "'"));
    }
  }
  if (!has_clients) return bad("no clients");
  return c;
}

// "N" or "A..B" with 1 <= A <= B <= kMaxClients, at most kMaxRows rows.
absl::StatusOr<std::pair<int64_t, int64_t>> ParseClients(
    const std::string& text) {
  std::vector<std::string> parts = absl::StrSplit(text, "..");
  int64_t lo = 0, hi = 0;
  bool ok = parts.size() == 1
                ? ParseWhole(parts[0], &lo) && (hi = lo, true)
                : parts.size() == 2 && ParseWhole(parts[0], &lo) &&
                      ParseWhole(parts[1], &hi);
  if (!ok || lo < 1 || hi < lo || hi > kMaxClients || hi - lo >= kMaxRows) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--clients: got '", text,
        "'; accepted: N or A..B, whole numbers with 1 <= A <= B <= ",
        kMaxClients, " and at most ", kMaxRows, " rows (B - A < ", kMaxRows,
        ")"));
  }
  return std::make_pair(lo, hi);
}

std::string KindName(const models::MultiClassStation& s) {
  return s.kind == models::StationKind::kDelay ? "delay" : "queue";
}

StatusOrDoc SingleClass(const Flags& f,
                        const std::vector<models::MultiClassStation>& parsed) {
  absl::StatusOr<std::pair<int64_t, int64_t>> range = ParseClients(f.clients);
  if (!range.ok()) return range.status();
  models::SingleClassNetwork net;
  net.think_s = f.think_ms / 1000;
  for (const models::MultiClassStation& s : parsed) {
    net.stations.push_back({s.name, s.kind, s.demand_s[0], s.servers});
  }
  std::vector<models::MvaPoint> points;
  if (f.solver == "exact") {
    absl::StatusOr<std::vector<models::MvaPoint>> all =
        models::SolveExactMva(net, range->second);
    if (!all.ok()) return all.status();
    points.assign(all->begin() + (range->first - 1), all->end());
  } else {
    for (int64_t n = range->first; n <= range->second; ++n) {
      absl::StatusOr<models::MultiClassResult> r =
          models::SolveSchweitzerBard(models::AsMultiClass(net, n));
      if (!r.ok()) return r.status();
      models::MvaPoint& p = points.emplace_back();
      p.clients = n;
      p.throughput_per_s = r->throughput_per_s[0];
      p.response_s = r->response_s[0];
      for (size_t k = 0; k < net.stations.size(); ++k) {
        p.stations.push_back({r->utilisation[k], r->queue_length[0][k],
                              r->station_response_s[0][k]});
      }
    }
  }
  absl::StatusOr<models::MvaBounds> b1 = models::Bounds(net, 1);
  if (!b1.ok()) return b1.status();
  Document doc(absl::StrCat(
      "Closed network, ", net.stations.size(), " stations, think ", f.think_ms,
      " ms (", f.solver == "exact" ? "exact MVA" : "Schweitzer-Bard", ")"));
  const int bottleneck = models::BottleneckStation(net);
  doc.Set("total_demand_ms", "total demand D (ms)", b1->total_demand_s * 1000,
          3);
  if (bottleneck >= 0) {
    doc.Set("bottleneck", "bottleneck (largest demand / servers)",
            net.stations[static_cast<size_t>(bottleneck)].name)
        .Set("max_demand_ms", "bottleneck demand D_max (ms)",
             b1->max_demand_s * 1000, 3);
    // A D_max near the smallest double puts the ceiling and the knee beyond
    // the largest one: left out and said so, never printed as null.
    const double ceiling = 1 / b1->max_demand_s;
    if (std::isfinite(ceiling) && std::isfinite(b1->knee_clients)) {
      doc.Set("max_throughput_per_s", "throughput ceiling 1 / D_max (req/s)",
              ceiling, 3)
          .Set("knee_clients", "knee N* = (D + Z) / D_max (clients)",
               b1->knee_clients, 2);
    } else {
      doc.Note(
          "no throughput ceiling or knee: 1 / D_max or (D + Z) / D_max is "
          "beyond the largest double");
    }
  }
  std::vector<core::Column> cols = {
      {"clients", "N", 0},
      {"throughput_per_s", "X (req/s)", 3},
      {"response_ms", "R (ms)", 3},
      {"throughput_bound_per_s", "X bound (req/s)", 3},
      {"response_bound_ms", "R bound (ms)", 3}};
  for (const models::Station& s : net.stations) {
    if (s.kind == models::StationKind::kQueue) {
      cols.push_back({s.name + "_utilisation", s.name + " U", 3});
    }
    cols.push_back({s.name + "_queue", s.name + " Q", 3});
  }
  auto& t = doc.AddTable("clients", "Per population N", std::move(cols));
  for (const models::MvaPoint& p : points) {
    absl::StatusOr<models::MvaBounds> b = models::Bounds(net, p.clients);
    if (!b.ok()) return b.status();
    std::vector<core::Value> row = {
        p.clients, p.throughput_per_s, p.response_s * 1000,
        b->throughput_upper_per_s, b->response_lower_s * 1000};
    for (size_t k = 0; k < net.stations.size(); ++k) {
      if (net.stations[k].kind == models::StationKind::kQueue) {
        row.emplace_back(p.stations[k].utilisation);
      }
      row.emplace_back(p.stations[k].queue_length);
    }
    t.Add(std::move(row));
  }
  doc.Note(
      "U is the busy share of one server (X D / servers), Q the mean clients "
      "present, waiting or served; the bounds are X <= min(N / (D + Z), 1 / "
      "D_max) and R >= max(D, N D_max - Z)");
  return doc;
}

StatusOrDoc MultiClass(const Flags& f,
                       std::vector<models::MultiClassStation> parsed,
                       const std::vector<ClassSpec>& classes) {
  models::MultiClassNetwork net;
  net.stations = std::move(parsed);
  for (const ClassSpec& c : classes) {
    net.clients.push_back(c.clients);
    net.think_s.push_back(c.think_ms / 1000);
  }
  absl::StatusOr<models::MultiClassResult> r =
      f.solver == "exact" ? models::SolveExactMultiClassMva(net)
                          : models::SolveSchweitzerBard(net);
  if (!r.ok()) {
    if (f.solver == "exact" &&
        r.status().code() == absl::StatusCode::kInvalidArgument &&
        r.status().message().find("Schweitzer-Bard") != std::string::npos) {
      return absl::InvalidArgumentError(
          absl::StrCat(r.status().message(), " (--solver schweitzer)"));
    }
    return r.status();
  }
  Document doc(
      absl::StrCat("Closed network, ", net.stations.size(), " stations, ",
                   classes.size(), " classes (",
                   f.solver == "exact" ? "exact MVA" : "Schweitzer-Bard", ")"));
  size_t bottleneck = 0;
  for (size_t k = 1; k < net.stations.size(); ++k) {
    if (r->utilisation[k] > r->utilisation[bottleneck]) bottleneck = k;
  }
  doc.Set("bottleneck", "bottleneck (highest utilisation)",
          net.stations[bottleneck].name);
  auto& ct = doc.AddTable("classes", "Per class",
                          {{"class", "class", 0},
                           {"clients", "N", 0},
                           {"think_ms", "Z (ms)", 3},
                           {"throughput_per_s", "X (req/s)", 3},
                           {"response_ms", "R (ms)", 3}});
  for (size_t c = 0; c < classes.size(); ++c) {
    ct.Add({classes[c].name, classes[c].clients, classes[c].think_ms,
            r->throughput_per_s[c], r->response_s[c] * 1000});
  }
  std::vector<core::Column> cols = {{"station", "station", 0},
                                    {"kind", "kind", 0},
                                    {"servers", "servers", 0},
                                    {"utilisation", "U", 3},
                                    {"queue", "Q", 3}};
  for (const ClassSpec& c : classes) {
    cols.push_back({c.name + "_queue", c.name + " Q", 3});
  }
  auto& st = doc.AddTable("stations", "Per station", std::move(cols));
  for (size_t k = 0; k < net.stations.size(); ++k) {
    const models::MultiClassStation& s = net.stations[k];
    double q = 0;
    for (size_t c = 0; c < classes.size(); ++c) q += r->queue_length[c][k];
    std::vector<core::Value> row = {s.name, KindName(s), s.servers,
                                    r->utilisation[k], q};
    for (size_t c = 0; c < classes.size(); ++c) {
      row.emplace_back(r->queue_length[c][k]);
    }
    st.Add(std::move(row));
  }
  doc.Note(
      "U is the busy share of one server (sum of X_c D_c / servers; 0 for a "
      "delay station), Q the mean clients present, waiting or served");
  return doc;
}

}  // namespace

void AddMvaCommand(CLI::App* models, Registry& registry) {
  auto f = std::make_shared<Flags>();
  CLI::App* cmd = models->add_subcommand(
      "mva",
      "Closed queueing network by Mean Value Analysis: throughput, response "
      "time, utilisation and queues per population, bounds, bottleneck");
  cmd->footer(
      "Example: perflab models mva --station cpu:demand_ms=10,servers=4 "
      "--station disk:demand_ms=4,visits=5 --think-ms 1000 --clients 1..64\n"
      "Two classes: perflab models mva --class web:clients=20,think_ms=1000 "
      "--class batch:clients=2 --station cpu:demand_ms=10/200,servers=4 "
      "--station disk:demand_ms=20/50");
  cmd->add_option("--station", f->stations, kStationHelp)->required();
  CLI::Option* think =
      cmd->add_option(
             "--think-ms", f->think_ms,
             WithDefault("think time Z between a response and the next "
                         "request (ms)",
                         DefaultText(f->think_ms)))
          ->check(NonNegative());
  CLI::Option* clients = cmd->add_option(
      "--clients", f->clients,
      WithDefault(absl::StrCat("population N, or a range A..B for one row "
                               "per N (1 <= A <= B <= ",
                               kMaxClients, ", B - A < ", kMaxRows, ")"),
                  DefaultText(f->clients)));
  cmd->add_option("--class", f->classes,
                  "NAME:clients=N[,think_ms=Z], repeatable: several classes "
                  "(replaces --clients and --think-ms)")
      ->excludes(clients)
      ->excludes(think);
  cmd->add_option("--solver", f->solver,
                  absl::StrCat("exact (default; multi-class needs prod "
                               "(N_c + 1) x 2^L <= ",
                               models::kMaxExactMvaWork,
                               ", L multi-server stations) or schweitzer "
                               "(approximate, any population)"))
      ->check(CLI::IsMember({"exact", "schweitzer"}));
  registry.Produces(cmd, [f]() -> StatusOrDoc {
    std::vector<ClassSpec> classes;
    for (const std::string& spec : f->classes) {
      absl::StatusOr<ClassSpec> c = ParseClass(spec);
      if (!c.ok()) return c.status();
      classes.push_back(*c);
    }
    const size_t n_classes = std::max<size_t>(1, classes.size());
    std::vector<models::MultiClassStation> stations;
    for (const std::string& spec : f->stations) {
      absl::StatusOr<models::MultiClassStation> s =
          ParseStation(spec, n_classes);
      if (!s.ok()) return s.status();
      for (const models::MultiClassStation& before : stations) {
        if (before.name == s->name) {
          return absl::InvalidArgumentError(absl::StrCat(
              "--station: '", s->name,
              "' is named twice; accepted: one --station per name"));
        }
      }
      stations.push_back(*s);
    }
    if (classes.empty()) return SingleClass(*f, stations);
    return MultiClass(*f, std::move(stations), classes);
  });
}

}  // namespace perflab::cli
