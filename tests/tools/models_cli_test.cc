// `perflab models ...` end to end, in-process: JSON fields scripts rely on,
// and one clear line with exit code 2 for each kind of bad input.
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "rapidjson/document.h"
#include "tests/tools/cli_runner.h"

namespace perflab {
namespace {

using ::perflab::testing::RunCli;
using ::testing::HasSubstr;

using ::perflab::testing::RunCliJson;

TEST(ModelsCli, UslJsonFields) {
  auto d = RunCliJson({"models", "usl", "--sigma", "0.05", "--kappa", "0.002",
                       "--workers", "12,64", "--format", "json"});
  EXPECT_EQ(d["peak_n"].GetInt(), 22);
  EXPECT_NEAR(d["peak_capacity"].GetDouble(), 7.40, 0.005);
  ASSERT_EQ(d["points"].Size(), 2u);
  EXPECT_EQ(d["points"][0]["n"].GetDouble(), 12);
  EXPECT_NEAR(d["points"][0]["capacity"].GetDouble(), 6.62, 0.005);
  EXPECT_NEAR(d["points"][1]["capacity"].GetDouble(), 5.24, 0.005);
}

TEST(ModelsCli, AmdahlJsonFields) {
  auto d = RunCliJson({"models", "amdahl", "--serial", "0.05", "--workers",
                       "16,64", "--format", "json"});
  EXPECT_NEAR(d["limit"].GetDouble(), 20, 1e-9);
  ASSERT_EQ(d["points"].Size(), 2u);
  EXPECT_NEAR(d["points"][0]["speedup"].GetDouble(), 9.1, 0.05);
  EXPECT_NEAR(d["points"][1]["speedup"].GetDouble(), 15.4, 0.05);
}

TEST(ModelsCli, CostJsonFields) {
  auto d = RunCliJson({"models", "cost", "--rps", "86", "--vcpu", "8",
                       "--mem-gib", "1", "--format", "json"});
  EXPECT_NEAR(d["usd_per_hour"].GetDouble(), 0.3245, 1e-12);
  EXPECT_NEAR(d["usd_per_million"].GetDouble(), 1.747, 0.0005);
}

TEST(ModelsCli, MmcJsonFields) {
  auto d =
      RunCliJson({"models", "mmc", "--servers", "8", "--arrival-rate-per-s",
                  "7.2", "--service-rate-per-s", "1", "--format", "json"});
  EXPECT_NEAR(d["p_wait"].GetDouble(), 0.7015, 5e-5);
  EXPECT_NEAR(d["mean_wait_s"].GetDouble(), 0.877, 5e-4);
  EXPECT_NEAR(d["mean_response_s"].GetDouble(), 1.877, 5e-4);
  EXPECT_NEAR(d["utilisation"].GetDouble(), 0.9, 1e-12);
}

TEST(ModelsCli, LittleJsonFields) {
  auto d = RunCliJson({"models", "little", "--rate-per-s", "250", "--w-ms",
                       "60", "--format", "json"});
  EXPECT_NEAR(d["l"].GetDouble(), 15, 1e-9);
  EXPECT_NEAR(d["rate_per_s"].GetDouble(), 250, 1e-9);
  EXPECT_NEAR(d["w_s"].GetDouble(), 0.060, 1e-12);
  EXPECT_EQ(d["pool_with_headroom"].GetInt(), 20);
}

// L given: W = L / rate = 15 / 250 s = 60 ms; the pool with the default
// 30 % headroom is ceil(15 x 1.3) = ceil(19.5) = 20.
TEST(ModelsCli, LittleFromInFlight) {
  auto d = RunCliJson({"models", "little", "--in-flight", "15", "--rate-per-s",
                       "250", "--format", "json"});
  EXPECT_NEAR(d["w_s"].GetDouble(), 0.060, 1e-12);
  EXPECT_EQ(d["pool_minimum"].GetInt(), 15);
  EXPECT_EQ(d["pool_with_headroom"].GetInt(), 20);
}

// The worker counts are --workers, as `sim usl`'s key is: the old one-letter
// name is refused with the names that are accepted.
TEST(ModelsCli, WorkerCountsAreWorkers) {
  testing::ExpectOneLineExit2(
      {"models", "amdahl", "--serial", "0.1", "--n", "4"},
      "unknown option '--n'; accepted: --serial, --workers, --format");
  testing::ExpectOneLineExit2(
      {"models", "usl", "--sigma", "0.1", "--kappa", "0.01", "--n", "4"},
      "unknown option '--n'; accepted: --sigma, --kappa, --workers, --format");
  // N = 4, s = 0.5: 1 / (0.5 + 0.5 / 4) = 1.6, by hand.
  auto d = RunCliJson({"models", "amdahl", "--serial", "0.5", "--workers", "4",
                       "--format", "json"});
  ASSERT_EQ(d["points"].Size(), 1u);
  EXPECT_NEAR(d["points"][0]["speedup"].GetDouble(), 1.6, 1e-12);
}

// With s = 0 there is no limit to print (1/s is no number): the field is
// left out and a note says why; the speed-up is N itself, by hand.
TEST(ModelsCli, AmdahlWithoutASerialPartHasNoLimit) {
  for (const char* s : {"0", "1e-320"}) {
    auto d = RunCliJson({"models", "amdahl", "--serial", s, "--workers", "1,64",
                         "--format", "json"});
    EXPECT_FALSE(d.HasMember("limit")) << s;
    ASSERT_EQ(d["points"].Size(), 2u);
    EXPECT_EQ(d["points"][1]["speedup"].GetDouble(), 64) << s;
  }
}

// Inputs whose results would not be numbers are refused, naming the range:
// stages of 1e308 ms (their total is infinite), a speed-up of 1e-320 (a new
// total of ms / k overflows) and a service cv of 1e200 (its square does).
TEST(ModelsCli, WhatIfAndMg1BoundedSoResultsAreNumbers) {
  testing::ExpectOneLineExit2(
      {"models", "what-if", "--stage", "db=1e308", "--stage", "app=1e308"},
      "accepted: NAME=MS with MS in [0, 1e+09]");
  testing::ExpectOneLineExit2({"models", "what-if", "--speedup", "1e-320"},
                              "--speedup: got '1e-320'; accepted: a number in");
  testing::ExpectOneLineExit2(
      {"models", "mg1", "--arrival-rate-per-s", "0.5", "--mean-service-ms",
       "1000", "--service-cv", "1e200"},
      "--service-cv: got '1e200'; accepted: a number in [0, 100]");
  // At the bounds: M/G/1 with rho 0.5, S 1 s, cv 100: Wq = rho S (1 + cv^2)
  // / (2 (1 - rho)) = 0.5 x 10001 / 1 = 5000.5 s.
  auto d = RunCliJson({"models", "mg1", "--arrival-rate-per-s", "0.5",
                       "--mean-service-ms", "1000", "--service-cv", "100",
                       "--format", "json"});
  EXPECT_NEAR(d["mean_wait_s"].GetDouble(), 5000.5, 1e-9);
  auto w = RunCliJson({"models", "what-if", "--stage", "db=1e9", "--speedup",
                       "1e-9", "--format", "json"});
  EXPECT_EQ(w["total_ms"].GetDouble(), 1e9);
}

// The percentiles asked for are --percentiles; --p is refused. Over 1..200
// the nearest rank of p is ceil(p / 100 x 200): p25 is the 50th value, 50,
// and p99.5 the 199th, 199.
TEST(ModelsCli, PercentilesAskedForArePercentiles) {
  const std::string file = ::testing::TempDir() + "/models_cli_1_to_200.txt";
  {
    std::ofstream f(file);
    for (int i = 1; i <= 200; ++i) f << i << "\n";
  }
  testing::ExpectOneLineExit2(
      {"models", "percentiles", "--input", file, "--p", "50"},
      "unknown option '--p'; accepted: --input, --percentiles, --format");
  auto d = RunCliJson({"models", "percentiles", "--input", file,
                       "--percentiles", "25,99.5", "--format", "json"});
  ASSERT_EQ(d["percentiles"].Size(), 2u);
  EXPECT_EQ(d["percentiles"][0]["value"].GetDouble(), 50);
  EXPECT_EQ(d["percentiles"][1]["value"].GetDouble(), 199);
  std::remove(file.c_str());
}

TEST(ModelsCli, WhatIfDefaultsToTheSeedBreakdown) {
  auto d = RunCliJson({"models", "what-if", "--format", "json"});
  ASSERT_EQ(d["stages"].Size(), 4u);
  EXPECT_STREQ(d["stages"][1]["stage"].GetString(), "db");
  EXPECT_NEAR(d["stages"][1]["speedup"].GetDouble(), 3.72, 0.005);
}

TEST(ModelsCli, UslFitFromPoints) {
  // Points on the exact curve lambda 100, sigma 0.05, kappa 0.002.
  const std::string points =
      "1:100,2:189.7533,4:340.7155,8:547.1956,16:717.4888,"
      "32:705.7786,64:523.9889";
  auto d =
      RunCliJson({"models", "usl-fit", "--point", points, "--format", "json"});
  EXPECT_NEAR(d["sigma"].GetDouble(), 0.05, 1e-3);
  EXPECT_NEAR(d["kappa"].GetDouble(), 0.002, 1e-4);
  EXPECT_NEAR(d["lambda"].GetDouble(), 100, 0.1);
}

TEST(ModelsCli, TourPrintsEveryTable) {
  auto r = RunCli({"models", "tour"});
  ASSERT_EQ(r.code, 0) << r.err;
  for (const char* heading :
       {"USL", "Amdahl", "Little", "Client pool", "Speed one stage up",
        "Cost per million", "Queues", "tail samples"}) {
    EXPECT_THAT(r.out, HasSubstr(heading));
  }
  auto d = RunCliJson({"models", "tour", "--format", "json"});
  EXPECT_EQ(d["usl_peak_n"].GetInt(), 22);
  ASSERT_EQ(d["cost"].Size(), 10u);
  EXPECT_NEAR(d["cost"][9]["usd_per_million"].GetDouble(), 0.013, 0.0005);
}

struct BadInput {
  const char* name;  // the test's parameter name: letters, digits, '_'
  std::vector<std::string> args;
  std::string mentions;  // the flag or value the message must name
};

class ModelsCliBadInput : public ::testing::TestWithParam<BadInput> {};

TEST_P(ModelsCliBadInput, OneLineExitTwoNothingOnStdout) {
  perflab::testing::ExpectOneLineExit2(GetParam().args, GetParam().mentions);
}

INSTANTIATE_TEST_SUITE_P(
    Cases, ModelsCliBadInput,
    ::testing::Values(
        BadInput{"UnknownSubcommand",
                 {"models", "nope"},
                 "unknown subcommand 'nope'"},
        BadInput{"MissingSubcommand",
                 {"models"},
                 "missing subcommand; accepted: little"},
        BadInput{
            "MissingFlag", {"models", "usl", "--kappa", "0.002"}, "--sigma"},
        BadInput{
            "Negative",
            {"models", "cost", "--rps", "-5", "--vcpu", "8", "--mem-gib", "1"},
            "-5"},
        BadInput{
            "ZeroWherePositive",
            {"models", "cost", "--rps", "0", "--vcpu", "8", "--mem-gib", "1"},
            "--rps"},
        BadInput{"NaN",
                 {"models", "mmc", "--servers", "2", "--arrival-rate-per-s",
                  "nan", "--service-rate-per-s", "1"},
                 "nan"},
        BadInput{"UnknownFlag",
                 {"models", "amdahl", "--serial", "0.1", "--bogus", "1"},
                 "--bogus"},
        BadInput{"Unstable",  // rho >= 1
                 {"models", "mmc", "--servers", "2", "--arrival-rate-per-s",
                  "5", "--service-rate-per-s", "1"},
                 "unstable"},
        BadInput{"BadFormat",
                 {"models", "usl", "--sigma", "0.05", "--kappa", "0.002",
                  "--format", "xml"},
                 "xml"},
        BadInput{"LittleNeedsTwoOfThree",
                 {"models", "little", "--rate-per-s", "250"},
                 "two of"},
        BadInput{"MissingInputFile",
                 {"models", "percentiles", "--input", "/nonexistent/x"},
                 "/nonexistent/x"},
        BadInput{
            "BadStage", {"models", "what-if", "--stage", "db=abc"}, "db=abc"}),
    [](const ::testing::TestParamInfo<BadInput>& info) {
      return std::string(info.param.name);
    });

}  // namespace
}  // namespace perflab
