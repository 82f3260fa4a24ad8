#include "tools/sweep/experiment.h"

#include <set>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "sim/scenarios/scenario.h"

#ifndef PERFLAB_VERSION
#define PERFLAB_VERSION "unknown"
#endif

namespace perflab::sweep {
namespace {

absl::Status Bad(const std::string& what) {
  return absl::InvalidArgumentError(what);
}

}  // namespace

absl::StatusOr<Experiment> MakeExperiment(const std::string& scenario,
                                          const std::vector<std::string>& sets,
                                          int64_t replications, uint64_t seed,
                                          const Limits& limits) {
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
    std::string list = set.substr(eq + 1);
    if (!seen.insert(axis.key).second) {
      return Bad(absl::StrCat("--set key '", axis.key,
                              "' given twice; accepted: each key once, with "
                              "all its values in one list"));
    }
    char sep = ',';
    for (const sim::KeySpec& k : s->keys) {
      if (k.name == axis.key && k.type == sim::KeySpec::Type::kList) sep = ';';
    }
    if (list.empty()) {
      return Bad(absl::StrCat("--set ", axis.key,
                              "= has an empty list; accepted: one or more "
                              "values separated by '",
                              std::string(1, sep), "'"));
    }
    axis.values = absl::StrSplit(list, sep);
    for (const std::string& v : axis.values) {
      if (v.empty()) {
        return Bad(absl::StrCat("--set ", set,
                                ": an empty value in the list; "
                                "accepted: values separated by '",
                                std::string(1, sep), "'"));
      }
      // The scenario's own parser names the key, the value and its range.
      absl::StatusOr<sim::Params> p =
          sim::ParseParams(*s, {absl::StrCat(axis.key, "=", v)});
      if (!p.ok()) return p.status();
    }
    e.axes.push_back(std::move(axis));
  }
  // Count runs without overflow: stop multiplying once past the limit.
  int64_t runs = replications;
  bool over = runs > limits.max_runs;
  for (const Axis& a : e.axes) {
    if (over) break;
    runs *= static_cast<int64_t>(a.values.size());
    over = runs > limits.max_runs;
  }
  if (over && !limits.force) {
    return Bad(absl::StrCat("the sweep has more than ", limits.max_runs,
                            " runs (grid points x replications); accepted: "
                            "at most ",
                            limits.max_runs, ", or add --force"));
  }
  return e;
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
  if (parts.size() != 2 || !absl::SimpleAtoi(parts[0], &s.index) ||
      !absl::SimpleAtoi(parts[1], &s.count) || s.count < 1 || s.index < 1 ||
      s.index > s.count) {
    return Bad(absl::StrCat("--shard = '", text,
                            "': accepted I/N with integers 1 <= I <= N"));
  }
  return s;
}

std::vector<int64_t> ShardRuns(const Experiment& e, const Shard& shard) {
  std::vector<int64_t> runs;
  for (int64_t k = shard.index - 1; k < TotalRuns(e); k += shard.count) {
    runs.push_back(k);
  }
  return runs;
}

}  // namespace perflab::sweep
