#include "tools/history/git.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "tests/temp_dir.h"

namespace perflab::history {
namespace {

using ::perflab::testing::TempDir;

// The test's own directory is inside the build tree, itself perhaps inside a
// checkout: only `-C` makes git answer about the repository made here.
TEST(RunGit, RunsInTheRepositoryItIsGiven) {
  TempDir dir("git-test");
  absl::StatusOr<GitOutput> init = RunGit(dir.path(), {"init", "-q"});
  ASSERT_TRUE(init.ok()) << init.status();
  ASSERT_TRUE(init->status.ok()) << init->status.ToString();

  absl::StatusOr<GitOutput> top =
      RunGit(dir.path(), {"rev-parse", "--show-toplevel"});
  ASSERT_TRUE(top.ok()) << top.status();
  EXPECT_TRUE(top->status.ok());
  EXPECT_EQ(top->out, std::filesystem::canonical(dir.path()).string() + "\n");
}

// git's fatal errors exit with 128 (its documented code) and print on
// stderr alone, which is discarded: the caller words the error.
TEST(RunGit, AFailingGitIsItsExitNotAnError) {
  TempDir dir("git-test");
  ASSERT_TRUE(RunGit(dir.path(), {"init", "-q"}).ok());
  absl::StatusOr<GitOutput> log = RunGit(dir.path(), {"log", "-1"});
  ASSERT_TRUE(log.ok()) << log.status();
  EXPECT_EQ(log->status.code, 128);
  EXPECT_EQ(log->out, "");

  absl::StatusOr<GitOutput> missing =
      RunGit(dir.File("no-such-repo"), {"status"});
  ASSERT_TRUE(missing.ok()) << missing.status();
  EXPECT_EQ(missing->status.code, 128);
}

}  // namespace
}  // namespace perflab::history
