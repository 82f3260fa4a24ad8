// perflab sweep and sweep-merge end to end, in-process: output identical for
// J = 1, 2, 7; shards merged == unsharded; every bad input is one line, exit
// 2, nothing written; and the statistics are honest: the 95 % interval of the
// mean M/M/c wait covers Erlang C at >= 9 of 10 grid points and shrinks like
// 1 / sqrt(R).
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "core/document.h"
#include "gtest/gtest.h"
#include "tests/file_text.h"
#include "tests/tools/cli_runner.h"
#include "tools/sweep/aggregate.h"
#include "tools/sweep/experiment.h"
#include "tools/sweep/runner.h"

namespace perflab::sweep {
namespace {

namespace fs = std::filesystem;
using ::perflab::testing::CliResult;
using ::perflab::testing::RunCli;

const std::vector<std::string> kSmall = {
    "sweep",          "mmc",
    "--set",          "servers=1,2",
    "--set",          "arrival_rate_per_s=0.5,0.9",
    "--set",          "customers=500",
    "--set",          "warmup_customers=50",
    "--replications", "4"};

std::vector<std::string> With(std::vector<std::string> args,
                              const std::vector<std::string>& more) {
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

fs::path TempDir(const std::string& name) {
  fs::path d = fs::temp_directory_path() /
               absl::StrCat("perflab_sweep_", name, "_", ::getpid());
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

using ::perflab::testing::FileText;

TEST(SweepCli, ByteIdenticalForJobs1And2And7) {
  for (const char* format : {"table", "json", "csv"}) {
    CliResult one = RunCli(With(kSmall, {"--jobs", "1", "--format", format}));
    ASSERT_EQ(one.code, 0) << one.err;
    EXPECT_EQ(one.err, "");  // a sub-second sweep prints no progress
    for (const char* jobs : {"2", "7"}) {
      CliResult r = RunCli(With(kSmall, {"--jobs", jobs, "--format", format}));
      EXPECT_EQ(r.code, 0) << r.err;
      EXPECT_EQ(r.out, one.out) << "jobs " << jobs << " format " << format;
    }
  }
}

TEST(SweepCli, ShardsMergedEqualUnsharded) {
  fs::path dir = TempDir("shards");
  CliResult whole = RunCli(With(kSmall, {"--format", "json"}));
  ASSERT_EQ(whole.code, 0) << whole.err;
  std::vector<std::string> merge = {"sweep-merge"};
  for (int i = 1; i <= 3; ++i) {
    std::string part = (dir / absl::StrCat("part-", i, ".json")).string();
    CliResult r =
        RunCli(With(kSmall, {"--shard", absl::StrCat(i, "/3"), "--out", part}));
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.out, "");  // the part went to --out
    merge.push_back(part);
  }
  CliResult merged = RunCli(With(merge, {"--format", "json"}));
  ASSERT_EQ(merged.code, 0) << merged.err;
  EXPECT_EQ(merged.out, whole.out);
  // The table format too, and --out for the merge.
  std::string out = (dir / "merged.txt").string();
  ASSERT_EQ(RunCli(With(merge, {"--out", out})).code, 0);
  EXPECT_EQ(FileText(out), RunCli(kSmall).out);

  // Missing, duplicated, foreign parts: one line naming which, exit 2.
  auto bad = [&](std::vector<std::string> args, const std::string& says) {
    CliResult r = RunCli(std::move(args));
    EXPECT_EQ(r.code, 2) << r.err;
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_NE(r.err.find(says), std::string::npos) << r.err;
  };
  bad({"sweep-merge", merge[1], merge[2]}, "missing shard(s) 3/3");
  bad({"sweep-merge", merge[1], merge[2], merge[2], merge[3]}, "given twice");
  std::string other = (dir / "other.json").string();
  ASSERT_EQ(RunCli({"sweep", "mmc", "--set", "customers=100", "--replications",
                    "2", "--shard", "3/3", "--out", other})
                .code,
            0);
  bad({"sweep-merge", merge[1], merge[2], other},
      absl::StrCat(other, " is from a different experiment"));
  bad({"sweep-merge", (dir / "nosuch.json").string()}, "nosuch.json");
  fs::remove_all(dir);
}

TEST(SweepCli, BadInputIsOneLineExit2NothingWritten) {
  fs::path dir = TempDir("bad");
  std::string out = (dir / "out.json").string();
  std::string many = "customers=1";
  for (int i = 2; i <= 1001; ++i) absl::StrAppend(&many, ",", i);
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--set", "nosuch=1"}, "nosuch"},
      {{"--set", "servers=0"}, "'servers' = '0'"},
      {{"--set", "servers="}, "empty list"},
      {{"--set", "servers=1,,2"}, "empty value"},
      {{"--set", many, "--replications", "100"}, "--force"},
      {{"--jobs", "0"}, "--jobs = '0'"},
      {{"--replications", "0"}, "--replications = '0'"},
      {{"--shard", "5/4"}, "--shard = '5/4'"},
      {{"--seed", "x"}, "--seed: got 'x'"},
  };
  for (const auto& [args, says] : cases) {
    CliResult r = RunCli(With(With({"sweep", "mmc"}, args), {"--out", out}));
    EXPECT_EQ(r.code, 2) << says;
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_NE(r.err.find(says), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(out)) << says;
  }
  CliResult r = RunCli({"sweep", "nosuch"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("unknown scenario 'nosuch'"), std::string::npos);
  fs::remove_all(dir);
}

// Erlang C by the Erlang B recursion (independent of models/queues.cc):
// B(0) = 1, B(k) = a B / (k + a B); C = B / (1 - rho (1 - B)); W = C / (c mu
// - lambda).
double ErlangCWait(int c, double lambda, double mu) {
  double a = lambda / mu, b = 1;
  for (int k = 1; k <= c; ++k) b = a * b / (k + a * b);
  double rho = a / c;
  double pw = b / (1 - rho * (1 - b));
  return pw / (c * mu - lambda);
}

struct Interval {
  double mean = 0, half = 0;
};

std::vector<Interval> MeanWaits(const Experiment& e) {
  RunnerOptions o;
  o.jobs = 2;
  absl::StatusOr<std::vector<RunResult>> r =
      RunRuns(e, ShardRuns(e, {1, 1}), ScenarioRunFn(), o);
  EXPECT_TRUE(r.ok()) << r.status();
  absl::StatusOr<core::Document> d = Aggregate(e, *r);
  EXPECT_TRUE(d.ok());
  std::vector<Interval> out;
  for (const auto& row : d->FindTable("metrics")->rows) {
    if (row[1] == core::Value(std::string("mean_wait_s"))) {
      out.push_back({core::AsDouble(row[3]), core::AsDouble(row[4])});
    }
  }
  return out;
}

TEST(SweepStatistics, IntervalCoversErlangCAtNineOfTenPoints) {
  const std::vector<double> lambdas = {0.3, 0.45, 0.6, 0.75, 0.9};
  absl::StatusOr<Experiment> e = MakeExperiment(
      "mmc",
      {"servers=1,2", "arrival_rate_per_s=0.3,0.45,0.6,0.75,0.9",
       "service_rate_per_s=1", "customers=20000", "warmup_customers=2000"},
      10, 2026);
  ASSERT_TRUE(e.ok()) << e.status();
  std::vector<Interval> waits = MeanWaits(*e);
  ASSERT_EQ(waits.size(), 10u);
  int covered = 0;
  for (size_t p = 0; p < 10; ++p) {
    int c = p < 5 ? 1 : 2;
    double exact = ErlangCWait(c, lambdas[p % 5], 1.0);
    bool in = std::fabs(waits[p].mean - exact) <= waits[p].half;
    covered += in;
    EXPECT_GT(waits[p].half, 0);
    ::testing::Test::RecordProperty(
        absl::StrCat("point", p),
        absl::StrCat(waits[p].mean, " +- ", waits[p].half, " vs ", exact));
  }
  EXPECT_GE(covered, 9);
}

TEST(SweepStatistics, HalfWidthShrinksLikeOneOverSqrtR) {
  // 4x the replications: sqrt(4) = 2, times t(0.975, 9) / t(0.975, 39) =
  // 2.262 / 2.023, so about 2.24 (sampling noise in the two sds aside).
  auto half = [](int64_t r) {
    absl::StatusOr<Experiment> e =
        MakeExperiment("mmc",
                       {"servers=2", "arrival_rate_per_s=1.2", "customers=5000",
                        "warmup_customers=500"},
                       r, 7);
    return MeanWaits(*e).at(0).half;
  };
  double ratio = half(10) / half(40);
  EXPECT_GT(ratio, 1.5);
  EXPECT_LT(ratio, 3.3);
}

}  // namespace
}  // namespace perflab::sweep
