// The Env seam: the fake is driven by hand, the real one reads the process.
#include "core/env.h"

#include <cstdlib>
#include <optional>
#include <string>

#include "gtest/gtest.h"

namespace perflab::core {
namespace {

TEST(FakeEnv, ClockMovesOnlyWhenAdvanced) {
  FakeEnv env;
  EXPECT_EQ(env.NowNanos(), 0);
  env.AdvanceNanos(1500);
  env.AdvanceNanos(500);
  EXPECT_EQ(env.NowNanos(), 2000);
}

TEST(FakeEnv, VariablesAreItsOwnAndEmptyMeansUnset) {
  FakeEnv env;
  EXPECT_FALSE(env.GetVar("PERFLAB_X").has_value());
  env.SetVar("PERFLAB_X", "/tmp/data");
  EXPECT_EQ(env.GetVar("PERFLAB_X").value_or(""), "/tmp/data");
  env.SetVar("PERFLAB_X", "");
  EXPECT_FALSE(env.GetVar("PERFLAB_X").has_value());
}

TEST(FakeEnv, FilesAndBinaryPathAreOnlyWhatWasSet) {
  FakeEnv env;
  EXPECT_FALSE(env.ExecutablePath().has_value());
  EXPECT_FALSE(env.FileExists("/a/b"));
  EXPECT_FALSE(env.ReadFile("/a/b").has_value());
  env.SetExecutablePath("/opt/bin/perflab");
  env.SetFile("/a/b", "");
  EXPECT_EQ(env.ExecutablePath().value_or(""), "/opt/bin/perflab");
  EXPECT_TRUE(env.FileExists("/a/b"));
  EXPECT_EQ(env.ReadFile("/a/b").value_or("unread"), "");
  EXPECT_FALSE(env.FileExists("/a"));
}

TEST(DefaultEnv, ReadsThisBinaryAndItsFiles) {
  const std::optional<std::string> exe = Env::Default().ExecutablePath();
  ASSERT_TRUE(exe.has_value());
  EXPECT_TRUE(exe->ends_with("/core_test")) << *exe;
  EXPECT_TRUE(Env::Default().FileExists(*exe));
  EXPECT_FALSE(Env::Default().FileExists(*exe + ".absent"));
  EXPECT_FALSE(Env::Default().ReadFile(*exe + ".absent").has_value());
  // The binary's own first bytes: the ELF magic.
  EXPECT_EQ(Env::Default().ReadFile(*exe).value_or("").substr(0, 4),
            std::string("\x7f") + "ELF");
}

TEST(DefaultEnv, ReadsTheProcessAndItsClockNeverGoesBack) {
  ::setenv("PERFLAB_ENV_TEST_VAR", "42", 1);
  EXPECT_EQ(Env::Default().GetVar("PERFLAB_ENV_TEST_VAR").value_or(""), "42");
  ::unsetenv("PERFLAB_ENV_TEST_VAR");
  EXPECT_FALSE(Env::Default().GetVar("PERFLAB_ENV_TEST_VAR").has_value());
  const int64_t a = Env::Default().NowNanos();
  const int64_t b = Env::Default().NowNanos();
  EXPECT_GE(b, a);
}

}  // namespace
}  // namespace perflab::core
