#include "tools/history/git.h"

#include <utility>

namespace perflab::history {

absl::StatusOr<GitOutput> RunGit(const std::string& repo,
                                 const std::vector<std::string>& args) {
  std::vector<std::string> argv = {"git", "-C", repo};
  argv.insert(argv.end(), args.begin(), args.end());
  core::SpawnOptions o;
  o.stdout_to = core::Output::kCapture;
  o.stderr_to = core::Output::kDiscard;
  o.search_path = true;
  absl::StatusOr<core::Subprocess> p = core::Subprocess::Spawn(argv, o);
  if (!p.ok()) return p.status();
  absl::StatusOr<core::ExitStatus> st = p->Wait();
  if (!st.ok()) return st.status();
  return GitOutput{*st, p->output()};
}

}  // namespace perflab::history
