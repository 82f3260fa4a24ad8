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

}  // namespace
}  // namespace perflab::sim
