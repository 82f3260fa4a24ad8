#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <set>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "core/number.h"
#include "sim/scenarios/internal/common.h"
#include "sim/scenarios/scenario.h"

namespace perflab::sim {
namespace {

// A time that must be above 0 (a key in ms or s, units in its name) must be
// at least the clock's step, 1 ns: a smaller one rounds to 0 ns, where a
// zero-length hold or window loops without time passing or divides by 0.
double TimeFloor(const KeySpec& k) {
  if (!k.min_open || k.min != 0) return 0;
  if (absl::EndsWith(k.name, "_ms")) return 1e-6;
  if (absl::EndsWith(k.name, "_s") && !absl::EndsWith(k.name, "_per_s")) {
    return 1e-9;
  }
  return 0;
}

// "(0, 10]", or "[1e-06, 10]" where the clock's step is the floor.
std::string Interval(const KeySpec& k) {
  const double floor = TimeFloor(k);
  return absl::StrCat(floor > 0 || !k.min_open ? "[" : "(",
                      DefaultText(floor > 0 ? floor : k.min), ", ",
                      DefaultText(k.max), "]");
}

std::string RangeText(const KeySpec& k) {
  switch (k.type) {
    case KeySpec::Type::kChoice:
      return absl::StrCat("one of ", absl::StrJoin(k.choices, ", "));
    case KeySpec::Type::kInt:
      return absl::StrCat(
          "an integer in [", DefaultText(k.min), ", ", DefaultText(k.max), "]",
          k.choices.empty() ? "" : " or ", absl::StrJoin(k.choices, ", "));
    case KeySpec::Type::kNumber:
      return absl::StrCat("a number in ", Interval(k));
    case KeySpec::Type::kList:
      return absl::StrCat("comma-separated numbers in ", Interval(k));
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
  if (v < TimeFloor(k)) return false;
  return v <= k.max;
}

}  // namespace

absl::Status Params::Parse(const KeySpec& k, const std::string& value,
                           Entry& entry) {
  auto bad = [&] {
    return absl::InvalidArgumentError(absl::StrCat(
        "key '", k.name, "' = '", value, "': accepted ", RangeText(k)));
  };
  entry.type = k.type;
  entry.text = value;
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
      const std::optional<int64_t> v = core::ParseDecimalInteger(value);
      if (!v || !InRange(k, static_cast<double>(*v))) return bad();
      entry.integer = *v;
      return absl::OkStatus();
    }
    case KeySpec::Type::kNumber: {
      // Decimal only, as every number a user types (core/number.h).
      const std::optional<double> v = core::ParseDecimal(value);
      if (!v || !InRange(k, *v)) return bad();
      entry.number = *v;
      return absl::OkStatus();
    }
    case KeySpec::Type::kList: {
      std::vector<std::string> parts = absl::StrSplit(value, ',');
      if (parts.empty() || parts.size() > 64) return bad();
      entry.numbers.clear();
      for (const auto& p : parts) {
        const std::optional<double> v = core::ParseDecimal(p);
        if (!v || !InRange(k, *v)) return bad();
        entry.numbers.push_back(*v);
      }
      return absl::OkStatus();
    }
  }
  return bad();
}

const Params::Entry& Params::Get(std::string_view key,
                                 KeySpec::Type type) const {
  auto it = entries_.find(key);
  if (it == entries_.end() || it->second.type != type) {
    // A scenario read a key it did not declare (or as another type): a bug in
    // the scenario, not bad input, so stop loudly with the key's name.
    std::fprintf(stderr, "perflab: scenario reads undeclared key '%s'\n",
                 std::string(key).c_str());
    std::abort();
  }
  return it->second;
}

double Params::Number(std::string_view key) const {
  return Get(key, KeySpec::Type::kNumber).number;
}
int64_t Params::Integer(std::string_view key) const {
  return Get(key, KeySpec::Type::kInt).integer;
}
const std::vector<double>& Params::Numbers(std::string_view key) const {
  return Get(key, KeySpec::Type::kList).numbers;
}
const std::string& Params::Text(std::string_view key) const {
  auto it = entries_.find(key);
  if (it == entries_.end()) return Get(key, KeySpec::Type::kNumber).text;
  return it->second.text;
}

std::vector<std::pair<std::string, std::string>> Params::Texts() const {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& [key, entry] : entries_) out.emplace_back(key, entry.text);
  return out;
}

namespace {

// Factories registered during static initialisation, in link order; the
// listing sorts them by name so the order never depends on the linker.
std::vector<Scenario (*)()>& Factories() {
  static auto* factories = new std::vector<Scenario (*)()>;
  return *factories;
}

}  // namespace

ScenarioRegistration::ScenarioRegistration(Scenario (*make)()) {
  Factories().push_back(make);
}

const std::vector<Scenario>& Scenarios() {
  static const std::vector<Scenario>* all = [] {
    auto* scenarios = new std::vector<Scenario>;
    for (Scenario (*make)() : Factories()) scenarios->push_back(make());
    std::sort(
        scenarios->begin(), scenarios->end(),
        [](const Scenario& a, const Scenario& b) { return a.name < b.name; });
    return scenarios;
  }();
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
  for (const KeySpec& k : scenario.keys) {
    // A default that does not parse is a bug in the scenario's declaration.
    if (absl::Status s = Params::Parse(k, k.fallback, params.entries_[k.name]);
        !s.ok()) {
      return absl::InternalError(absl::StrCat("scenario ", scenario.name,
                                              ": bad default: ", s.message()));
    }
  }
  std::set<std::string, std::less<>> seen;
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
    if (!seen.insert(key).second) {
      // As sweep does: a second value would silently replace the first.
      return absl::InvalidArgumentError(absl::StrCat(
          "--set: key '", key, "' given twice; accepted: each key once"));
    }
    if (absl::Status s = Params::Parse(*spec, value, params.entries_[key]);
        !s.ok())
      return s;
  }
  return params;
}

namespace {

// A scenario's run stops on a budget breach (ResourceExhausted) only when
// its keys ask for it: a load past what the simulated system serves, or a
// run too long. That is bad input, refused with what would be accepted: a
// lighter or shorter run, or for the pending budget a larger max_pending
// within its key's bound.
absl::Status BudgetRefusal(const Scenario& scenario, const Params& params,
                           const absl::Status& breach) {
  std::string accepted =
      "a lighter or shorter run (a lower rate, fewer clients or customers, "
      "a shorter duration)";
  for (const KeySpec& k : scenario.keys) {
    if (k.name == "max_pending" &&
        absl::StrContains(breach.message(), "max_pending")) {
      absl::StrAppend(&accepted, ", or max_pending up to ", DefaultText(k.max),
                      " (given ", params.Text("max_pending"), ")");
    }
  }
  return absl::InvalidArgumentError(
      absl::StrCat(breach.message(), "; accepted: ", accepted));
}

// The keys the work bound's formula names, as the user set them.
std::string FormulaKeys(const Scenario& scenario, const Params& params) {
  std::vector<std::string> named;
  for (const KeySpec& k : scenario.keys) {
    if (NamesKey(scenario.work.formula, k.name)) {
      named.push_back(absl::StrCat(k.name, " = '", params.Text(k.name), "'"));
    }
  }
  return absl::StrJoin(named, ", ");
}

absl::Status CheckParams(const Scenario& scenario, const Params& params) {
  if (scenario.check) {
    if (absl::Status s = scenario.check(params); !s.ok()) return s;
  }
  if (!scenario.work.estimate) return absl::OkStatus();
  const double work = scenario.work.estimate(params);
  // !(<=): a NaN estimate is refused too.
  if (!(work <= scenario.work.max)) {
    return absl::InvalidArgumentError(
        absl::StrCat("keys ", FormulaKeys(scenario, params), ": ",
                     absl::StrFormat("%.6g", work), " ", scenario.work.unit,
                     scenario.work.values
                         ? absl::StrCat(" (", scenario.work.values(params), ")")
                         : "",
                     "; ", WorkBoundText(scenario.work)));
  }
  return absl::OkStatus();
}

}  // namespace

bool NamesKey(std::string_view formula, std::string_view key) {
  const auto word = [](char c) {
    return absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '_';
  };
  for (size_t at = formula.find(key); at != std::string_view::npos;
       at = formula.find(key, at + 1)) {
    const size_t end = at + key.size();
    if ((at == 0 || !word(formula[at - 1])) &&
        (end == formula.size() || !word(formula[end]))) {
      return true;
    }
  }
  return false;
}

std::string WorkBoundText(const WorkBound& bound) {
  return absl::StrCat("accepted ", bound.formula,
                      " <= ", DefaultText(bound.max));
}

absl::StatusOr<double> CheckSettings(const Scenario& scenario,
                                     const std::vector<std::string>& sets) {
  absl::StatusOr<Params> params = ParseParams(scenario, sets);
  if (!params.ok()) return params.status();
  if (absl::Status s = CheckParams(scenario, *params); !s.ok()) return s;
  if (!scenario.work.estimate) return 0.0;
  return scenario.work.estimate(*params) / scenario.work.max;
}

absl::StatusOr<core::Document> RunScenario(std::string_view name,
                                           const std::vector<std::string>& sets,
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
  if (absl::Status s = CheckParams(*scenario, *params); !s.ok()) return s;
  absl::StatusOr<core::Document> doc = scenario->run(*params, seed);
  if (doc.status().code() == absl::StatusCode::kResourceExhausted) {
    return BudgetRefusal(*scenario, *params, doc.status());
  }
  if (!doc.ok()) return doc.status();
  doc->Set("scenario", "scenario", scenario->name);
  doc->Set("seed", "seed", static_cast<int64_t>(seed));
  core::Table& t = doc->AddTable("parameters", "Parameters",
                                 {{"key", "key"}, {"value", "value"}});
  for (const auto& [k, v] : params->Texts()) t.Add({k, v});
  return doc;
}

std::string KeysHelp(const Scenario& scenario) {
  std::string out =
      absl::StrCat(scenario.summary, "\n\nKeys (--set key=value):\n");
  for (const KeySpec& k : scenario.keys) {
    absl::StrAppend(&out, "  ", absl::StrFormat("%-22s", k.name), " ",
                    absl::StrFormat("%-6s", TypeName(k.type)), " default ",
                    k.fallback, "; ", RangeText(k), "\n      ", k.help, "\n");
    if (scenario.work.estimate && NamesKey(scenario.work.formula, k.name)) {
      absl::StrAppend(&out, "      with the other keys: ",
                      WorkBoundText(scenario.work), "\n");
    }
  }
  if (!scenario.work.terms.empty()) {
    absl::StrAppend(&out, "\nWork bound: ", WorkBoundText(scenario.work),
                    ",\n  where ", scenario.work.terms, "\n");
  }
  return out;
}

core::Document ScenarioList() {
  core::Document doc(
      "perflab sim: scenarios (run perflab sim NAME --help for keys)");
  core::Table& t =
      doc.AddTable("scenarios", "Scenarios",
                   {{"name", "name"}, {"summary", "what it shows"}});
  for (const Scenario& s : Scenarios()) t.Add({s.name, s.summary});
  return doc;
}

}  // namespace perflab::sim
