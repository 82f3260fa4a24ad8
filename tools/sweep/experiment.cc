#include "tools/sweep/experiment.h"

#include <cstdint>
#include <optional>
#include <set>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "core/number.h"
#include "sim/scenarios/scenario.h"

#ifndef PERFLAB_VERSION
#define PERFLAB_VERSION "unknown"
#endif

namespace perflab::sweep {
namespace {

absl::Status Bad(const std::string& what) {
  return absl::InvalidArgumentError(what);
}

std::string DefaultTextOf(double v) { return absl::StrFormat("%g", v); }

// The scenario, or the error naming the accepted ones; R checked too.
absl::StatusOr<const sim::Scenario*> ScenarioAndReplications(
    const std::string& scenario, int64_t replications) {
  const sim::Scenario* s = sim::FindScenario(scenario);
  if (s == nullptr) {
    std::vector<std::string> names;
    for (const sim::Scenario& sc : sim::Scenarios()) names.push_back(sc.name);
    return Bad(absl::StrCat("unknown scenario '", scenario,
                            "'; accepted: ", absl::StrJoin(names, ", ")));
  }
  if (replications < 1) {
    return Bad(absl::StrCat("--replications = ", replications,
                            ": accepted an integer >= 1"));
  }
  if (replications > kMaxReplications) {
    return Bad(absl::StrCat("--replications = ", replications,
                            ": accepted an integer in [1, ", kMaxReplications,
                            "]"));
  }
  return s;
}

// A list-typed key separates its alternatives with ';'.
char Separator(const sim::Scenario& s, const std::string& key) {
  for (const sim::KeySpec& k : s.keys) {
    if (k.name == key && k.type == sim::KeySpec::Type::kList) return ';';
  }
  return ',';
}

absl::Status CheckValues(const sim::Scenario& s, const Axis& axis,
                         const std::string& set) {
  const char sep = Separator(s, axis.key);
  if (axis.values.empty() ||
      (axis.values.size() == 1 && axis.values[0].empty())) {
    return Bad(absl::StrCat("--set ", axis.key,
                            "= has an empty list; accepted: one or more "
                            "values separated by '",
                            std::string(1, sep), "'"));
  }
  for (const std::string& v : axis.values) {
    if (v.empty()) {
      return Bad(absl::StrCat("--set ", set,
                              ": an empty value in the list; "
                              "accepted: values separated by '",
                              std::string(1, sep), "'"));
    }
    // The scenario's own parser names the key, the value and its range.
    absl::StatusOr<sim::Params> p =
        sim::ParseParams(s, {absl::StrCat(axis.key, "=", v)});
    if (!p.ok()) return p.status();
  }
  return absl::OkStatus();
}

// Counts runs without overflow: stops multiplying past the hard bound.
absl::Status CheckRuns(const Experiment& e, const Limits& limits) {
  int64_t runs = e.replications;
  for (const Axis& a : e.axes) {
    const int64_t n = std::ssize(a.values);
    if (runs > kMaxForcedRuns / n) {
      return Bad(absl::StrCat("the sweep has more than ", kMaxForcedRuns,
                              " runs (grid points x replications); accepted: "
                              "at most ",
                              limits.max_runs, ", or ", kMaxForcedRuns,
                              " with --force"));
    }
    runs *= n;
  }
  if (runs > limits.max_runs && !limits.force) {
    return Bad(absl::StrCat("the sweep has more than ", limits.max_runs,
                            " runs (grid points x replications); accepted: "
                            "at most ",
                            limits.max_runs, ", or add --force"));
  }
  return absl::OkStatus();
}

// Every grid point checked as its runs would be, before the first run, and
// the work of all runs summed (R runs a point).
absl::Status CheckPoints(const sim::Scenario& s, const Experiment& e,
                         const Limits& limits) {
  double work = 0;
  const int64_t points = GridPoints(e);
  for (int64_t point = 0; point < points; ++point) {
    const std::vector<std::string> sets = PointSets(e, point);
    absl::StatusOr<double> share = sim::CheckSettings(s, sets);
    if (!share.ok()) {
      return Bad(absl::StrCat("grid point ", point, " (",
                              absl::StrJoin(sets, " "),
                              "): ", share.status().message()));
    }
    work += static_cast<double>(e.replications) * *share;
  }
  if (work > kMaxSweepWork && !limits.force) {
    return Bad(absl::StrCat("--replications ", e.replications, " over ", points,
                            " grid point(s): the runs' work adds up to ",
                            absl::StrFormat("%.4g", work), " times the ",
                            e.scenario,
                            " run at its work bound; accepted: at most ",
                            DefaultTextOf(kMaxSweepWork), ", or add --force"));
  }
  return absl::OkStatus();
}

absl::Status KeyGivenTwice(const std::string& key) {
  return Bad(absl::StrCat("--set key '", key,
                          "' given twice; accepted: each key once, with "
                          "all its values in one list"));
}

}  // namespace

absl::StatusOr<Experiment> MakeExperiment(const std::string& scenario,
                                          const std::vector<std::string>& sets,
                                          int64_t replications, uint64_t seed,
                                          const Limits& limits) {
  absl::StatusOr<const sim::Scenario*> s =
      ScenarioAndReplications(scenario, replications);
  if (!s.ok()) return s.status();
  Experiment e;
  e.scenario = scenario;
  e.replications = replications;
  e.seed = seed;
  std::set<std::string> seen;
  for (const std::string& set : sets) {
    size_t eq = set.find('=');
    if (eq == std::string::npos || eq == 0) {
      return Bad(absl::StrCat("--set '", set, "': expected key=v1,v2,..."));
    }
    Axis axis;
    axis.key = set.substr(0, eq);
    if (!seen.insert(axis.key).second) return KeyGivenTwice(axis.key);
    axis.values = absl::StrSplit(set.substr(eq + 1), Separator(**s, axis.key));
    if (absl::Status c = CheckValues(**s, axis, set); !c.ok()) return c;
    e.axes.push_back(std::move(axis));
  }
  if (absl::Status c = CheckRuns(e, limits); !c.ok()) return c;
  if (absl::Status c = CheckPoints(**s, e, limits); !c.ok()) return c;
  return e;
}

absl::Status CheckExperiment(const Experiment& e, const Limits& limits) {
  absl::StatusOr<const sim::Scenario*> s =
      ScenarioAndReplications(e.scenario, e.replications);
  if (!s.ok()) return s.status();
  std::set<std::string> seen;
  for (const Axis& axis : e.axes) {
    if (axis.key.empty() || axis.key.find('=') != std::string::npos) {
      return Bad(absl::StrCat("--set key '", axis.key, "' is not a key name"));
    }
    if (!seen.insert(axis.key).second) return KeyGivenTwice(axis.key);
    const std::string set = absl::StrCat(
        axis.key, "=",
        absl::StrJoin(axis.values, std::string(1, Separator(**s, axis.key))));
    if (absl::Status c = CheckValues(**s, axis, set); !c.ok()) return c;
  }
  return CheckRuns(e, limits);
}

int64_t GridPoints(const Experiment& e) {
  int64_t n = 1;
  for (const Axis& a : e.axes) n *= static_cast<int64_t>(a.values.size());
  return n;
}

int64_t TotalRuns(const Experiment& e) {
  return GridPoints(e) * e.replications;
}

std::vector<std::string> PointSets(const Experiment& e, int64_t point) {
  std::vector<std::string> sets(e.axes.size());
  // Mixed-radix digits of `point`, the last axis varying fastest.
  for (size_t i = e.axes.size(); i-- > 0;) {
    int64_t n = static_cast<int64_t>(e.axes[i].values.size());
    sets[i] = absl::StrCat(e.axes[i].key, "=",
                           e.axes[i].values[static_cast<size_t>(point % n)]);
    point /= n;
  }
  return sets;
}

std::string Describe(const Experiment& e) {
  std::vector<std::string> axes;
  for (const Axis& a : e.axes) {
    axes.push_back(absl::StrCat(a.key, "=", absl::StrJoin(a.values, "|")));
  }
  return absl::StrCat("scenario=", e.scenario, " grid=[",
                      absl::StrJoin(axes, " "),
                      "] replications=", e.replications, " seed=", e.seed,
                      " version=", PERFLAB_VERSION);
}

std::string Fingerprint(const Experiment& e) {
  uint64_t h = 0xcbf29ce484222325ULL;  // FNV-1a: stable across builds
  for (unsigned char c : Describe(e)) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  return absl::StrFormat("%016x", h);
}

absl::StatusOr<Shard> ParseShard(const std::string& text) {
  std::vector<std::string> parts = absl::StrSplit(text, '/');
  Shard s;
  // Decimal digits only (core/number.h): " 1/4", "+1/4" or "0x1/4" are
  // refused, not read as 1/4.
  std::optional<int64_t> index, count;
  if (parts.size() == 2) {
    index = core::ParseDecimalInteger(parts[0]);
    count = core::ParseDecimalInteger(parts[1]);
  }
  if (index) s.index = *index;
  if (count) s.count = *count;
  if (!index || !count || s.count < 1 || s.index < 1 || s.index > s.count ||
      s.count > kMaxShards) {
    return Bad(absl::StrCat(
        "--shard = '", text,
        "': accepted I/N with integers 1 <= I <= N <= ", kMaxShards));
  }
  return s;
}

int64_t ShardSize(const Experiment& e, const Shard& shard) {
  const int64_t total = TotalRuns(e);
  const int64_t first = shard.index - 1;
  if (first >= total) return 0;
  return (total - first - 1) / shard.count + 1;  // no k + N overflow
}

std::vector<int64_t> ShardRuns(const Experiment& e, const Shard& shard) {
  const int64_t n = ShardSize(e, shard);
  std::vector<int64_t> runs(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    runs[static_cast<size_t>(i)] = shard.index - 1 + i * shard.count;
  }
  return runs;
}

}  // namespace perflab::sweep
