// Every scenario tells the truth: transient or overloaded runs say so,
// printed ceilings and notes are computed, sampling error is shown, and the
// case study's figures stand beside perflab's. Expected values come from
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

// ---- No transient or overloaded run is reported as steady.

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

// ---- The ceiling is the minimum over every limit.

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

TEST(KeepaliveFidelityTest, SafeColumnCountsTheNetworkDelay) {
  // Server idle clock starts one way before the client's; the request lands
  // one way after the send: safe needs server > client + 2 x one-way =
  // 3,000 + 200 = 3,200 ms. 3,050 is not safe and does fail; 3,250 never.
  core::Document doc = RunDoc(
      "keepalive-race",
      {"one_way_ms=100", "rates_per_s=1", "server_keepalive_ms=3050,3250"});
  const std::vector<core::Value> safe = Cells(doc, "rows", "safe");
  const std::vector<double> stale = Nums(doc, "rows", "stale_sends");
  ASSERT_EQ(safe.size(), 2u);
  EXPECT_FALSE(std::get<bool>(safe[0]));
  EXPECT_GT(stale[0], 0);
  EXPECT_TRUE(std::get<bool>(safe[1]));
  EXPECT_EQ(stale[1], 0);
}

TEST(KeepaliveFidelityTest, OnlyAReuseThatCrossesTheFinFails) {
  // 1 req/s, server 2 s, 0.5 ms one way: a reuse fails only when the idle
  // gap ends within 1 ms of the close, P ~ 1 ms x e^-2 /s = 1.4e-4 per
  // request: over 3,600 requests, a handful at most, not 20 %.
  core::Document doc = RunDoc(
      "keepalive-race", {"rates_per_s=0.2,1", "server_keepalive_ms=2000"});
  for (double pct : Nums(doc, "rows", "stale_pct")) EXPECT_LT(pct, 0.5);
  const core::Table* t = doc.FindTable("rows");
  ASSERT_NE(t, nullptr);
  EXPECT_GE(t->columns[0].decimals, 2);  // 0.05 req/s must not print 0.0
}

TEST(MmcFidelityTest, ServiceCvOnlyWithLognormalAndNoIntervalWhenUnstable) {
  absl::StatusOr<core::Document> bad =
      RunScenario("mmc", {"service_cv=0.5"}, kDefaultSeed);
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  core::Document unstable = RunDoc(
      "mmc", {"arrival_rate_per_s=5", "customers=5000", "warmup_customers=0"});
  EXPECT_EQ(Text(unstable, "stability"), "unstable");
  const core::Value* ci = testing_helpers::Get(unstable, "mean_wait_ci95_s");
  ASSERT_NE(ci, nullptr);
  EXPECT_TRUE(std::holds_alternative<std::monostate>(*ci));
}

TEST(LatencyMixtureFidelityTest, WarnsWhenTheTailHasFewSamples) {
  // 1,000 samples hold 1,000 x 0.001 = 1 above p99.9: it needs 10,000.
  core::Document few = RunDoc("latency-mixture", {"samples=1000"});
  EXPECT_TRUE(AnyNoteHas(few, "p99.9 rests on 1.0 samples"));
  core::Document enough = RunDoc("latency-mixture", {"samples=10000"});
  EXPECT_FALSE(AnyNoteHas(enough, "warning"));
}

TEST(HockeyStickFidelityTest, IntervalShownAndRunScalesWithOneOverOneMinusRho) {
  core::Document doc =
      RunDoc("hockey-stick", {"servers=1", "utilisations=0.5,0.8",
                              "customers=20000", "target_ci_pct=20"});
  const std::vector<double> n = Nums(doc, "rows", "customers");
  ASSERT_EQ(n.size(), 2u);
  EXPECT_EQ(n[0], 20000);
  EXPECT_EQ(n[1], 20000 * 6.25);  // (0.5 / 0.2)^2
  for (double ci : Nums(doc, "rows", "ci95_pct")) {
    EXPECT_GT(ci, 0);
    EXPECT_LE(ci, 20);
  }
}

TEST(ShapeTableTest, EveryScenarioWithACaseStudyFigurePrintsIt) {
  for (const char* name :
       {"coordinated-omission", "lock-contention", "keepalive-race", "cache"}) {
    core::Document doc = RunDoc(name, {});
    const core::Table* t = doc.FindTable("case_study");
    ASSERT_NE(t, nullptr) << name;
    EXPECT_FALSE(t->rows.empty()) << name;
  }
  // Lock contention: p90 before / after and the throughput gain.
  core::Document lock = RunDoc("lock-contention", {});
  const std::vector<double> cs = Nums(lock, "case_study", "case_study");
  ASSERT_EQ(cs.size(), 5u);
  EXPECT_EQ(cs[0], 4000);
  EXPECT_EQ(cs[4], 2);
  const std::vector<double> diff = Nums(lock, "case_study", "difference_pct");
  const std::vector<double> pl = Nums(lock, "case_study", "perflab");
  EXPECT_NEAR(diff[0], (pl[0] - 4000) / 4000 * 100, 1e-9);
}

}  // namespace
}  // namespace perflab::sim
