// Scenarios: the case study's experiments as named, parameterised simulations
// that each produce a core::Document. Every key a scenario accepts is declared
// (type, default, range, one-line meaning), so the CLI can list, validate and
// document them without knowing the scenario. Running a scenario twice with
// the same parameters and seed gives the same Document, byte for byte once
// rendered.
//
// Adding a scenario is one new file in sim/scenarios/ ending with
//   const ScenarioRegistration kRegistration(MyScenario);
// (see sim/README.md). Registrations run during static initialisation; the
// registry is immutable after first use and safe to read from any thread.
#ifndef PERFLAB_SIM_SCENARIOS_SCENARIO_H_
#define PERFLAB_SIM_SCENARIOS_SCENARIO_H_

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "core/document.h"

namespace perflab::sim {

struct KeySpec {
  enum class Type { kInt, kNumber, kChoice, kList };
  std::string name;  // "servers"
  Type type = Type::kNumber;
  std::string fallback;  // default, as the user would type it
  double min = 0;        // accepted range for numbers (each list element too)
  double max = 1e18;
  bool min_open = false;  // true: min itself is rejected (a rate > 0)
  std::vector<std::string> choices;  // kChoice: accepted words; kInt: words
                                     // accepted besides integers ("virtual")
  std::string help;                  // one line, with the unit
};

struct Scenario;

// A scenario's keys, validated and converted once by ParseParams. Reading a
// key the scenario did not declare, or as another type, is a programming
// error and aborts with the key's name.
class Params {
 public:
  double Number(std::string_view key) const;    // kNumber
  int64_t Integer(std::string_view key) const;  // kInt (0 for a word)
  const std::vector<double>& Numbers(std::string_view key) const;  // kList
  // The value as the user typed it (or the default): choice words, "virtual".
  const std::string& Text(std::string_view key) const;

  // Every key's text, sorted by key: the parameters table of a run.
  std::vector<std::pair<std::string, std::string>> Texts() const;

 private:
  friend absl::StatusOr<Params> ParseParams(
      const Scenario& scenario, const std::vector<std::string>& sets);
  struct Entry {
    KeySpec::Type type = KeySpec::Type::kNumber;
    std::string text;
    double number = 0;
    int64_t integer = 0;
    std::vector<double> numbers;
  };
  const Entry& Get(std::string_view key, KeySpec::Type type) const;
  // Validates `value` against `key` and converts it once, into `entry`.
  static absl::Status Parse(const KeySpec& key, const std::string& value,
                            Entry& entry);
  std::map<std::string, Entry, std::less<>> entries_;
};

using ScenarioFn =
    std::function<absl::StatusOr<core::Document>(const Params&, uint64_t seed)>;

// A run's work, estimated from its keys before it starts: a run whose
// estimate is over `max` is refused (InvalidArgument) before its first
// event, and a sweep before its first run. `formula` is written in the keys'
// names; the refusal and the --help of every key it names print it, so the
// bound has one definition. `max` is set so that a run at it takes seconds.
struct WorkBound {
  std::string formula;  // "6 x calls"
  double max = 0;       // accepted: formula <= max
  std::string unit;     // what the estimate counts: "GETs"
  std::function<double(const Params&)> estimate;
  // What the formula's terms that are not keys stand for, for --help
  // ("ceiling_per_s = 1000 x min(...)"); empty when it has none.
  std::string terms = {};
  // Those terms' values for a run, for its refusal ("ceiling_per_s = 6066").
  std::function<std::string(const Params&)> values = {};
};

struct Scenario {
  std::string name;
  std::string summary;  // one line for the listing
  std::vector<KeySpec> keys;
  ScenarioFn run;
  WorkBound work = {};  // no estimate when `estimate` is empty
  // Checks of keys taken together (one key's range is its KeySpec's), made
  // with the work bound before the run; may be empty.
  std::function<absl::Status(const Params&)> check = {};
};

// A namespace-scope constant of this type adds a scenario to the registry.
class ScenarioRegistration {
 public:
  explicit ScenarioRegistration(Scenario (*make)());
};

// All scenarios, sorted by name.
const std::vector<Scenario>& Scenarios();
const Scenario* FindScenario(std::string_view name);

// Parses "key=value" settings against the scenario's keys; unknown keys, bad
// types and out-of-range values are InvalidArgument naming key, value, range.
absl::StatusOr<Params> ParseParams(const Scenario& scenario,
                                   const std::vector<std::string>& sets);

// Parses `sets` and makes every check RunScenario makes before running:
// each key's range, the scenario's checks of keys taken together and its
// work bound. For sweep, which checks every grid point before its first run.
// Returns the run's estimated work as a share of the bound (1: at it), 0
// for a scenario without an estimate.
absl::StatusOr<double> CheckSettings(const Scenario& scenario,
                                     const std::vector<std::string>& sets);

// Parses, runs and stamps the scenario name, seed and parameters. A run its
// keys push past the simulator's budget is InvalidArgument, as any other bad
// key is, saying what would be accepted.
absl::StatusOr<core::Document> RunScenario(std::string_view name,
                                           const std::vector<std::string>& sets,
                                           uint64_t seed);

// "key  type  default  range  meaning" lines for --help.
std::string KeysHelp(const Scenario& scenario);

// The listing of every scenario, as a Document.
core::Document ScenarioList();

inline constexpr uint64_t kDefaultSeed = 42;

// The attachment key under which a scenario with one measured window attaches
// its latency histogram (a models::Histogram, in nanoseconds) to its Document.
inline constexpr std::string_view kLatencyHistogram = "latency_histogram";

}  // namespace perflab::sim

#endif  // PERFLAB_SIM_SCENARIOS_SCENARIO_H_
