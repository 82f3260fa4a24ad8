#include "tools/capstone/wrk_script.h"

#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/atomic_file.h"
#include "core/interrupt.h"

namespace perflab::capstone {

std::string WrkScriptText(int64_t customers, uint64_t seed) {
  return absl::StrCat(
      "math.randomseed(", seed, ")\n", "request = function()\n",
      "  local id = 1 + math.floor(", customers, " * math.random() ^ 3)\n",
      "  return wrk.format(\"GET\", \"/customers/\" .. id .. \"/orders\")\n",
      "end\n");
}

absl::StatusOr<WrkScript> WrkScript::Create(int64_t customers, uint64_t seed,
                                            const core::Env& env) {
  const std::string base = env.GetVar("TMPDIR").value_or("/tmp");
  absl::StatusOr<std::string> made =
      core::MakeTempDir(absl::StrCat(base, "/perflab-real-"));
  if (!made.ok()) {
    return absl::Status(made.status().code(),
                        absl::StrCat("capstone --real: for the wrk script: ",
                                     made.status().message()));
  }
  std::string dir = *std::move(made);
  std::string path = absl::StrCat(dir, "/paths.lua");
  WrkScript script(std::move(dir), std::move(path));
  if (absl::Status s =
          core::WriteFileAtomic(script.path(), WrkScriptText(customers, seed));
      !s.ok()) {
    return s;  // `script` removes the directory on the way out
  }
  return script;
}

WrkScript::WrkScript(std::string dir, std::string path)
    : dir_(std::move(dir)), path_(std::move(path)) {}

WrkScript::WrkScript(WrkScript&& other) noexcept
    : dir_(std::exchange(other.dir_, "")),
      path_(std::exchange(other.path_, "")) {}

WrkScript& WrkScript::operator=(WrkScript&& other) noexcept {
  if (this != &other) {
    Remove();
    dir_ = std::exchange(other.dir_, "");
    path_ = std::exchange(other.path_, "");
  }
  return *this;
}

WrkScript::~WrkScript() { Remove(); }

void WrkScript::Remove() {
  if (dir_.empty()) return;
  // Best effort: a leftover in a private directory harms nobody, and a
  // destructor has no one to tell.
  core::RemoveTempPath(dir_);
  dir_.clear();
  path_.clear();
}

}  // namespace perflab::capstone
