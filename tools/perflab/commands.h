// Each command family adds its subcommands to the root `perflab` app here.
#ifndef PERFLAB_TOOLS_PERFLAB_COMMANDS_H_
#define PERFLAB_TOOLS_PERFLAB_COMMANDS_H_

#include <string>
#include <string_view>
#include <vector>

#include "CLI/CLI.hpp"
#include "tools/perflab/cli.h"

namespace perflab::cli {

// The --format values of the commands whose results are tables (capstone,
// calibrate, compare): md is compare::ToMarkdown's, the others core::Render's.
inline std::vector<std::string> TableFormats() {
  return {"table", "json", "csv", "md"};
}

void AddModelsCommands(CLI::App& root,
                       Registry& registry);               // models_commands.cc
void AddSimCommands(CLI::App& root, Registry& registry);  // sim_commands.cc
void AddFixturesCommands(CLI::App& root,
                         Registry& registry);  // fixtures_commands.cc
void AddRealityCommands(CLI::App& root,
                        Registry& registry);  // reality_commands.cc
void AddCompareCommands(CLI::App& root,
                        Registry& registry);  // compare_command.cc
void AddSweepCommands(CLI::App& root,
                      Registry& registry);  // sweep_commands.cc
void AddCapstoneCommands(CLI::App& root,
                         Registry& registry);  // capstone_commands.cc
void AddOrdersCommands(CLI::App& root,
                       Registry& registry);  // orders_commands.cc
void AddHistoryCommands(CLI::App& root,
                        Registry& registry);  // history_command.cc

// The root's own flags (--help-all) and help layout, for every tree built.
void SetUpRoot(CLI::App& root);

// The commands of the family whose top-level command `first_arg` names, or
// of every family when it names none (help, no command, a typo), so that the
// root's help and errors still list them all. CLI11 builds every option of
// every command it is given, which cost more than half the instructions of a
// short run's whole process (`perflab sim mmc` with one customer).
void AddCommandsFor(std::string_view first_arg, CLI::App& root,
                    Registry& registry);

// `models mva`, added under `models` by AddModelsCommands (mva_command.cc).
void AddMvaCommand(CLI::App* models, Registry& registry);

}  // namespace perflab::cli

#endif  // PERFLAB_TOOLS_PERFLAB_COMMANDS_H_
