#include "tools/history/run.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

#include "tests/history/test_support.h"
#include "tools/history/store.h"

namespace perflab::history {
namespace {

using testing::Dump;
using testing::ScriptedEnv;

RunOptions Options() {
  RunOptions o;
  o.filter = "BM_";
  o.reps = 3;
  return o;
}

absl::StatusOr<RunSummary> RunInto(const std::string& db, ScriptedEnv& env,
                                   std::ostream& progress,
                                   const RunOptions& o = Options()) {
  absl::StatusOr<Store> store = Store::Open(db, true);
  if (!store.ok()) return store.status();
  return RunHistory(*store, env, "A..B", o, progress);
}

TEST(RunHistory, StoresEveryRepetitionAndIsIdempotent) {
  const testing::TempDir tmp;
  const std::string db = tmp.path() + "/h.sqlite";
  ScriptedEnv env(6);
  std::ostringstream progress;
  absl::StatusOr<RunSummary> first = RunInto(db, env, progress);
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_EQ(first->measured, 6u);
  EXPECT_EQ(first->samples, 6u * 3 * 2);  // commits x reps x benchmarks
  const std::vector<std::string> rows = Dump(db);
  // 1 machine + 6 commits + 6 runs + 36 samples.
  EXPECT_EQ(rows.size(), 1u + 6 + 6 + 36);
  EXPECT_NE(progress.str().find("commit 1 of 6"), std::string::npos);
  EXPECT_NE(progress.str().find("commit 6 of 6"), std::string::npos);
  // One commit took 40 s, so the other five (commit 2 among them) ~200 s.
  EXPECT_NE(
      progress.str().find("commit 2 of 6 " + ScriptedEnv::Sha(1).substr(0, 10) +
                          " commit 1, elapsed 40 s, about 200 s left"),
      std::string::npos)
      << progress.str();

  env.measured.clear();
  absl::StatusOr<RunSummary> second = RunInto(db, env, progress);
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_EQ(second->skipped, 6u);
  EXPECT_EQ(second->measured, 0u);
  EXPECT_TRUE(env.measured.empty());  // nothing built again
  EXPECT_EQ(Dump(db), rows);
}

TEST(RunHistory, AKilledRunResumesToTheCompleteTable) {
  const testing::TempDir tmp;
  const std::string& dir = tmp.path();
  ScriptedEnv whole(6);
  std::ostringstream progress;
  ASSERT_TRUE(RunInto(dir + "/whole.sqlite", whole, progress).ok());

  ScriptedEnv killed(6);
  killed.die_at = 3;  // the process dies while commit 3 is being measured
  EXPECT_FALSE(RunInto(dir + "/resumed.sqlite", killed, progress).ok());
  Store partial = *Store::Open(dir + "/resumed.sqlite", false);
  const int64_t m = *partial.MachineId(killed.ThisMachine());
  EXPECT_EQ(partial.Load(m, "real_time")->commits.size(), 3u);

  ScriptedEnv rerun(6);
  absl::StatusOr<RunSummary> s =
      RunInto(dir + "/resumed.sqlite", rerun, progress);
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->skipped, 3u);
  EXPECT_EQ(rerun.measured, (std::vector<int>{3, 4, 5}));
  EXPECT_EQ(Dump(dir + "/resumed.sqlite"), Dump(dir + "/whole.sqlite"));
}

TEST(RunHistory, ACommitThatDoesNotBuildIsRecordedAndSkipped) {
  const testing::TempDir tmp;
  const std::string db = tmp.path() + "/h.sqlite";
  ScriptedEnv env(5);
  env.broken = {2};
  std::ostringstream progress;
  absl::StatusOr<RunSummary> s = RunInto(db, env, progress);
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->build_failed, 1u);
  EXPECT_EQ(s->measured, 4u);
  Store store = *Store::Open(db, false);
  History h = *store.Load(*store.MachineId(env.ThisMachine()), "real_time");
  ASSERT_EQ(h.commits.size(), 4u);
  EXPECT_EQ(h.commits[2].sha, ScriptedEnv::Sha(3));
  env.measured.clear();
  ASSERT_TRUE(RunInto(db, env, progress).ok());
  EXPECT_TRUE(env.measured.empty());  // the broken one is not retried
}

TEST(RunHistory, AFailureOutsideTheCommitIsStoredAsSuchAndRetried) {
  const testing::TempDir tmp;
  const std::string db = tmp.path() + "/h.sqlite";
  ScriptedEnv env(4);
  env.outside = {1};
  std::ostringstream progress;
  absl::StatusOr<RunSummary> s = RunInto(db, env, progress);
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->failed_outside, 1u);
  EXPECT_EQ(s->build_failed, 0u);
  EXPECT_EQ(s->measured, 3u);
  EXPECT_NE(progress.str().find("failed outside the commit"), std::string::npos)
      << progress.str();
  // Stored apart from "does not build" (built = 2), with no sample.
  const std::vector<std::string> rows = Dump(db);
  const std::string run1 = ScriptedEnv::Sha(1) + "|1|BM_|0|2|";
  EXPECT_NE(std::find(rows.begin(), rows.end(), run1), rows.end());
  {
    Store store = *Store::Open(db, false);
    const RunKey key{*store.MachineId(env.ThisMachine()), "BM_", false};
    EXPECT_EQ(*store.OutsideFailures(key), 1);
    EXPECT_EQ(store.Load(key.machine, "real_time")->commits.size(), 3u);
  }

  // The next run measures that commit, and only it, and replaces the row.
  env.outside.clear();
  env.measured.clear();
  absl::StatusOr<RunSummary> again = RunInto(db, env, progress);
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(env.measured, std::vector<int>{1});
  EXPECT_EQ(again->measured, 1u);
  EXPECT_EQ(again->skipped, 3u);
  ScriptedEnv whole(4);
  const testing::TempDir other_tmp;
  const std::string other = other_tmp.path() + "/whole.sqlite";
  ASSERT_TRUE(RunInto(other, whole, progress).ok());
  EXPECT_EQ(Dump(db), Dump(other));
}

TEST(RunHistory, AFilterMatchingNothingStoresNothing) {
  const testing::TempDir tmp;
  const std::string db = tmp.path() + "/h.sqlite";
  ScriptedEnv env(3);
  env.no_match = true;
  std::ostringstream progress;
  absl::StatusOr<RunSummary> s = RunInto(db, env, progress);
  ASSERT_EQ(s.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.status().message().find("--filter 'BM_'"), std::string::npos);
  // Only the machine row: no commit, run or sample.
  EXPECT_EQ(Dump(db).size(), 1u);
}

TEST(RunHistory, EveryKthCommitKeepsTheNewest) {
  const testing::TempDir tmp;
  const std::string db = tmp.path() + "/h.sqlite";
  ScriptedEnv env(7);
  RunOptions o = Options();
  o.every = 3;
  std::ostringstream progress;
  ASSERT_TRUE(RunInto(db, env, progress, o).ok());
  EXPECT_EQ(env.measured, (std::vector<int>{0, 3, 6}));
}

TEST(ParseSamples, ReadsRepetitionsAndCounters) {
  absl::StatusOr<std::vector<Sample>> s = ParseSamples(
      R"({"benchmarks": [{"name": "BM_X/8", "run_name": "BM_X/8",
          "run_type": "iteration", "repetition_index": 2, "real_time": 12.5,
          "cpu_time": 11, "time_unit": "us", "hits": 3},
         {"name": "BM_X/8_median", "run_name": "BM_X/8",
          "run_type": "aggregate", "real_time": 1}]})",
      false);
  ASSERT_TRUE(s.ok()) << s.status();
  ASSERT_EQ(s->size(), 1u);
  EXPECT_EQ((*s)[0].benchmark, "BM_X/8");
  EXPECT_EQ((*s)[0].repetition, 2);
  EXPECT_EQ((*s)[0].real_time, 12.5);
  EXPECT_EQ((*s)[0].unit, "us");
  EXPECT_EQ((*s)[0].counters, R"({"hits":3.0})");
  EXPECT_FALSE(ParseSamples("[]", false).ok());
  EXPECT_FALSE(ParseSamples(R"({"benchmarks": [{"name": "BM_X"}]})", true)
                   .ok());  // no instructions in an --instructions run
}

}  // namespace
}  // namespace perflab::history
