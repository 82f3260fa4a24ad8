#include "tools/perflab/commands.h"

namespace perflab::cli {

// Placeholder: the fixtures commands arrive with their issue.
void AddFixturesCommands(CLI::App& /*root*/, Registry& /*registry*/) {}

}  // namespace perflab::cli
