// git, run the one way the history tools need it: `git -C REPO ARGS...`
// without a shell, its standard output kept, its errors discarded (a caller
// says in its own words what a failure means for the user's input).
// Thread-compatible: each call is its own child process.
#ifndef PERFLAB_TOOLS_HISTORY_GIT_H_
#define PERFLAB_TOOLS_HISTORY_GIT_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/subprocess.h"

namespace perflab::history {

struct GitOutput {
  core::ExitStatus status;  // how git ended
  std::string out;          // all it printed on standard output
};

// An error only when git cannot be started or waited for (not found on
// PATH: NotFound); git exiting non-zero is a GitOutput whose status says so.
absl::StatusOr<GitOutput> RunGit(const std::string& repo,
                                 const std::vector<std::string>& args);

}  // namespace perflab::history

#endif  // PERFLAB_TOOLS_HISTORY_GIT_H_
