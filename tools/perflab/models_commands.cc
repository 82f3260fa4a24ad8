#include "tools/perflab/commands.h"

namespace perflab::cli {

void AddModelsCommands(CLI::App& /*root*/, Registry& /*registry*/) {}

}  // namespace perflab::cli
