// perflab sim [NAME] [--set key=value ...] [--seed N] [--format ...]:
// without a name, the list of scenarios; with one, that scenario's Document.
// Keys are validated by the scenario's declarations (sim/scenario.h), so an
// unknown key, a wrong type or an out-of-range value is one line and exit 2.
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "sim/scenarios/scenario.h"
#include "tools/perflab/commands.h"

namespace perflab::cli {

void AddSimCommands(CLI::App& root, Registry& registry) {
  CLI::App* sim = root.add_subcommand("sim",
                                      "deterministic discrete-event scenarios "
                                      "in virtual time (no NAME: list them)");
  auto list_format = std::make_shared<std::string>(kDefaultFormat);
  sim->add_option_function<std::string>(
         "--format", [list_format](const std::string& v) { *list_format = v; },
         WithDefault("output: table, json, csv", DefaultText(*list_format)))
      ->check(CLI::IsMember({"table", "json", "csv"}));
  // Subcommand callbacks run before this one: only list when none was chosen.
  sim->callback([sim, &registry, list_format] {
    if (!sim->get_subcommands().empty()) return;
    registry.chosen() = Registry::Choice{
        []() -> absl::StatusOr<core::Document> { return sim::ScenarioList(); },
        list_format.get()};
  });
  for (const sim::Scenario& s : sim::Scenarios()) {
    CLI::App* cmd = sim->add_subcommand(s.name, s.summary);
    // Built when a help is printed: every scenario's keys, ranges and bounds
    // cost a short run's start-up more than the run. CLI11 ends a footer
    // callback's text with a newline of its own, which KeysHelp ends with.
    cmd->footer([&s] {
      std::string keys = sim::KeysHelp(s);
      if (!keys.empty() && keys.back() == '\n') keys.pop_back();
      return keys;
    });
    auto sets = std::make_shared<std::vector<std::string>>();
    auto seed = std::make_shared<std::string>(absl::StrCat(sim::kDefaultSeed));
    cmd->add_option("--set", *sets,
                    "key=value, repeatable (keys listed below)");
    cmd->add_option("--seed", *seed,
                    WithDefault("random seed, an integer >= 0",
                                DefaultText(sim::kDefaultSeed)))
        ->check(Seed());
    registry.Produces(
        cmd, [name = s.name, sets, seed]() -> absl::StatusOr<core::Document> {
          absl::StatusOr<uint64_t> value = ParseSeed("--seed", *seed);
          if (!value.ok()) return value.status();
          return sim::RunScenario(name, *sets, *value);
        });
  }
}

}  // namespace perflab::cli
