// Issue 13: every scenario tells the truth. Transient or overloaded runs say
// so, printed ceilings and notes are computed, sampling error is shown, and
// the case study's figures stand beside perflab's. Expected values come from
// arithmetic in the comments, not from the code's output.
#include <cmath>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/sim/doc_helpers.h"

namespace perflab::sim {
namespace {

using testing_helpers::AnyNoteHas;
using testing_helpers::Cells;
using testing_helpers::Flag;
using testing_helpers::Num;
using testing_helpers::Nums;
using testing_helpers::RunDoc;
using testing_helpers::Text;

// ---- item 1: no transient or overloaded run is reported as steady.

TEST(SteadyTest, ThreadPoolDefaultIsSteady) {
  core::Document doc = RunDoc("thread-pool", {"warmup_s=2", "duration_s=10"});
  EXPECT_TRUE(Flag(doc, "steady"));
}

TEST(SteadyTest, TenThousandClientsBehindADbPoolAreATransient) {
  // Ceiling 10 / 0.05 s = 200 req/s, so 10,000 clients need 50 s each: a 5 s
  // warm-up is one tenth of one response time.
  core::Document doc =
      RunDoc("thread-pool",
             {"threads=2000", "db_pool=10", "clients=10000", "duration_s=30"});
  EXPECT_FALSE(Flag(doc, "steady"));
  EXPECT_NE(Text(doc, "steady_reasons").find("warmup_s"), std::string::npos);
  EXPECT_TRUE(AnyNoteHas(doc, "warning: not a steady result"));
}

TEST(SteadyTest, OpenLoadPastTheCeilingIsUnstable) {
  // 200 threads / 50 ms = 4,000 req/s against 5,000 offered.
  core::Document doc = RunDoc(
      "thread-pool", {"load=poisson", "rate_per_s=5000", "duration_s=10"});
  EXPECT_FALSE(Flag(doc, "steady"));
  EXPECT_NE(Text(doc, "steady_reasons").find("rate_per_s"), std::string::npos);
  core::Document below = RunDoc(
      "thread-pool", {"load=poisson", "rate_per_s=3000", "duration_s=10"});
  EXPECT_TRUE(Flag(below, "steady"));
}

// ---- item 2: the ceiling is the minimum over every limit.

TEST(CeilingTest, FourHundredThreadsAreCpuBound) {
  // threads / time = 400 / 0.05 = 8,000; cores / CPU = 12 / 0.002 = 6,000;
  // clients / time = 400 / 0.05 = 8,000.
  core::Document doc =
      RunDoc("thread-pool", {"threads=400", "warmup_s=2", "duration_s=5"});
  EXPECT_DOUBLE_EQ(Num(doc, "ceiling_per_s"), 6000);
  EXPECT_NE(Text(doc, "binding_limit").find("cores"), std::string::npos);
  EXPECT_NEAR(Num(doc, "throughput_per_s"), 6000, 0.03 * 6000);
}

TEST(CeilingTest, DbHoldCountsInTheThreadsTime) {
  // Each thread holds its slot 50 ms + 50 ms: 200 / 0.1 = 2,000 req/s; the
  // pool of 1,000 allows 1,000 / 0.05 = 20,000.
  core::Document doc =
      RunDoc("thread-pool", {"db_pool=1000", "warmup_s=2", "duration_s=5"});
  EXPECT_DOUBLE_EQ(Num(doc, "ceiling_per_s"), 2000);
  EXPECT_NEAR(Num(doc, "throughput_per_s"), 2000, 0.03 * 2000);
  // No wait reached the 30 s timeout, so no note may say timeouts fire.
  EXPECT_FALSE(AnyNoteHas(doc, "timeout."));
  EXPECT_TRUE(AnyNoteHas(doc, "no timeouts"));
}

TEST(CeilingTest, TimeoutNoteOnlyWhenTimeoutsFire) {
  // 2,000 threads into a pool of 10 (200 req/s): 2,000 in flight wait
  // ~ 2,000 / 200 = 10 s, so a 1 s timeout fires.
  core::Document doc = RunDoc(
      "thread-pool", {"threads=2000", "clients=2000", "db_pool=10",
                      "db_timeout_ms=1000", "warmup_s=5", "duration_s=5"});
  EXPECT_TRUE(AnyNoteHas(doc, "waits reached the 1000 ms timeout"));
}

TEST(CoordinatedOmissionFidelityTest, SaturatedLoopIsNotBlamedOnTheFreeze) {
  // 20 ms service against a 10 ms schedule: at most 60 / 0.02 = 3,000 sends
  // in 60 s, so 6,000 - 3,000 = 3,000 of the unsent are saturation.
  core::Document doc = RunDoc("coordinated-omission", {"service_ms=20"});
  EXPECT_FALSE(Flag(doc, "steady"));
  EXPECT_EQ(Num(doc, "never_issued_saturation"), 3000);
  core::Document fine = RunDoc("coordinated-omission", {});
  EXPECT_TRUE(Flag(fine, "steady"));
  EXPECT_EQ(Num(fine, "never_issued_saturation"), 0);
}

TEST(CoordinatedOmissionFidelityTest, CorrectedP99ExactAndFromHistogram) {
  // The corrected samples are the open loop's: 5,000 ms of freeze seen at
  // 10 ms steps, p99 of 6,000 is rank 5,940 -> the 60th largest: 5,005 -
  // 59 x 10 - 10 (the last slot before the freeze ends) = 4,405 ms.
  core::Document doc = RunDoc("coordinated-omission", {});
  EXPECT_DOUBLE_EQ(Num(doc, "closed_corrected_exact_p99_ms"), 4405);
  // The histogram keeps 3 significant digits: within 0.1 %, not equal.
  EXPECT_NEAR(Num(doc, "closed_corrected_p99_ms"), 4405, 4.405 * 1.0);
  EXPECT_TRUE(AnyNoteHas(doc, "histogram"));
}

TEST(LittlesLawFidelityTest, ErlangCPoolForAStatedWaitProbability) {
  // 250 req/s x 60 ms = 15 Erlangs. Erlang C by hand (python, exact sums):
  // C(19) = 0.244, C(20) = 0.160, C(22) = 0.0633, C(23) = 0.0380.
  core::Document doc = RunDoc("littles-law", {"duration_s=5"});
  EXPECT_EQ(Num(doc, "pool_minimum"), 15);
  EXPECT_EQ(Num(doc, "pool_erlang_c"), 20);
  EXPECT_NEAR(Num(doc, "pool_erlang_c_wait_probability"), 0.1604, 5e-4);
  EXPECT_EQ(Num(doc, "pool_wait_probability_at_minimum"), 1);  // c = A
  core::Document strict =
      RunDoc("littles-law", {"duration_s=5", "pool_wait_probability=0.05"});
  EXPECT_EQ(Num(strict, "pool_erlang_c"), 23);
  EXPECT_EQ(doc.title().find("three"), std::string::npos);
}

TEST(CacheFidelityTest, NoteQuotesTheFormulaAndHitsAreSteady) {
  core::Document doc = RunDoc("cache", {"sizes=5000", "lookups=50000"});
  // (150 / 5000)^(1/3) = 0.3107.
  EXPECT_NEAR(Num(doc, "skewed_hot_share_formula"), 0.3107, 5e-4);
  EXPECT_NEAR(Num(doc, "skewed_hot_share_measured"), 0.3107, 0.01);
  EXPECT_TRUE(AnyNoteHas(doc, "12.5 %"));
  EXPECT_FALSE(AnyNoteHas(doc, "about half the traffic lands on ~3 %"));
  // Warm hit ratios exceed cold ones: a cold cache misses every first touch.
  const std::vector<double> warm = Nums(doc, "rows", "hit_ratio");
  const std::vector<double> cold = Nums(doc, "rows", "cold_hit_ratio");
  ASSERT_EQ(warm.size(), 3u);
  for (size_t i = 0; i < warm.size(); ++i) EXPECT_GT(warm[i], cold[i]);
  // Step 8: every key refreshed about once per TTL, 5,000 misses per 30 s at
  // 5,293 req/s: 1 - 5000 / (30 x 5293) = 96.9 %.
  const std::vector<double> pl = Nums(doc, "case_study", "perflab");
  ASSERT_EQ(pl.size(), 1u);
  EXPECT_NEAR(pl[0], 96.9, 0.3);
}

}  // namespace
}  // namespace perflab::sim
