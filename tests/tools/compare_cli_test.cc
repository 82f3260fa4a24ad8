// `perflab compare` end to end, in-process, on synthetic Google Benchmark
// files whose answer is known by construction (a 10 % slowdown, identical
// samples), on perflab results, and on each kind of bad input.
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "rapidjson/document.h"
#include "tests/tools/cli_runner.h"

namespace perflab {
namespace {

using ::perflab::testing::RunCli;
using ::testing::HasSubstr;

// Nine repetitions around 100 with a little spread, none equal.
const std::vector<double> kBase = {100.0, 100.5, 99.5,  101.0, 99.0,
                                   100.2, 99.8,  100.7, 99.3};

struct Bench {
  std::string name;
  std::vector<double> times;
  std::string unit = "ns";
};

std::string GbenchJson(const std::vector<Bench>& benches) {
  std::vector<std::string> rows;
  for (const Bench& b : benches) {
    for (size_t i = 0; i < b.times.size(); ++i) {
      rows.push_back(absl::StrCat(
          R"({"name":")", b.name, R"(","run_name":")", b.name,
          R"(","run_type":"iteration","repetitions":)", b.times.size(),
          R"(,"repetition_index":)", i,
          R"(,"threads":1,"iterations":1000,"real_time":)", b.times[i],
          R"(,"cpu_time":)", b.times[i] * 0.9, R"(,"time_unit":")", b.unit,
          R"(","items_per_second":)", 1e9 / b.times[i], "}"));
    }
    // An aggregate row, which the reader must ignore.
    rows.push_back(absl::StrCat(
        R"({"name":")", b.name, R"(_median","run_name":")", b.name,
        R"(","run_type":"aggregate","aggregate_name":"median","real_time":1,"cpu_time":1,)"
        // Google Benchmark writes NaN for the cv of a constant counter.
        R"("fullscan_steps":NaN,"time_unit":")",
        b.unit, R"("})"));
  }
  return absl::StrCat(R"({"context":{"date":"x","num_cpus":2},"benchmarks":[)",
                      absl::StrJoin(rows, ","), "]}");
}

// Files written by Write(), removed when the test program ends.
std::vector<std::string>& Written() {
  static auto* paths = new std::vector<std::string>;
  return *paths;
}
class RemoveWritten : public ::testing::Environment {
 public:
  void TearDown() override {
    for (const std::string& p : Written()) std::remove(p.c_str());
  }
};
const auto* const kRemoveWritten =
    ::testing::AddGlobalTestEnvironment(new RemoveWritten);

std::string Write(const std::string& name, const std::string& text) {
  // The pid keeps concurrent runs (other checkouts, ctest -j) apart.
  std::string path =
      absl::StrCat(::testing::TempDir(), "/compare_", getpid(), "_", name);
  std::ofstream(path, std::ios::binary) << text;
  Written().push_back(path);
  return path;
}

std::vector<double> Scaled(const std::vector<double>& v, double f) {
  std::vector<double> out;
  out.reserve(v.size());
  for (double x : v) out.push_back(x * f);
  return out;
}

rapidjson::Document Parse(const std::string& text) {
  rapidjson::Document d;
  d.Parse(text.c_str());
  EXPECT_FALSE(d.HasParseError()) << text;
  return d;
}

// A negative time is no measurement: refused in one line naming the row,
// for both time metrics, never taken into the comparison. A FIFO or device
// given as a file is refused at once, naming the cap.
TEST(CompareCli, NegativeTimesAndNonFilesAreRefused) {
  std::vector<double> times = kBase;
  times[4] = -99;
  const std::string base = Write("base_ok.json", GbenchJson({{"BM_A", kBase}}));
  const std::string bad = Write("negative.json", GbenchJson({{"BM_A", times}}));
  for (const char* metric : {"real_time", "cpu_time"}) {
    auto r = RunCli({"compare", base, bad, "--metric", metric});
    EXPECT_EQ(r.code, 2) << r.err;
    EXPECT_EQ(r.out, "");
    EXPECT_NE(r.err.find("benchmarks[4] (BM_A) has"), std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find("accepted: a time >= 0"), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << r.err;
  }
  auto dev = RunCli({"compare", "/dev/zero", base});
  EXPECT_EQ(dev.code, 2);
  EXPECT_NE(dev.err.find("'/dev/zero': a device; accepted: a regular file of "
                         "at most 64 MiB"),
            std::string::npos)
      << dev.err;
}

TEST(CompareCli, TenPercentSlowdownAtNineRepetitionsIsSlower) {
  std::string base = Write("slow_base.json", GbenchJson({{"BM_A", kBase}}));
  std::string cont =
      Write("slow_cont.json", GbenchJson({{"BM_A", Scaled(kBase, 1.10)}}));
  auto r = RunCli({"compare", base, cont, "--format", "json"});
  EXPECT_EQ(r.code, 1) << r.err;  // something slower: CI fails
  auto d = Parse(r.out);
  ASSERT_EQ(d["benchmarks"].Size(), 1u);
  const auto& row = d["benchmarks"][0];
  EXPECT_STREQ(row["verdict"].GetString(), "slower");
  EXPECT_NEAR(row["base_median"].GetDouble(), 100.0, 1e-9);  // 5th of 9
  EXPECT_NEAR(row["contender_median"].GetDouble(), 110.0, 1e-9);
  EXPECT_NEAR(row["change_pct"].GetDouble(), 10.0, 1e-9);
  // Complete separation of 9 vs 9: p = 2 / C(18, 9).
  EXPECT_NEAR(row["p_value"].GetDouble(), 2.0 / 48620, 1e-12);
  EXPECT_NEAR(d["geomean_ratio"].GetDouble(), 1.10, 1e-12);
}

TEST(CompareCli, IdenticalDistributionsAreSame) {
  std::string base = Write("same_base.json", GbenchJson({{"BM_A", kBase}}));
  auto r = RunCli({"compare", base, base, "--format", "json"});
  EXPECT_EQ(r.code, 0) << r.err;
  auto d = Parse(r.out);
  EXPECT_STREQ(d["benchmarks"][0]["verdict"].GetString(), "same");
  EXPECT_EQ(d["benchmarks"][0]["p_value"].GetDouble(), 1.0);
  EXPECT_EQ(d["geomean_ratio"].GetDouble(), 1.0);
}

// Significant but under the threshold is `same`; a rate counter that drops
// is `slower` (higher is better for *_per_second).
TEST(CompareCli, ThresholdAndCounterDirection) {
  std::string base = Write("thr_base.json", GbenchJson({{"BM_A", kBase}}));
  std::string cont =
      Write("thr_cont.json", GbenchJson({{"BM_A", Scaled(kBase, 1.03)}}));
  auto r = RunCli({"compare", base, cont, "--format", "json"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_STREQ(Parse(r.out)["benchmarks"][0]["verdict"].GetString(), "same");
  r = RunCli({"compare", base, cont, "--threshold", "2", "--format", "json"});
  EXPECT_EQ(r.code, 1);
  // The contender's times are 3 % longer, so its items_per_second are lower.
  r = RunCli({"compare", base, cont, "--metric", "items_per_second",
              "--threshold", "2", "--format", "json"});
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_STREQ(Parse(r.out)["benchmarks"][0]["verdict"].GetString(), "slower");
}

// The threshold is a percentage of the base median, whatever the scale: a
// 1 % change of a 1 ms benchmark (10,000 ns) is under 5 %, a 50 % change of
// a 10 ns one (5 ns) is over 10 %. Compared in nanoseconds instead, both
// verdicts flip.
TEST(CompareCli, ThresholdIsOnTheRelativeChangeNotTheNanoseconds) {
  std::string base =
      Write("rel_base.json", GbenchJson({{"BM_Slow", Scaled(kBase, 10000)},
                                         {"BM_Fast", Scaled(kBase, 0.1)}}));
  std::string cont = Write("rel_cont.json",
                           GbenchJson({{"BM_Slow", Scaled(kBase, 10000 * 1.01)},
                                       {"BM_Fast", Scaled(kBase, 0.1 * 1.5)}}));
  auto r =
      RunCli({"compare", base, cont, "--threshold", "5", "--format", "json"});
  auto d = Parse(r.out);
  ASSERT_EQ(d["benchmarks"].Size(), 2u) << r.out;
  for (const auto& row : d["benchmarks"].GetArray()) {
    const std::string name = row["name"].GetString();
    EXPECT_STREQ(row["verdict"].GetString(),
                 name == "BM_Slow" ? "same" : "slower")
        << name;
  }
  r = RunCli({"compare", base, cont, "--threshold", "10", "--format", "json"});
  d = Parse(r.out);
  for (const auto& row : d["benchmarks"].GetArray()) {
    if (std::string(row["name"].GetString()) == "BM_Fast") {
      EXPECT_STREQ(row["verdict"].GetString(), "slower");
    }
  }
}

TEST(CompareCli, FasterGeomeanAndBenchmarksInOneFileOnly) {
  // Ratios 0.5 and 2.0: geometric mean exactly 1 by hand.
  std::string base =
      Write("geo_base.json",
            GbenchJson({{"BM_A", kBase}, {"BM_B", kBase}, {"BM_Gone", kBase}}));
  std::string cont =
      Write("geo_cont.json", GbenchJson({{"BM_A", Scaled(kBase, 0.5)},
                                         {"BM_B", Scaled(kBase, 2.0)},
                                         {"BM_New", kBase}}));
  auto r = RunCli({"compare", base, cont, "--format", "json"});
  EXPECT_EQ(r.code, 1);
  auto d = Parse(r.out);
  EXPECT_STREQ(d["benchmarks"][0]["verdict"].GetString(), "faster");
  EXPECT_STREQ(d["benchmarks"][1]["verdict"].GetString(), "slower");
  EXPECT_NEAR(d["geomean_ratio"].GetDouble(), 1.0, 1e-12);
  ASSERT_EQ(d["only_in_base"].Size(), 1u);
  EXPECT_STREQ(d["only_in_base"][0]["name"].GetString(), "BM_Gone");
  ASSERT_EQ(d["only_in_contender"].Size(), 1u);
  EXPECT_STREQ(d["only_in_contender"][0]["name"].GetString(), "BM_New");
}

TEST(CompareCli, FewRepetitionsWarnAndMarkdownRenders) {
  std::vector<double> three = {100, 101, 99};
  std::string base = Write("few_base.json", GbenchJson({{"BM_A", three}}));
  std::string cont =
      Write("few_cont.json", GbenchJson({{"BM_A", Scaled(three, 1.2)}}));
  auto r = RunCli({"compare", base, cont, "--format", "md"});
  // 3 vs 3 separated: p = 0.1, not significant at 0.05 whatever the change.
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out,
              HasSubstr("| BM_A | 100.00 | 120.00 | 20.00 | 0.1000 | same |"));
  EXPECT_THAT(r.out, HasSubstr("> warning: fewer than 9 repetitions"));
  r = RunCli({"compare", base, cont});
  EXPECT_THAT(r.out, HasSubstr("warning: fewer than 9 repetitions"));
}

// Each bad input: exit 2, nothing on stdout, exactly one line on stderr that
// names the file and what is accepted.
struct BadCase {
  std::string name, base, contender, expect;
};

TEST(CompareCli, BadInputIsOneLineAndExitTwo) {
  std::string good = GbenchJson({{"BM_A", kBase}});
  const std::vector<BadCase> cases = {
      {"malformed", "{not json", good, "not JSON"},
      {"truncated", good.substr(0, good.size() / 2), good, "not JSON"},
      // The gbench_json fuzzer's find: RapidJSON 1.1.0 asserted on it.
      {"too_big", R"({"benchmarks": [-126600000000059706501e308]})", good,
       "not JSON (error at byte 16)"},
      {"schemaless", R"({"foo": 1})", good, "neither Google Benchmark"},
      {"array", "[1,2]", good, "neither Google Benchmark"},
      {"empty_list", R"({"context":{},"benchmarks":[]})", good,
       "no benchmark repetitions"},
      {"no_metric",
       R"({"benchmarks":[{"name":"BM_A","run_type":"iteration"}]})", good,
       "no finite number \"real_time\""},
      {"units", GbenchJson({{"BM_A", kBase, "us"}}), good, "time_unit 'us'"},
      {"mixed_units",
       absl::StrCat(R"({"benchmarks":[)",
                    R"({"name":"BM_A","real_time":1,"time_unit":"ns"},)",
                    R"({"name":"BM_A","real_time":1,"time_unit":"ms"}]})"),
       good, "one unit per benchmark"},
      {"no_shared", GbenchJson({{"BM_Other", kBase}}), good, "share no"},
      {"kinds", R"({"title":"x"})", good, "different kinds"},
      // NaN and Infinity: in a result anywhere, in a Google Benchmark file
      // as the metric (an aggregate's NaN cv, above, is Google Benchmark's
      // own and ignored with its row).
      {"result_nan", R"({"title":"x","v":[1,NaN]})",
       R"({"title":"x","v":[1,2]})",
       "BASE holds NaN or Infinity at v[1]; accepted: finite numbers"},
      {"result_inf", R"({"title":"x","v":1})", R"({"title":"x","v":-Infinity})",
       "CONTENDER holds NaN or Infinity at v"},
      {"metric_nan",
       R"({"benchmarks":[{"name":"BM_A","real_time":NaN,"time_unit":"ns"}]})",
       good, "no finite number \"real_time\""},
      // Finite, but past a double's range once subtracted or divided.
      {"result_overflow", R"({"title":"x","v":-1.7e308})",
       R"({"title":"x","v":1.7e308})", "v: -1.7e+308 (BASE) to 1.7e+308"},
      {"far_ratio", GbenchJson({{"BM_A", {1e-10}}}),
       GbenchJson({{"BM_A", {1e300}}}), "within a factor of 1e+300"},
  };
  for (const BadCase& c : cases) {
    std::string b = Write(c.name + "_b.json", c.base);
    std::string k = Write(c.name + "_k.json", c.contender);
    auto r = RunCli({"compare", b, k});
    EXPECT_EQ(r.code, 2) << c.name;
    EXPECT_EQ(r.out, "") << c.name;
    EXPECT_THAT(r.err, HasSubstr(c.expect)) << c.name;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1)
        << c.name << r.err;
  }
  auto r = RunCli({"compare", "/nonexistent/base.json", "x.json"});
  EXPECT_EQ(r.code, 2);
  EXPECT_THAT(r.err, HasSubstr("BASE '/nonexistent/base.json': cannot open"));
  r = RunCli({"compare", "a", "b", "--alpha", "1.5"});
  EXPECT_EQ(r.code, 2);
}

TEST(CompareCli, SimResultsIdenticalOrDiffering) {
  auto run = [](const std::string& seed) {
    auto r =
        RunCli({"sim", "mmc", "--set", "customers=2000", "--set",
                "warmup_customers=200", "--seed", seed, "--format", "json"});
    EXPECT_EQ(r.code, 0) << r.err;
    return r.out;
  };
  std::string a = Write("sim_a.json", run("1"));
  std::string a2 = Write("sim_a2.json", run("1"));
  std::string b = Write("sim_b.json", run("2"));
  auto r = RunCli({"compare", a, a2, "--format", "json"});
  EXPECT_EQ(r.code, 0) << r.err;
  auto d = Parse(r.out);
  EXPECT_TRUE(d["identical"].GetBool());
  EXPECT_GT(d["fields_compared"].GetInt(), 10);
  r = RunCli({"compare", a, b, "--format", "json"});
  EXPECT_EQ(r.code, 1) << r.err;
  d = Parse(r.out);
  EXPECT_FALSE(d["identical"].GetBool());
  bool saw_seed = false;
  for (const auto& f : d["fields"].GetArray()) {
    if (std::string(f["path"].GetString()) == "seed") {
      saw_seed = true;
      EXPECT_STREQ(f["base"].GetString(), "1");
      EXPECT_EQ(f["change"].GetDouble(), 1.0);
      EXPECT_STREQ(f["verdict"].GetString(), "differs");
    }
  }
  EXPECT_TRUE(saw_seed);
}

// Hand-made sweep-like results: 10.0 +- 0.5 against 10.3 +- 0.4 is inside
// both intervals (same); against 10.45 +- 0.5 too; against 10.6 +- 0.5 it is
// outside both (differs). The mmc naming stem_ci95_unit is recognised too.
TEST(CompareCli, DifferenceInsideBothConfidenceIntervalsIsSame) {
  std::string b =
      Write("ci_b.json",
            R"({"title":"t","points":[{"wait_ms":10.0,"wait_ms_ci95":0.5,)"
            R"("mean_wait_s":2.0,"mean_wait_ci95_s":0.1}]})");
  std::string k =
      Write("ci_k.json",
            R"({"title":"t","points":[{"wait_ms":10.3,"wait_ms_ci95":0.4,)"
            R"("mean_wait_s":2.05,"mean_wait_ci95_s":0.1}]})");
  auto r = RunCli({"compare", b, k, "--format", "json"});
  EXPECT_EQ(r.code, 1) << r.out;  // the half-width fields themselves changed
  auto d = Parse(r.out);
  int same = 0;
  for (const auto& f : d["fields"].GetArray()) {
    std::string path = f["path"].GetString();
    if (path == "points[0].wait_ms" || path == "points[0].mean_wait_s") {
      EXPECT_STREQ(f["verdict"].GetString(), "same") << path;
      ++same;
    }
  }
  EXPECT_EQ(same, 2);
  std::string k2 =
      Write("ci_k2.json",
            R"({"title":"t","points":[{"wait_ms":10.45,"wait_ms_ci95":0.5,)"
            R"("mean_wait_s":2.0,"mean_wait_ci95_s":0.1}]})");
  r = RunCli({"compare", b, k2, "--format", "json"});
  EXPECT_EQ(r.code, 0) << r.out;  // 0.45 < 0.5 in both: nothing differs
  std::string k3 =
      Write("ci_k3.json",
            R"({"title":"t","points":[{"wait_ms":10.6,"wait_ms_ci95":0.5,)"
            R"("mean_wait_s":2.0,"mean_wait_ci95_s":0.1}]})");
  r = RunCli({"compare", b, k3, "--format", "json"});
  EXPECT_EQ(r.code, 1);
  EXPECT_STREQ(Parse(r.out)["fields"][0]["verdict"].GetString(), "differs");
}

}  // namespace
}  // namespace perflab
