// tools/compare/gbench_json.h: Google Benchmark JSON to samples, on files
// written by hand (repetitions, aggregates, errors, counters, bad input).
#include "tools/compare/gbench_json.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace perflab::compare {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// Two repetitions of BM_A/8, their aggregates, a failed BM_Err, one of BM_B,
// and a later run of BM_A/8 merged into the same file.
constexpr char kFile[] = R"({
  "context": {"num_cpus": 2},
  "benchmarks": [
    {"name": "BM_A/8/repeats:2", "run_name": "BM_A/8", "run_type": "iteration",
     "real_time": 10.5, "cpu_time": 10.0, "time_unit": "ns", "items_per_second": 95},
    {"name": "BM_A/8/repeats:2", "run_name": "BM_A/8", "run_type": "iteration",
     "real_time": 11.5, "cpu_time": 11.0, "time_unit": "ns", "items_per_second": 87},
    {"name": "BM_A/8/repeats:2_mean", "run_name": "BM_A/8", "run_type": "aggregate",
     "aggregate_name": "mean", "real_time": 11, "cpu_time": 10.5, "time_unit": "ns"},
    {"name": "BM_A/8/repeats:2_cv", "run_name": "BM_A/8", "run_type": "aggregate",
     "aggregate_name": "cv", "real_time": NaN, "cpu_time": NaN, "time_unit": "ns"},
    {"name": "BM_Err", "run_name": "BM_Err", "run_type": "iteration",
     "error_occurred": true, "error_message": "no dataset"},
    {"name": "BM_B", "run_type": "iteration", "real_time": 3, "cpu_time": 2,
     "time_unit": "us", "items_per_second": 7},
    {"name": "BM_A/8/repeats:2", "run_name": "BM_A/8", "run_type": "iteration",
     "real_time": 12.5, "cpu_time": 12.0, "time_unit": "ns", "items_per_second": 80}
  ]
})";

TEST(ParseGbenchJson, KeepsRepetitionsInFileOrderAndSkipsTheRest) {
  auto s = ParseGbenchJson(kFile, "real_time");
  ASSERT_TRUE(s.ok()) << s.status();
  ASSERT_EQ(s->size(), 2u);
  EXPECT_EQ((*s)[0].name, "BM_A/8");
  EXPECT_EQ((*s)[0].unit, "ns");
  EXPECT_THAT((*s)[0].values, ElementsAre(10.5, 11.5, 12.5));
  EXPECT_EQ((*s)[1].name, "BM_B");  // no run_name: its name
  EXPECT_EQ((*s)[1].unit, "us");
  EXPECT_THAT((*s)[1].values, ElementsAre(3));
}

TEST(ParseGbenchJson, CpuTimeAndACounterWithoutUnit) {
  auto cpu = ParseGbenchJson(kFile, "cpu_time");
  ASSERT_TRUE(cpu.ok()) << cpu.status();
  EXPECT_THAT((*cpu)[0].values, ElementsAre(10.0, 11.0, 12.0));
  auto rate = ParseGbenchJson(kFile, "items_per_second");
  ASSERT_TRUE(rate.ok()) << rate.status();
  EXPECT_EQ((*rate)[0].unit, "");
  EXPECT_THAT((*rate)[0].values, ElementsAre(95, 87, 80));
  EXPECT_THAT((*rate)[1].values, ElementsAre(7));
}

absl::Status Error(const std::string& text,
                   const std::string& metric = "real_time") {
  return ParseGbenchJson(text, metric).status();
}

TEST(ParseGbenchJson, BadInputIsOneLineNamingWhere) {
  EXPECT_THAT(Error("{\"benchmarks\": [").message(), HasSubstr("not JSON"));
  EXPECT_THAT(Error("[1, 2]").message(),
              HasSubstr("no top-level \"benchmarks\" array"));
  EXPECT_THAT(Error(R"({"benchmarks": []})").message(),
              HasSubstr("no benchmark repetitions"));
  EXPECT_THAT(Error(R"({"benchmarks": [7]})").message(),
              HasSubstr("benchmarks[0] is not an object"));
  EXPECT_THAT(Error(R"({"benchmarks": [{"real_time": 1, "time_unit": "ns"}]})")
                  .message(),
              HasSubstr("benchmarks[0] has no string \"name\""));
  EXPECT_THAT(Error(kFile, "bytes_per_second").message(),
              HasSubstr("benchmarks[0] (BM_A/8) has no finite number "
                        "\"bytes_per_second\""));
  EXPECT_THAT(
      Error(
          R"({"benchmarks": [{"name": "X", "real_time": -1, "time_unit": "ns"}]})")
          .message(),
      HasSubstr("has real_time -1; accepted: a time >= 0"));
  EXPECT_THAT(
      Error(R"({"benchmarks": [{"name": "X", "real_time": 1}]})").message(),
      HasSubstr("benchmarks[0] (X) has no \"time_unit\""));
  EXPECT_THAT(Error(R"({"benchmarks": [
      {"name": "X", "real_time": 1, "time_unit": "ns"},
      {"name": "X", "real_time": 1, "time_unit": "ms"}]})")
                  .message(),
              HasSubstr("benchmarks[1] (X) is in time_unit 'ms' but earlier "
                        "rows are in 'ns'"));
  EXPECT_EQ(Error("[]").code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace perflab::compare
