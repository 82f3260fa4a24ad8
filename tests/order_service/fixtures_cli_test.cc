// `perflab fixtures build`, run in-process through the CLI.
#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "bench/order_service/dataset.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/order_service/test_db.h"
#include "tests/tools/cli_runner.h"

namespace perflab::orders {
namespace {

using ::testing::HasSubstr;

using ::perflab::testing::CliResult;
using ::perflab::testing::RunCli;

TEST(FixturesCliTest, BuildsTheDatabaseAndReportsRowsAndTime) {
  std::string path = testing::TempPath("cli.sqlite");
  CliResult r = RunCli({"fixtures", "build", "--scale", "0.01", "--out", path,
                        "--format", "json"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_THAT(r.out, HasSubstr("\"generation_s\":"));
  EXPECT_THAT(r.out, HasSubstr("{\"table\":\"orders\",\"rows\":2000}"));
  EXPECT_THAT(r.out, HasSubstr("{\"table\":\"order_items\",\"rows\":6000}"));
  EXPECT_TRUE(CheckDataset(path, {.scale = 0.01}).ok());
}

TEST(FixturesCliTest, WithoutCustomerIndex) {
  std::string path = testing::TempPath("cli_noindex.sqlite");
  CliResult r = RunCli({"fixtures", "build", "--scale", "0.01", "--out", path,
                        "--no-customer-index"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(
      CheckDataset(path, {.scale = 0.01, .customer_index = false}).ok());
}

TEST(FixturesCliTest, BadScaleIsOneLineOnStderrAndExitTwo) {
  for (const char* bad : {"0", "-1", "11", "nan", "abc"}) {
    CliResult r = RunCli({"fixtures", "build", "--scale", bad, "--out",
                          testing::TempPath("never.sqlite")});
    EXPECT_EQ(r.code, 2) << bad;
    EXPECT_EQ(r.out, "") << bad;
    EXPECT_THAT(r.err, HasSubstr("--scale")) << bad;
    EXPECT_THAT(r.err, HasSubstr(bad)) << bad;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
}

TEST(FixturesCliTest, UnwritableOutputIsAnErrorNotAHalfFile) {
  for (const std::string& bad :
       {std::string("/proc/perflab/no/such/dir/x.sqlite"),
        ::testing::TempDir()}) {
    CliResult r =
        RunCli({"fixtures", "build", "--scale", "0.01", "--out", bad});
    EXPECT_EQ(r.code, 2) << bad;
    EXPECT_EQ(r.out, "");
    EXPECT_THAT(r.err, HasSubstr("--out: got '" + bad + "'"));
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
}

// "-" is not a file name here (a database cannot go to stdout): refused, and
// no file called "-" (or "-.tmp.*") appears in the working directory.
TEST(FixturesCliTest, DashIsNoOutputFile) {
  const std::filesystem::path cwd = std::filesystem::current_path();
  const std::string dir = testing::TempPath("dash_dir");
  std::filesystem::create_directories(dir);
  std::filesystem::current_path(dir);
  CliResult r = RunCli({"fixtures", "build", "--scale", "0.01", "--out", "-"});
  const bool empty = std::filesystem::is_empty(".");
  std::filesystem::current_path(cwd);
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_THAT(r.err, HasSubstr("--out: got '-'"));
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_TRUE(empty);
}

}  // namespace
}  // namespace perflab::orders
