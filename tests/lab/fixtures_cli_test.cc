// `perflab fixtures build`, run in-process through the CLI.
#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include "bench/lab/dataset.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/lab/test_db.h"
#include "tools/perflab/cli.h"

namespace perflab::lab {
namespace {

using ::testing::HasSubstr;

struct CliRun {
  int code;
  std::string out, err;
};

CliRun Perflab(std::vector<std::string> args) {
  args.insert(args.begin(), "perflab");
  std::vector<const char*> argv;
  argv.reserve(args.size());
  for (const std::string& a : args) argv.push_back(a.c_str());
  std::ostringstream out, err;
  int code = cli::Main(static_cast<int>(argv.size()), argv.data(), out, err);
  return {code, out.str(), err.str()};
}

TEST(FixturesCliTest, BuildsTheDatabaseAndReportsRowsAndTime) {
  std::string path = testing::TempPath("cli.sqlite");
  CliRun r = Perflab({"fixtures", "build", "--scale", "0.01", "--out", path,
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
  CliRun r = Perflab({"fixtures", "build", "--scale", "0.01", "--out", path,
                      "--no-customer-index"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(
      CheckDataset(path, {.scale = 0.01, .customer_index = false}).ok());
}

TEST(FixturesCliTest, BadScaleIsOneLineOnStderrAndExitTwo) {
  for (const char* bad : {"0", "-1", "11", "nan", "abc"}) {
    CliRun r = Perflab({"fixtures", "build", "--scale", bad, "--out",
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
    CliRun r = Perflab({"fixtures", "build", "--scale", "0.01", "--out", bad});
    EXPECT_EQ(r.code, 2) << bad;
    EXPECT_EQ(r.out, "");
    EXPECT_THAT(r.err, HasSubstr("--out: got '" + bad + "'"));
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
}

}  // namespace
}  // namespace perflab::lab
