// `perflab models mva` end to end, in-process: the JSON fields scripts rely
// on, with values worked by hand, and one line with exit code 2 and nothing
// on stdout for each kind of bad input.
#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "rapidjson/document.h"
#include "tests/tools/cli_runner.h"

namespace perflab {
namespace {

using ::perflab::testing::RunCli;
using ::testing::HasSubstr;

using ::perflab::testing::RunCliJson;

TEST(MvaCommand, SingleClassRowsByHand) {
  // cpu 10 ms, disk 4 ms x 5 visits = 20 ms, no think time. N = 1: R = 30
  // ms, X = 1 / 0.03 s. N = 2: R_cpu = 10 (1 + 1/3), R_disk = 20 (1 + 2/3),
  // so R = 46.667 ms and X = 2 / 0.046667 s = 42.857 /s.
  auto d = RunCliJson({"models", "mva", "--station", "cpu:demand_ms=10",
                       "--station", "disk:demand_ms=4,visits=5", "--clients",
                       "1..2", "--format", "json"});
  EXPECT_STREQ(d["bottleneck"].GetString(), "disk");
  EXPECT_DOUBLE_EQ(d["knee_clients"].GetDouble(), 1.5);
  ASSERT_EQ(d["clients"].Size(), 2u);
  const auto& n1 = d["clients"][0];
  EXPECT_NEAR(n1["response_ms"].GetDouble(), 30, 1e-9);
  EXPECT_NEAR(n1["throughput_per_s"].GetDouble(), 1 / 0.03, 1e-9);
  const auto& n2 = d["clients"][1];
  EXPECT_NEAR(n2["response_ms"].GetDouble(), 140.0 / 3, 1e-9);
  EXPECT_NEAR(n2["throughput_per_s"].GetDouble(), 2 / (0.14 / 3), 1e-9);
  EXPECT_NEAR(n2["disk_utilisation"].GetDouble(), 2 / (0.14 / 3) * 0.02, 1e-9);
  EXPECT_NEAR(n2["throughput_bound_per_s"].GetDouble(), 50, 1e-9);
}

TEST(MvaCommand, DelayStationsHaveNoUtilisationColumn) {
  auto d =
      RunCliJson({"models", "mva", "--station", "cpu:demand_ms=10,servers=4",
                  "--station", "lan:demand_ms=5,kind=delay", "--think-ms",
                  "1000", "--clients", "3", "--format", "json"});
  const auto& row = d["clients"][0];
  EXPECT_TRUE(row.HasMember("cpu_utilisation"));
  EXPECT_FALSE(row.HasMember("lan_utilisation"));
  EXPECT_TRUE(row.HasMember("lan_queue"));
}

TEST(MvaCommand, TwoClassesOfOneClientEach) {
  // One client per class, one station: a class-a arrival finds the b client
  // there with probability Q_b(0, 1) = D_b / (D_b + Z_b) = 0.2 / 1.2.
  auto d = RunCliJson({"models", "mva", "--class", "a:clients=1,think_ms=1000",
                       "--class", "b:clients=1,think_ms=1000", "--station",
                       "cpu:demand_ms=100/200", "--format", "json"});
  ASSERT_EQ(d["classes"].Size(), 2u);
  // Exact MVA at (1, 1): R_a = 0.1 (1 + 0.2 / 1.2) = 0.11667 s and R_b =
  // 0.2 (1 + 0.1 / 1.1) = 0.21818 s.
  EXPECT_NEAR(d["classes"][0]["response_ms"].GetDouble(), 100 * 1.4 / 1.2,
              1e-9);
  EXPECT_NEAR(d["classes"][1]["response_ms"].GetDouble(), 200 * 1.2 / 1.1,
              1e-9);
}

// A subnormal demand made the throughput N / D infinite (nan and inf in the
// table): a nonzero demand lies in [1 ps, 1e9 s]. 1e-9 ms is 1e-12 s, the
// smallest taken: 3 clients without think time keep its one server busy,
// R = N D = 3e-12 s and X = N / R = 1 / D = 1e12 req/s.
TEST(MvaCommand, DemandsThatGiveNoNumberAreRefused) {
  for (const char* d : {"1e-320", "1e-10", "1e300"}) {
    testing::ExpectOneLineExit2(
        {"models", "mva", "--station", absl::StrCat("cpu:demand_ms=", d),
         "--clients", "3"},
        "s; accepted: 0 or a number in [1e-12, 1e+09] s");
  }
  auto j = RunCliJson({"models", "mva", "--station", "cpu:demand_ms=1e-9",
                       "--clients", "3", "--format", "json"});
  EXPECT_NEAR(j["clients"][0]["throughput_per_s"].GetDouble(), 1e12, 1e-3);
}

TEST(MvaCommand, BadInputIsOneLineExitTwoNothingOnStdout) {
  struct Case {
    std::vector<std::string> args;
    std::string says;
  };
  const std::vector<Case> cases = {
      {{"--station", "cpu:demand_ms=-1"}, "finite number >= 0"},
      {{"--station", "cpu:demand_ms=nan"}, "finite number >= 0"},
      {{"--station", "cpu:demand_ms=inf"}, "finite number >= 0"},
      {{"--station", "cpu:demand_ms=1,servers=0"},
       "whole number in 1..1000000"},
      // Servers size memory: 2^31 - 1 of them aborted with bad_alloc.
      {{"--station", "cpu:demand_ms=10,servers=2147483647"},
       "whole number in 1..1000000"},
      {{"--station", "cpu:demand_ms=1", "--station", "cpu:demand_ms=2"},
       "'cpu' is named twice"},
      {{"--station", "cpu:demand_ms=1", "--clients", "1..1000000", "--solver",
        "schweitzer"},
       "at most 100000 rows"},
      {{"--station", "cpu:demand_ms=1", "--clients", "2000000000"},
       "B <= 1000000000"},
      {{"--class", "a:clients=2000000000", "--station", "cpu:demand_ms=1"},
       "0..1000000000"},
      {{"--station", "cpu:demand_ms=1,kind=gpu"}, "unknown kind 'gpu'"},
      {{"--station", "cpu"}, "no demand_ms"},
      {{"--station", "cpu:demand_ms=1", "--clients", "0"}, "1 <= A <= B"},
      {{"--station", "cpu:demand_ms=1", "--think-ms", "-1"}, ">= 0"},
      {{"--class", "a:clients=200", "--class", "b:clients=200", "--class",
        "c:clients=200", "--station", "cpu:demand_ms=1/2/3"},
       "--solver schweitzer"},
  };
  for (const Case& c : cases) {
    std::vector<std::string> args = {"models", "mva"};
    args.insert(args.end(), c.args.begin(), c.args.end());
    auto r = RunCli(args);
    SCOPED_TRACE(c.args.back());
    EXPECT_EQ(r.code, 2);
    EXPECT_EQ(r.out, "");
    EXPECT_THAT(r.err, HasSubstr(c.says));
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1);
  }
  // The limit is named, and the approximate solver takes the same input.
  auto r = RunCli({"models", "mva", "--class", "a:clients=200", "--class",
                   "b:clients=200", "--class", "c:clients=200", "--station",
                   "cpu:demand_ms=1/2/3"});
  EXPECT_THAT(r.err, HasSubstr("1000000"));
  auto ok = RunCli({"models", "mva", "--class", "a:clients=200", "--class",
                    "b:clients=200", "--class", "c:clients=200", "--station",
                    "cpu:demand_ms=1/2/3", "--solver", "schweitzer"});
  EXPECT_EQ(ok.code, 0) << ok.err;
}

}  // namespace
}  // namespace perflab
