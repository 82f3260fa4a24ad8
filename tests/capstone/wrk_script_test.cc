// The wrk script: its text, written by hand, and its private directory:
// fresh per script, mode 0700, under TMPDIR, gone with its owner.
#include "tools/capstone/wrk_script.h"

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <system_error>
#include <utility>

#include "absl/strings/match.h"
#include "core/env.h"
#include "gtest/gtest.h"
#include "tests/file_text.h"
#include "tests/temp_dir.h"

namespace perflab::capstone {
namespace {

namespace fs = std::filesystem;

using ::perflab::testing::FileText;

// A fresh, empty TMPDIR of the test's own, set in `env`, so the test sees only
// its scripts; removed with the object. ctest runs each test as a process of
// its own, side by side, so a fixed name would be emptied by one test under
// another's feet.
class OwnTmpdir {
 public:
  explicit OwnTmpdir(core::FakeEnv& env) { env.SetVar("TMPDIR", dir_.path()); }
  const std::string& dir() const { return dir_.path(); }

 private:
  const perflab::testing::TempDir dir_{"wrk_script_test"};
};

TEST(WrkScript, TextAsksForSkewedCustomerPagesWithTheSeed) {
  EXPECT_EQ(WrkScriptText(1000, 7),
            "math.randomseed(7)\n"
            "request = function()\n"
            "  local id = 1 + math.floor(1000 * math.random() ^ 3)\n"
            "  return wrk.format(\"GET\", \"/customers/\" .. id .. "
            "\"/orders\")\n"
            "end\n");
}

TEST(WrkScript, LivesInAFreshPrivateDirectoryThatGoesWithItsOwner) {
  core::FakeEnv env;
  const OwnTmpdir own(env);
  const std::string& tmp = own.dir();
  std::string dir, path;
  {
    absl::StatusOr<WrkScript> script = WrkScript::Create(5000, 42, env);
    ASSERT_TRUE(script.ok()) << script.status();
    dir = script->dir();
    path = script->path();
    EXPECT_EQ(fs::path(path).parent_path(), fs::path(dir));
    EXPECT_EQ(fs::path(dir).parent_path(), fs::path(tmp));
    EXPECT_TRUE(
        absl::StartsWith(fs::path(dir).filename().string(), "perflab-real-"))
        << dir;
    struct stat st {};
    ASSERT_EQ(::lstat(dir.c_str(), &st), 0);
    EXPECT_TRUE(S_ISDIR(st.st_mode));
    EXPECT_EQ(st.st_mode & 07777, 0700u);
    EXPECT_EQ(st.st_uid, ::geteuid());
    EXPECT_EQ(FileText(path), WrkScriptText(5000, 42));
    // Only the script: the atomic write left no temporary file behind.
    EXPECT_EQ(std::distance(fs::directory_iterator(dir), {}), 1);

    // A second script gets a directory of its own.
    absl::StatusOr<WrkScript> other = WrkScript::Create(5000, 42, env);
    ASSERT_TRUE(other.ok()) << other.status();
    EXPECT_NE(other->dir(), dir);
  }
  EXPECT_FALSE(fs::exists(path));
  EXPECT_FALSE(fs::exists(dir));
  EXPECT_TRUE(fs::is_empty(tmp));
}

TEST(WrkScript, AMovedScriptIsRemovedOnceByItsNewOwner) {
  core::FakeEnv env;
  const OwnTmpdir own(env);
  absl::StatusOr<WrkScript> script = WrkScript::Create(10, 1, env);
  ASSERT_TRUE(script.ok()) << script.status();
  const std::string dir = script->dir();
  std::optional<WrkScript> owner(std::move(*script));
  script = absl::InternalError("moved");  // destroys the moved-from one
  EXPECT_TRUE(fs::exists(dir));
  owner.reset();
  EXPECT_FALSE(fs::exists(dir));
}

TEST(WrkScript, AnUnusableTmpdirIsAnErrorNamingIt) {
  core::FakeEnv env;
  env.SetVar("TMPDIR", "/nonexistent/perflab-tmp");
  absl::StatusOr<WrkScript> script = WrkScript::Create(10, 1, env);
  ASSERT_FALSE(script.ok());
  EXPECT_TRUE(absl::StrContains(script.status().message(),
                                "/nonexistent/perflab-tmp/perflab-real-"))
      << script.status();
}

}  // namespace
}  // namespace perflab::capstone
