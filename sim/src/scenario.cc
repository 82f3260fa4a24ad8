#include "sim/scenario.h"

#include <cmath>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "sim/src/scenarios_internal.h"

namespace perflab::sim {
namespace {

std::string Num(double v) { return absl::StrFormat("%.10g", v); }

std::string RangeText(const KeySpec& k) {
  switch (k.type) {
    case KeySpec::Type::kChoice:
      return absl::StrCat("one of ", absl::StrJoin(k.choices, ", "));
    case KeySpec::Type::kInt:
      return absl::StrCat("an integer in [", Num(k.min), ", ", Num(k.max), "]",
                          k.choices.empty() ? "" : " or ",
                          absl::StrJoin(k.choices, ", "));
    case KeySpec::Type::kNumber:
      return absl::StrCat("a number in ", k.min_open ? "(" : "[", Num(k.min),
                          ", ", Num(k.max), "]");
    case KeySpec::Type::kList:
      return absl::StrCat("comma-separated numbers in ", k.min_open ? "(" : "[",
                          Num(k.min), ", ", Num(k.max), "]");
  }
  return "";
}

const char* TypeName(KeySpec::Type t) {
  switch (t) {
    case KeySpec::Type::kInt:
      return "int";
    case KeySpec::Type::kNumber:
      return "number";
    case KeySpec::Type::kChoice:
      return "choice";
    case KeySpec::Type::kList:
      return "list";
  }
  return "";
}

bool InRange(const KeySpec& k, double v) {
  if (!std::isfinite(v)) return false;
  if (k.min_open ? v <= k.min : v < k.min) return false;
  return v <= k.max;
}

absl::Status Check(const KeySpec& k, const std::string& value) {
  auto bad = [&] {
    return absl::InvalidArgumentError(absl::StrCat(
        "key '", k.name, "' = '", value, "': accepted ", RangeText(k)));
  };
  switch (k.type) {
    case KeySpec::Type::kChoice:
      for (const auto& c : k.choices) {
        if (c == value) return absl::OkStatus();
      }
      return bad();
    case KeySpec::Type::kInt: {
      for (const auto& c : k.choices) {
        if (c == value) return absl::OkStatus();  // a word such as "virtual"
      }
      int64_t v = 0;
      if (!absl::SimpleAtoi(value, &v) || !InRange(k, static_cast<double>(v)))
        return bad();
      return absl::OkStatus();
    }
    case KeySpec::Type::kNumber: {
      double v = 0;
      if (!absl::SimpleAtod(value, &v) || !InRange(k, v)) return bad();
      return absl::OkStatus();
    }
    case KeySpec::Type::kList: {
      std::vector<std::string> parts = absl::StrSplit(value, ',');
      if (parts.empty() || parts.size() > 64) return bad();
      for (const auto& p : parts) {
        double v = 0;
        if (!absl::SimpleAtod(p, &v) || !InRange(k, v)) return bad();
      }
      return absl::OkStatus();
    }
  }
  return bad();
}

}  // namespace

double Params::Num(std::string_view key) const {
  double v = 0;
  (void)absl::SimpleAtod(values_.find(key)->second, &v);
  return v;
}

int64_t Params::Int(std::string_view key) const {
  int64_t v = 0;
  (void)absl::SimpleAtoi(values_.find(key)->second, &v);
  return v;
}

const std::string& Params::Str(std::string_view key) const {
  return values_.find(key)->second;
}

std::vector<double> Params::List(std::string_view key) const {
  std::vector<double> out;
  std::vector<std::string> parts =
      absl::StrSplit(values_.find(key)->second, ',');
  for (const std::string& p : parts) {
    double v = 0;
    (void)absl::SimpleAtod(p, &v);
    out.push_back(v);
  }
  return out;
}

const std::vector<Scenario>& Scenarios() {
  static const std::vector<Scenario>* all = new std::vector<Scenario>{
      CoordinatedOmissionScenario(),
      LatencyMixtureScenario(),
      LittlesLawScenario(),
      ThreadPoolScenario(),
      PoolStarvationScenario(),
      ClientPoolScenario(),
      UslScenario(),
      MmcScenario(),
      HockeyStickScenario(),
      KeepaliveRaceScenario(),
      LockContentionScenario(),
      HttpConnectionsScenario(),
      GcHeapScenario(),
      CacheScenario(),
  };
  return *all;
}

const Scenario* FindScenario(std::string_view name) {
  for (const Scenario& s : Scenarios()) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

absl::StatusOr<Params> ParseParams(const Scenario& scenario,
                                   const std::vector<std::string>& sets) {
  Params params;
  for (const KeySpec& k : scenario.keys)
    params.mutable_values()[k.name] = k.fallback;
  for (const std::string& set : sets) {
    const size_t eq = set.find('=');
    if (eq == std::string::npos) {
      return absl::InvalidArgumentError(
          absl::StrCat("--set '", set, "': expected key=value"));
    }
    const std::string key = set.substr(0, eq);
    const std::string value = set.substr(eq + 1);
    const KeySpec* spec = nullptr;
    for (const KeySpec& k : scenario.keys) {
      if (k.name == key) spec = &k;
    }
    if (spec == nullptr) {
      std::vector<std::string> names;
      for (const KeySpec& k : scenario.keys) names.push_back(k.name);
      return absl::InvalidArgumentError(absl::StrCat(
          "unknown key '", key, "' (value '", value, "') for scenario ",
          scenario.name, "; accepted keys: ", absl::StrJoin(names, ", ")));
    }
    if (absl::Status s = Check(*spec, value); !s.ok()) return s;
    params.mutable_values()[key] = value;
  }
  return params;
}

absl::StatusOr<report::Document> RunScenario(
    std::string_view name, const std::vector<std::string>& sets,
    uint64_t seed) {
  const Scenario* scenario = FindScenario(name);
  if (scenario == nullptr) {
    std::vector<std::string> names;
    for (const Scenario& s : Scenarios()) names.push_back(s.name);
    return absl::InvalidArgumentError(
        absl::StrCat("unknown scenario '", std::string(name),
                     "'; accepted: ", absl::StrJoin(names, ", ")));
  }
  absl::StatusOr<Params> params = ParseParams(*scenario, sets);
  if (!params.ok()) return params.status();
  absl::StatusOr<report::Document> doc = scenario->run(*params, seed);
  if (!doc.ok()) return doc.status();
  doc->Set("scenario", "scenario", scenario->name);
  doc->Set("seed", "seed", static_cast<int64_t>(seed));
  report::Table& t = doc->AddTable("parameters", "Parameters",
                                   {{"key", "key"}, {"value", "value"}});
  for (const auto& [k, v] : params->values()) t.Add({k, v});
  return doc;
}

std::string KeysHelp(const Scenario& scenario) {
  std::string out =
      absl::StrCat(scenario.summary, "\n\nKeys (--set key=value):\n");
  for (const KeySpec& k : scenario.keys) {
    absl::StrAppend(&out, "  ", absl::StrFormat("%-22s", k.name), " ",
                    absl::StrFormat("%-6s", TypeName(k.type)), " default ",
                    k.fallback, "; ", RangeText(k), "\n      ", k.help, "\n");
  }
  return out;
}

report::Document ScenarioList() {
  report::Document doc(
      "perflab sim: scenarios (run perflab sim NAME --help for keys)");
  report::Table& t =
      doc.AddTable("scenarios", "Scenarios",
                   {{"name", "name"}, {"summary", "what it shows"}});
  for (const Scenario& s : Scenarios()) t.Add({s.name, s.summary});
  return doc;
}

}  // namespace perflab::sim
