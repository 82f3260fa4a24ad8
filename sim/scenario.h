// Scenarios: named, parameterised simulations that each produce a
// report::Document. Every key a scenario accepts is declared (type, default,
// range, one-line meaning), so the CLI can list, validate and document them
// without knowing the scenario. Running a scenario twice with the same
// parameters and seed gives the same Document, byte for byte once rendered.
// The registry is immutable after first use; scenarios are thread-compatible.
#ifndef PERFLAB_SIM_SCENARIO_H_
#define PERFLAB_SIM_SCENARIO_H_

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "tools/report/document.h"

namespace perflab::sim {

struct KeySpec {
  enum class Type { kInt, kNumber, kChoice, kList };
  std::string name;  // "servers"
  Type type = Type::kNumber;
  std::string fallback;  // default, as the user would type it
  double min = 0;        // accepted range for numbers (each list element too)
  double max = 1e18;
  bool min_open = false;  // true: min itself is rejected (a rate > 0)
  std::vector<std::string> choices;  // kChoice: accepted words
  std::string help;                  // one line, with the unit
};

// Validated values of a scenario's keys. Accessors assume the key exists
// (they were declared, and parsing filled in defaults).
class Params {
 public:
  double Num(std::string_view key) const;
  int64_t Int(std::string_view key) const;
  const std::string& Str(std::string_view key) const;
  std::vector<double> List(std::string_view key) const;
  const std::map<std::string, std::string, std::less<>>& values() const {
    return values_;
  }
  std::map<std::string, std::string, std::less<>>& mutable_values() {
    return values_;
  }

 private:
  std::map<std::string, std::string, std::less<>> values_;
};

using ScenarioFn = std::function<absl::StatusOr<report::Document>(
    const Params&, uint64_t seed)>;

struct Scenario {
  std::string name;
  std::string summary;  // one line for the listing
  std::vector<KeySpec> keys;
  ScenarioFn run;
};

// All scenarios, in listing order.
const std::vector<Scenario>& Scenarios();
const Scenario* FindScenario(std::string_view name);

// Parses "key=value" settings against the scenario's keys; unknown keys, bad
// types and out-of-range values are InvalidArgument naming key, value, range.
absl::StatusOr<Params> ParseParams(const Scenario& scenario,
                                   const std::vector<std::string>& sets);

// Parses, runs and stamps the scenario name, seed and parameters.
absl::StatusOr<report::Document> RunScenario(
    std::string_view name, const std::vector<std::string>& sets, uint64_t seed);

// "key  type  default  range  meaning" lines for --help.
std::string KeysHelp(const Scenario& scenario);

// The listing of every scenario, as a Document.
report::Document ScenarioList();

inline constexpr uint64_t kDefaultSeed = 42;

}  // namespace perflab::sim

#endif  // PERFLAB_SIM_SCENARIO_H_
