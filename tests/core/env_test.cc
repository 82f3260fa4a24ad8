// The Env seam: the fake is driven by hand, the real one reads the process.
#include "core/env.h"

#include <cstdlib>

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
