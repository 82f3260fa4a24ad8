// perflab::sweep as a library: grid expansion and seeds, statistics checked
// against hand computations, the runner's output independent of J (fake runs
// and real scenarios), merged histograms, partial files and their merge.
// Label `threads`: these run under ThreadSanitizer too (tsan preset).
#include <any>
#include <cmath>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "core/document.h"
#include "gtest/gtest.h"
#include "models/histogram.h"
#include "tools/sweep/aggregate.h"
#include "tools/sweep/experiment.h"
#include "tools/sweep/partial.h"
#include "tools/sweep/runner.h"

namespace perflab::sweep {
namespace {

Experiment Make(std::vector<std::string> sets, int64_t r, uint64_t seed = 42) {
  absl::StatusOr<Experiment> e = MakeExperiment("mmc", sets, r, seed);
  EXPECT_TRUE(e.ok()) << e.status();
  return *e;
}

TEST(SweepExperiment, GridIsNestedLoopsFirstKeySlowest) {
  Experiment e = Make({"servers=1,2,3", "service=exp,det"}, 2);
  EXPECT_EQ(GridPoints(e), 6);
  EXPECT_EQ(TotalRuns(e), 12);
  EXPECT_EQ(PointSets(e, 0),
            (std::vector<std::string>{"servers=1", "service=exp"}));
  EXPECT_EQ(PointSets(e, 1),
            (std::vector<std::string>{"servers=1", "service=det"}));
  EXPECT_EQ(PointSets(e, 5),
            (std::vector<std::string>{"servers=3", "service=det"}));
  EXPECT_EQ(RunSeed(e, 7), 49u);
  Experiment wrap = Make({}, 3, UINT64_MAX);
  EXPECT_EQ(RunSeed(wrap, 2), 1u);  // wraps at 2^64
}

TEST(SweepExperiment, ShardsPartitionTheRuns) {
  Experiment e = Make({"servers=1,2,3"}, 3);  // 9 runs
  EXPECT_EQ(ShardRuns(e, {1, 4}), (std::vector<int64_t>{0, 4, 8}));
  EXPECT_EQ(ShardRuns(e, {4, 4}), (std::vector<int64_t>{3, 7}));
  EXPECT_EQ(ShardRuns(e, {1, 1}).size(), 9u);
  EXPECT_FALSE(ParseShard("0/4").ok());
  EXPECT_FALSE(ParseShard("5/4").ok());
  EXPECT_FALSE(ParseShard("1-4").ok());
  EXPECT_EQ(ParseShard("3/4")->index, 3);
}

TEST(SweepExperiment, BadInputNamesTheValue) {
  auto err = [](std::vector<std::string> sets, int64_t r = 10, Limits l = {}) {
    absl::StatusOr<Experiment> e = MakeExperiment("mmc", sets, r, 1, l);
    EXPECT_FALSE(e.ok());
    return std::string(e.status().message());
  };
  EXPECT_NE(err({"nosuch=1"}).find("nosuch"), std::string::npos);
  EXPECT_NE(err({"servers=0"}).find("'0'"), std::string::npos);
  EXPECT_NE(err({"servers="}).find("empty list"), std::string::npos);
  EXPECT_NE(err({"servers=1,,2"}).find("empty value"), std::string::npos);
  EXPECT_NE(err({"servers=1", "servers=2"}).find("twice"), std::string::npos);
  EXPECT_NE(err({}, 0).find("--replications"), std::string::npos);
  EXPECT_FALSE(MakeExperiment("nosuch", {}, 1, 1).ok());
  // 1,001 x 100 = 100,100 runs > 100,000 unless forced.
  std::string many = "customers=1";
  for (int i = 2; i <= 1001; ++i) absl::StrAppend(&many, ",", i);
  EXPECT_NE(err({many}, 100).find("--force"), std::string::npos);
  Limits forced;
  forced.force = true;
  EXPECT_TRUE(MakeExperiment("mmc", {many}, 100, 1, forced).ok());
  EXPECT_TRUE(MakeExperiment("mmc", {many}, 99, 1).ok());  // 99,099 runs
}

// A fake scenario: value = seed mod 7, and a histogram of `seed mod 5 + 1`
// samples at 1 ms, 2 ms, ... when `hist` is set.
absl::StatusOr<core::Document> Fake(const std::string&,
                                    const std::vector<std::string>& sets,
                                    uint64_t seed, bool hist) {
  core::Document d("fake");
  d.Set("x", "x", static_cast<int64_t>(seed % 7));
  d.Set("p99_ms", "p99", static_cast<double>(seed % 3));
  d.Set("seed", "seed", static_cast<int64_t>(seed));
  d.Set("label", "label", std::string("ignored"));
  core::Table& t = d.AddTable("rows", "rows", {{"a", "a"}, {"b", "b"}});
  t.Add({std::string("row"), static_cast<double>(sets.size())});
  if (hist) {
    models::Histogram h = *models::Histogram::Create();
    for (uint64_t i = 1; i <= seed % 5 + 1; ++i) {
      h.Record(static_cast<int64_t>(i) * 1000000);
    }
    d.Attach("latency_histogram", h);
  }
  return d;
}

RunFn FakeFn(bool hist) {
  return [hist](const std::string& s, const std::vector<std::string>& sets,
                uint64_t seed) { return Fake(s, sets, seed, hist); };
}

std::string SweepJson(const Experiment& e, const RunFn& fn, int jobs) {
  RunnerOptions o;
  o.jobs = jobs;
  absl::StatusOr<std::vector<RunResult>> r =
      RunRuns(e, ShardRuns(e, {1, 1}), fn, o);
  EXPECT_TRUE(r.ok()) << r.status();
  absl::StatusOr<core::Document> d = Aggregate(e, *r);
  EXPECT_TRUE(d.ok()) << d.status();
  return core::ToJson(*d);
}

const core::Table& TableOf(const core::Document& d, const char* key) {
  const core::Table* t = d.FindTable(key);
  EXPECT_NE(t, nullptr) << key;
  return *t;
}

TEST(SweepAggregate, MeanHalfWidthMinMaxByHand) {
  // Seeds 100..104 -> x = seed mod 7 = 2, 3, 4, 5, 6: mean 4, sd sqrt(2.5),
  // half-width t(0.975, 4) * sd / sqrt(5) = 2.7764451 * 1.5811388 / 2.2360680.
  Experiment e = Make({}, 5, 100);
  RunnerOptions o;
  absl::StatusOr<std::vector<RunResult>> r =
      RunRuns(e, ShardRuns(e, {1, 1}), FakeFn(false), o);
  ASSERT_TRUE(r.ok());
  absl::StatusOr<core::Document> d = Aggregate(e, *r);
  ASSERT_TRUE(d.ok());
  const core::Table& m = TableOf(*d, "metrics");
  ASSERT_EQ(m.rows[0][1], core::Value(std::string("x")));
  EXPECT_EQ(m.rows[0][2], core::Value(int64_t{5}));
  EXPECT_DOUBLE_EQ(core::AsDouble(m.rows[0][3]), 4.0);
  EXPECT_NEAR(core::AsDouble(m.rows[0][4]),
              2.7764451 * std::sqrt(2.5) / std::sqrt(5.0), 1e-6);
  EXPECT_DOUBLE_EQ(core::AsDouble(m.rows[0][5]), 2.0);
  EXPECT_DOUBLE_EQ(core::AsDouble(m.rows[0][6]), 6.0);
  // The seed stamp and strings are not metrics; table cells are, by row.
  for (const auto& row : m.rows) {
    EXPECT_NE(row[1], core::Value(std::string("seed")));
    EXPECT_NE(row[1], core::Value(std::string("label")));
  }
  EXPECT_EQ(m.rows.back()[1], core::Value(std::string("rows[0].b")));
  EXPECT_EQ(d->FindField("percentiles_from")->value,
            core::Value(std::string("mean_of_per_run_percentiles")));
}

TEST(SweepAggregate, PercentilesFromMergedHistograms) {
  // Seeds 10..13: seed mod 5 + 1 = 1, 2, 3, 4 samples of 1..k ms, i.e.
  // 1 ms x4, 2 ms x3, 3 ms x2, 4 ms x1 (10 samples): p50 is the 5th = 2 ms,
  // p90 the 9th = 3 ms, p99 the 10th = 4 ms (to 3 significant digits).
  Experiment e = Make({}, 4, 10);
  absl::StatusOr<core::Document> d = core::Document("x");
  RunnerOptions o;
  absl::StatusOr<std::vector<RunResult>> r =
      RunRuns(e, ShardRuns(e, {1, 1}), FakeFn(true), o);
  ASSERT_TRUE(r.ok());
  d = Aggregate(e, *r);
  ASSERT_TRUE(d.ok());
  const core::Table& lat = TableOf(*d, "latency");
  ASSERT_EQ(lat.rows.size(), 1u);
  EXPECT_EQ(lat.rows[0][1], core::Value(int64_t{10}));
  EXPECT_NEAR(core::AsDouble(lat.rows[0][2]), 2.0, 2.0 * 1e-3);
  EXPECT_NEAR(core::AsDouble(lat.rows[0][3]), 3.0, 3.0 * 1e-3);
  EXPECT_NEAR(core::AsDouble(lat.rows[0][4]), 4.0, 4.0 * 1e-3);
  EXPECT_EQ(d->FindField("percentiles_from")->value,
            core::Value(std::string("merged_histograms")));
  // The per-run p99_ms is not averaged when histograms exist.
  for (const auto& row : TableOf(*d, "metrics").rows) {
    EXPECT_NE(row[1], core::Value(std::string("p99_ms")));
  }
}

TEST(SweepRunner, OutputIdenticalForAnyJobs) {
  Experiment e = Make({"servers=1,2,3", "service=exp,det"}, 7);
  std::string one = SweepJson(e, FakeFn(true), 1);
  EXPECT_EQ(SweepJson(e, FakeFn(true), 2), one);
  EXPECT_EQ(SweepJson(e, FakeFn(true), 7), one);
}

TEST(SweepRunner, RealScenarioIdenticalForAnyJobs) {
  Experiment e = Make({"servers=1,2", "customers=300", "warmup_customers=10",
                       "arrival_rate_per_s=0.5,0.9"},
                      3);
  std::string one = SweepJson(e, ScenarioRunFn(), 1);
  EXPECT_NE(one.find("mean_wait_s"), std::string::npos);
  EXPECT_EQ(SweepJson(e, ScenarioRunFn(), 2), one);
  EXPECT_EQ(SweepJson(e, ScenarioRunFn(), 7), one);
}

TEST(SweepRunner, LowestFailingRunIsReportedForAnyJobs) {
  RunFn failing = [](const std::string& s, const std::vector<std::string>& v,
                     uint64_t seed) -> absl::StatusOr<core::Document> {
    if (seed % 4 == 3) return absl::InvalidArgumentError("boom");
    return Fake(s, v, seed, false);
  };
  Experiment e = Make({"servers=1,2"}, 10, 0);
  for (int jobs : {1, 2, 7}) {
    RunnerOptions o;
    o.jobs = jobs;
    absl::StatusOr<std::vector<RunResult>> r =
        RunRuns(e, ShardRuns(e, {1, 1}), failing, o);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().message(), "run 3 (servers=1 seed 3): boom");
  }
}

TEST(SweepPartial, ShardsMergeToTheUnshardedResult) {
  Experiment e = Make({"servers=1,2,3"}, 5);
  RunnerOptions o;
  o.jobs = 2;
  std::vector<RunResult> all =
      *RunRuns(e, ShardRuns(e, {1, 1}), FakeFn(true), o);
  std::string whole = core::ToJson(*Aggregate(e, all));
  std::vector<Partial> parts;
  std::vector<std::string> names;
  for (int64_t i = 1; i <= 4; ++i) {
    Shard s{i, 4};
    Partial p{e, s, *RunRuns(e, ShardRuns(e, s), FakeFn(true), o)};
    absl::StatusOr<Partial> back =
        ParsePartial(PartialToJson(p), absl::StrCat("part", i));
    ASSERT_TRUE(back.ok()) << back.status();
    parts.push_back(*back);
    names.push_back(absl::StrCat("part", i));
  }
  absl::StatusOr<Merged> m = MergeParts(parts, names);
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ(core::ToJson(*Aggregate(m->experiment, m->runs)), whole);

  // A missing shard, a duplicate, another experiment: one message each.
  std::vector<Partial> three(parts.begin(), parts.begin() + 3);
  EXPECT_NE(
      MergeParts(three, names).status().message().find("missing shard(s) 4/4"),
      std::string::npos);
  std::vector<Partial> dup = parts;
  dup[3] = parts[2];
  EXPECT_NE(MergeParts(dup, names).status().message().find("given twice"),
            std::string::npos);
  std::vector<Partial> other = parts;
  other[1].experiment.replications = 6;
  EXPECT_NE(MergeParts(other, names)
                .status()
                .message()
                .find("part2 is from a different experiment"),
            std::string::npos);
}

TEST(SweepPartial, CorruptPartialIsRejected) {
  EXPECT_FALSE(ParsePartial("{", "f").ok());
  EXPECT_FALSE(ParsePartial("{\"perflab_sweep_partial\":1}", "f").ok());
  Experiment e = Make({}, 1);
  std::string json = PartialToJson({e, {1, 1}, {}});
  size_t at = json.find("\"replications\":1");
  ASSERT_NE(at, std::string::npos);
  json.replace(at, 16, "\"replications\":2");  // the fingerprint does not fit
  EXPECT_NE(ParsePartial(json, "f").status().message().find("fingerprint"),
            std::string::npos);
}

}  // namespace
}  // namespace perflab::sweep
