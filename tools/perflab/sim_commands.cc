#include "tools/perflab/commands.h"

namespace perflab::cli {

// Placeholder: the sim commands arrive with their issue.
void AddSimCommands(CLI::App& /*root*/, Registry& /*registry*/) {}

}  // namespace perflab::cli
