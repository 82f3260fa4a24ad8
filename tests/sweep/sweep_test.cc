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
#include "models/hdr_codec.h"
#include "models/histogram.h"
#include "tools/sweep/aggregate.h"
#include "tools/sweep/experiment.h"
#include "tools/sweep/partial.h"
#include "tools/sweep/runner.h"

namespace perflab::sweep {
namespace {

Experiment Make(const std::vector<std::string>& sets, int64_t r,
                uint64_t seed = 42) {
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
  auto err = [](const std::vector<std::string>& sets, int64_t r = 10,
                Limits l = {}) {
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
  // 99,099 runs, light enough: 99 x (1 + ... + 1001) customers = 0.99 of
  // one mmc run at its work bound (5e7), under kMaxSweepWork.
  EXPECT_TRUE(MakeExperiment("mmc", {many, "warmup_customers=0"}, 99, 1).ok());
  // With the default warm-up of 100,000 customers a run, 99 x 1001 x 1e5
  // / 5e7 = 198 bounds of work: refused without --force.
  EXPECT_NE(err({many}, 99).find("work adds up to"), std::string::npos);
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

TEST(SweepExperiment, CountsAreBoundedBeforeAnythingIsAllocated) {
  Limits forced;
  forced.force = true;
  EXPECT_TRUE(MakeExperiment("mmc", {}, kMaxReplications, 1, forced).ok());
  for (int64_t r : {kMaxReplications + 1, int64_t{4611686018427387904}}) {
    absl::StatusOr<Experiment> e = MakeExperiment("mmc", {}, r, 1, forced);
    ASSERT_FALSE(e.ok());
    EXPECT_NE(e.status().message().find("10000000"), std::string::npos);
  }
  // 10^7 replications x 101 points = 1.01e9 runs: past the bound even with
  // --force; 100 points (10^9) are allowed.
  std::string points = "customers=1";
  for (int i = 2; i <= 100; ++i) absl::StrAppend(&points, ",", i);
  EXPECT_TRUE(
      MakeExperiment("mmc", {points}, kMaxReplications, 1, forced).ok());
  absl::StrAppend(&points, ",101");
  absl::StatusOr<Experiment> e =
      MakeExperiment("mmc", {points}, kMaxReplications, 1, forced);
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.status().message().find("1000000000"), std::string::npos);
}

TEST(SweepExperiment, ShardsAreBoundedAndNeverOverflow) {
  EXPECT_TRUE(ParseShard("100000/100000").ok());
  EXPECT_FALSE(ParseShard("1/100001").ok());
  EXPECT_FALSE(ParseShard("2/9223372036854775807").ok());
  EXPECT_FALSE(ParseShard("").ok());
  // 3 runs (k = 0, 1, 2): shard 2/N holds k = 1 for any N >= 2, and shard
  // I/N with I > 3 holds none; no k + N is formed past the last run.
  Experiment e = Make({}, 3);
  for (int64_t n : {int64_t{2}, int64_t{3}, kMaxShards}) {
    EXPECT_EQ(ShardRuns(e, {2, n}), std::vector<int64_t>{1}) << n;
    EXPECT_EQ(ShardSize(e, {2, n}), 1);
  }
  EXPECT_TRUE(ShardRuns(e, {4, kMaxShards}).empty());
  EXPECT_EQ(ShardSize(e, {4, kMaxShards}), 0);
  EXPECT_EQ(ShardRuns(e, {1, 2}), (std::vector<int64_t>{0, 2}));
  // 7 runs in 3 shards: 3 + 2 + 2 (k = 0,3,6 / 1,4 / 2,5).
  Experiment seven = Make({}, 7);
  EXPECT_EQ(ShardSize(seven, {1, 3}), 3);
  EXPECT_EQ(ShardSize(seven, {3, 3}), 2);
}

// A partial edited by hand (or by an attacker): the field is replaced, and
// the fingerprint recomputed when `forge`, so only the bounds can catch it.
std::string Edited(const Partial& p, const std::string& from,
                   const std::string& to, bool forge,
                   const Experiment* forged = nullptr, int64_t shards = 1) {
  std::string json = PartialToJson(p);
  size_t at = json.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  json.replace(at, from.size(), to);
  if (forge) {
    const std::string fp =
        PartialFingerprint(p.experiment, p.shard.count, p.runs);
    at = json.find(fp);
    EXPECT_NE(at, std::string::npos);
    json.replace(at, fp.size(), PartialFingerprint(*forged, shards, p.runs));
  }
  return json;
}

std::string PartialError(const std::string& json) {
  absl::StatusOr<Partial> p = ParsePartial(json, "part.json");
  EXPECT_FALSE(p.ok());
  std::string m(p.status().message());
  EXPECT_EQ(m.find('\n'), std::string::npos) << m;
  EXPECT_LT(m.size(), 400u) << m;
  return m;
}

TEST(SweepPartial, TheFingerprintCoversTheShardCount) {
  Experiment e = Make({"servers=1,2"}, 2);
  RunnerOptions o;
  o.jobs = 1;
  Partial p{e, {1, 2}, *RunRuns(e, ShardRuns(e, {1, 2}), FakeFn(true), o)};
  ASSERT_TRUE(ParsePartial(PartialToJson(p), "part.json").ok());
  EXPECT_NE(PartialFingerprint(e, 2, p.runs), PartialFingerprint(e, 3, p.runs));
  EXPECT_NE(PartialError(Edited(p, "\"shards\":2", "\"shards\":3", false))
                .find("fingerprint"),
            std::string::npos);
  // Forged to match: 1e15 shards are still past the bound.
  EXPECT_NE(
      PartialError(Edited(p, "\"shards\":2", "\"shards\":1000000000000000",
                          true, &e, 1000000000000000))
          .find("shard 1/1000000000000000"),
      std::string::npos);
  // 10^12 replications, forged: refused as the command line refuses them.
  Experiment huge = e;
  huge.replications = 1000000000000;
  EXPECT_NE(
      PartialError(Edited(p, "\"replications\":2",
                          "\"replications\":1000000000000", true, &huge, 2))
          .find("--replications"),
      std::string::npos);
}

TEST(SweepPartial, RunsValuesAndHistogramsAreChecked) {
  Experiment e = Make({"servers=1,2"}, 2);
  RunnerOptions o;
  o.jobs = 1;
  Partial p{e, {1, 2}, *RunRuns(e, ShardRuns(e, {1, 2}), FakeFn(true), o)};
  // Non-finite values, as RapidJSON's NaN/Infinity literals.
  EXPECT_NE(PartialError(Edited(p, "\"x\":0.0", "\"x\":NaN", false))
                .find("not a finite number"),
            std::string::npos);
  EXPECT_NE(PartialError(Edited(p, "\"x\":0.0", "\"x\":-Infinity", false))
                .find("not a finite number"),
            std::string::npos);
  // Keys perflab sweep never writes, under a fingerprint that fits them.
  auto renamed = [&p](const std::string& key) {
    Partial q = p;
    for (auto& [k, v] : q.runs[0].values) {
      if (k == "x") k = key;
    }
    return PartialToJson(q);
  };
  for (const char* key : {"evil\nkey", "seed", "rows[x].a", "a b", ""}) {
    EXPECT_NE(PartialError(renamed(key)).find("key"), std::string::npos) << key;
  }
  EXPECT_TRUE(ParsePartial(renamed("rows[12].b_2"), "part.json").ok());
  // A key added or renamed by hand, even a well-formed word, no longer fits
  // the fingerprint: no run of this sweep wrote it.
  for (const char* edit : {"\"bogus\":1,\"x\":0.0", "\"y\":0.0"}) {
    EXPECT_NE(PartialError(Edited(p, "\"x\":0.0", edit, false))
                  .find("fingerprint does not match"),
              std::string::npos)
        << edit;
  }
  // One run too few, and a run that is not the shard's.
  Partial short_part = p;
  short_part.runs.pop_back();
  EXPECT_NE(PartialError(PartialToJson(short_part)).find("should hold 2 runs"),
            std::string::npos);
  Partial wrong = p;
  wrong.runs[1].run = 3;
  EXPECT_NE(PartialError(PartialToJson(wrong)).find("is not run 2"),
            std::string::npos);
  // A histogram that does not decode.
  Partial bad_hist = p;
  bad_hist.runs[0].histogram_hdr = "!!!";
  EXPECT_NE(PartialError(PartialToJson(bad_hist)).find("HdrHistogram"),
            std::string::npos);
  // Nested past the JSON depth limit.
  EXPECT_NE(PartialError(std::string(100000, '[')).find("nested deeper"),
            std::string::npos);
}

TEST(SweepPartial, CountsThatOverflowWhenMergedAreRejected) {
  Experiment e = Make({}, 2);
  models::Histogram big = *models::Histogram::Create();
  big.Record(1000000, INT64_MAX);
  RunResult a{0, RunSeed(e, 0), {{"x", 1}}, models::EncodeHdrBase64(big)};
  RunResult b{1, RunSeed(e, 1), {{"x", 2}}, models::EncodeHdrBase64(big)};
  absl::StatusOr<Partial> one =
      ParsePartial(PartialToJson({e, {1, 2}, {a}}), "one");
  absl::StatusOr<Partial> two =
      ParsePartial(PartialToJson({e, {2, 2}, {b}}), "two");
  ASSERT_TRUE(one.ok()) << one.status();
  ASSERT_TRUE(two.ok()) << two.status();
  absl::StatusOr<Merged> m = MergeParts({*one, *two}, {"one", "two"});
  ASSERT_TRUE(m.ok()) << m.status();
  absl::StatusOr<core::Document> d = Aggregate(m->experiment, m->runs);
  ASSERT_FALSE(d.ok());
  EXPECT_NE(d.status().message().find("2^63"), std::string::npos);
}

// Shard 1 of 2 and shard 2 of 3 cover runs {0, 2, 4...} and {1, 4, 7...}:
// together they are no whole sweep, though neither misses a shard of its own
// count's "1..N" once the other is there.
TEST(SweepPartial, PartsCutIntoDifferentShardCountsDoNotMerge) {
  Experiment e = Make({"servers=1,2,3"}, 2);
  const Partial half{
      e, {1, 2}, *RunRuns(e, ShardRuns(e, {1, 2}), FakeFn(true), {})};
  const Partial third{
      e, {2, 3}, *RunRuns(e, ShardRuns(e, {2, 3}), FakeFn(true), {})};
  absl::StatusOr<Merged> m = MergeParts({half, third}, {"half", "third"});
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.status().message().find("shards=3 vs"), std::string::npos)
      << m.status();
}

// A key given twice in one run (with a fingerprint made to match) would be
// counted twice by the aggregate: refused, naming it.
TEST(SweepPartial, AKeyGivenTwiceInARunIsRefused) {
  Experiment e = Make({}, 1);
  RunResult twice{0, RunSeed(e, 0), {{"x", 1}, {"x", 2}}, ""};
  absl::StatusOr<Partial> p =
      ParsePartial(PartialToJson({e, {1, 1}, {twice}}), "twice");
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.status().message().find("gives value 'x' twice"),
            std::string::npos)
      << p.status();
}

// " 1/4" and "+1/4" read as 1/4 with SimpleAtoi; only decimal digits are a
// shard (core/number.h), and the message is the one line of every refusal.
TEST(SweepExperiment, AShardIsDecimalDigitsOnly) {
  ASSERT_TRUE(ParseShard("1/16").ok());
  for (const char* text : {" 1/16", "+1/16", "1/ 16", "1/+16", "0x1/16",
                           "1/0x10", "1/1e400", "1/99999999999999999999"}) {
    absl::StatusOr<Shard> s = ParseShard(text);
    ASSERT_FALSE(s.ok()) << text;
    EXPECT_EQ(s.status().message(),
              absl::StrCat("--shard = '", text,
                           "': accepted I/N with integers 1 <= I <= N <= "
                           "100000"));
  }
}

// The header's and a run's seed are decimal digits: "+16" and " <seed>"
// would read as the right seed with SimpleAtoi and pass every other check.
TEST(SweepPartial, ASeedThatIsNotDecimalDigitsIsRefused) {
  // Two runs with seeds 16 and 17 (S + k): the header's seed is "16", run
  // 1's "17", each written once.
  Experiment e = Make({}, 2, 16);
  const Partial p{
      e,
      {1, 1},
      {RunResult{0, 16, {{"x", 1}}, ""}, RunResult{1, 17, {{"x", 1}}, ""}}};
  ASSERT_TRUE(ParsePartial(PartialToJson(p), "part.json").ok());
  for (const char* seed :
       {"+16", " 16", "16 ", "0x10", "1e400", "18446744073709551632"}) {
    EXPECT_EQ(
        PartialError(Edited(p, "\"seed\":\"16\"",
                            absl::StrCat("\"seed\":\"", seed, "\""), false)),
        absl::StrCat("part.json: not a perflab sweep partial (its seed "
                     "is '",
                     seed,
                     "', not an integer in [0, 18446744073709551615]); "
                     "accepted: a file written by perflab sweep --shard"));
  }
  for (const char* seed : {" 17", "+17", "0x11"}) {
    EXPECT_EQ(
        PartialError(Edited(p, "\"seed\":\"17\"",
                            absl::StrCat("\"seed\":\"", seed, "\""), false)),
        absl::StrCat(
            "part.json: not a perflab sweep partial (run 1's seed is '", seed,
            "', not an integer in [0, 18446744073709551615]); "
            "accepted: a file written by perflab sweep --shard"));
  }
}

// Runs whose values are near DBL_MAX: the plain sum of two is infinite, the
// mean is not (1.7e308, the value itself) and is written as a number.
TEST(SweepAggregate, AMeanOfValuesNearTheLargestDoubleIsFinite) {
  Experiment e = Make({}, 2);
  std::vector<RunResult> runs = {{0, RunSeed(e, 0), {{"x", 1.7e308}}, ""},
                                 {1, RunSeed(e, 1), {{"x", 1.7e308}}, ""}};
  absl::StatusOr<core::Document> d = Aggregate(e, runs);
  ASSERT_TRUE(d.ok()) << d.status();
  const std::string json = core::ToJson(*d);
  EXPECT_EQ(json.find("null"), std::string::npos) << json;
  EXPECT_NE(json.find("\"mean\":1.7e+308"), std::string::npos) << json;
}

TEST(SweepPartial, AManyShardGapIsNamedShortly) {
  Experiment e = Make({}, 1);
  absl::StatusOr<Partial> p = ParsePartial(
      PartialToJson({e, {1, kMaxShards}, *RunRuns(e, {0}, FakeFn(false), {})}),
      "one");
  ASSERT_TRUE(p.ok()) << p.status();
  absl::StatusOr<Merged> m = MergeParts({*p}, {"one"});
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.status().message().find("and 99989 more"), std::string::npos);
  EXPECT_LT(m.status().message().size(), 400u);
}

}  // namespace
}  // namespace perflab::sweep
