// Every scenario with a meter besides thread-pool and coordinated-omission
// (those are in fidelity_test.cc) runs its windows through the shared
// steady-state check (sim/steady_state.h) and says `steady` in JSON, with a
// warning note naming the reason and the knob. For each: a run that is steady,
// and one that is overloaded or starts in its transient, chosen by the
// arithmetic in the comments, flagged with the right reason.
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/sim/doc_helpers.h"

namespace perflab::sim {
namespace {

using testing_helpers::AnyNoteHas;
using testing_helpers::Cells;
using testing_helpers::Flag;
using testing_helpers::RunDoc;
using testing_helpers::Text;

bool Has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// Flagged: `steady` false, every listed part in the reasons, and a warning.
void ExpectFlagged(const core::Document& doc,
                   const std::vector<std::string>& parts) {
  EXPECT_FALSE(Flag(doc, "steady"));
  const std::string reasons = Text(doc, "steady_reasons");
  for (const std::string& part : parts) {
    EXPECT_TRUE(Has(reasons, part)) << part << " not in: " << reasons;
  }
  EXPECT_TRUE(AnyNoteHas(doc, "warning: not a steady result"));
}

TEST(SteadyScenariosTest, PoolStarvationBelowAndPastPoolOverHold) {
  // 10 connections / 0.05 s = 200 req/s. 100 and 150 req/s are below it
  // (utilisation 0.5 and 0.75); 250 req/s is past it.
  core::Document fine =
      RunDoc("pool-starvation", {"rates_per_s=100,150", "duration_s=60"});
  EXPECT_TRUE(Flag(fine, "steady"));
  EXPECT_FALSE(AnyNoteHas(fine, "warning"));
  core::Document over =
      RunDoc("pool-starvation", {"rates_per_s=100,250", "duration_s=60"});
  ExpectFlagged(over, {"offered 250/s", "reaches the capacity 200/s",
                       "lower rates_per_s"});
  EXPECT_FALSE(Has(Text(over, "steady_reasons"), "offered 100/s"));
  const std::vector<core::Value> row = Cells(over, "rows", "steady");
  ASSERT_EQ(row.size(), 2u);
  EXPECT_TRUE(std::get<bool>(row[0]));
  EXPECT_FALSE(std::get<bool>(row[1]));
}

TEST(SteadyScenariosTest, ClientPoolBelowAndPastPoolOverCallTime) {
  // 20 connections / 0.04 s = 500 calls/s: 250 below, 1,000 twice past it.
  EXPECT_TRUE(Flag(RunDoc("client-pool", {"rates_per_s=250"}), "steady"));
  ExpectFlagged(RunDoc("client-pool", {"rates_per_s=1000"}),
                {"offered 1000/s", "reaches the capacity 500/s"});
}

TEST(SteadyScenariosTest, LittlesLawWarmUpShorterThanThreeResponseTimes) {
  EXPECT_TRUE(Flag(RunDoc("littles-law", {"duration_s=10"}), "steady"));
  // 2 s in the system: the transient lasts 3 x 2 = 6 s, longer than the 1 s
  // warm-up and than 1 % of the 60 s window, so the check must object and
  // ask for a warm-up of at least 6 s.
  core::Document doc = RunDoc(
      "littles-law", {"rates_per_s=50", "service_ms=2000", "warmup_s=1"});
  ExpectFlagged(doc, {"50/s x 2000 ms", "raise warmup_s to at least 6"});
}

TEST(SteadyScenariosTest, LockContentionWithNoWarmUp) {
  EXPECT_TRUE(Flag(RunDoc("lock-contention", {"duration_s=60"}), "steady"));
  // In the path the lock serves 1 / 20 ms = 50 req/s, so 100 users see
  // W = 100 / 50 = 2 s: with no warm-up the window starts 3 W = 6 s inside
  // the transient (more than 1 % of the 60 s window).
  core::Document doc =
      RunDoc("lock-contention", {"warmup_s=0", "duration_s=60"});
  ExpectFlagged(doc, {"in request path", "warmup_s"});
}

TEST(SteadyScenariosTest, GcHeapWithNoWarmUpAndAShortWindow) {
  EXPECT_TRUE(Flag(RunDoc("gc-heap", {"duration_s=5"}), "steady"));
  // A closed loop of 32 clients has W >= 32 / X, and X is at most the
  // generator's 4 cores / 0.6594 ms = 6,066 req/s: W >= 5.3 ms, so 3 W >=
  // 15.8 ms, more than 1 % of a 0.5 s window and longer than no warm-up.
  core::Document doc =
      RunDoc("gc-heap", {"heaps_mib=768", "warmup_s=0", "duration_s=0.5"});
  ExpectFlagged(doc, {"768 MiB", "warmup_s"});
}

TEST(SteadyScenariosTest, MmcAndHockeyStickUseTheSameCheck) {
  // 4 servers x 1/s = 4/s of capacity against 3.6/s (default) or 5/s.
  EXPECT_TRUE(Flag(RunDoc("mmc", {"customers=20000"}), "steady"));
  core::Document over = RunDoc(
      "mmc", {"arrival_rate_per_s=5", "customers=5000", "warmup_customers=0"});
  ExpectFlagged(over, {"reaches the capacity 4/s", "arrival_rate_per_s"});
  core::Document hs = RunDoc(
      "hockey-stick",
      {"servers=1", "utilisations=0.5", "customers=20000", "target_ci_pct=20"});
  EXPECT_TRUE(Flag(hs, "steady"));
}

TEST(SteadyScenariosTest, HockeyStickBatchesAgainstTheAutocorrelationTime) {
  // M/M/1 waits at rho = 0.95 stay correlated over (2 + 5 rho - 4 rho^2 +
  // rho^3) / ((2 - rho)(1 - rho)^2) = 3.997 / 0.002625 = 1,523 customers.
  // 2,000 reference customers scale by (0.5 / 0.05)^2 = 100 to 200,000:
  // batches of 10,000 = 6.6 autocorrelation times, under 10: a warning.
  // Ten times the customers gives 66: no warning, and the note explains.
  core::Document few = RunDoc(
      "hockey-stick",
      {"servers=1", "utilisations=0.95", "customers=2000", "target_ci_pct=50"});
  EXPECT_NEAR(testing_helpers::Num(few, "batch_over_autocorrelation"), 6.566,
              0.01);
  EXPECT_TRUE(AnyNoteHas(few, "warning: the shortest batch is only 7"));
  core::Document enough =
      RunDoc("hockey-stick", {"servers=1", "utilisations=0.95",
                              "customers=20000", "target_ci_pct=50"});
  EXPECT_NEAR(testing_helpers::Num(enough, "batch_over_autocorrelation"), 65.66,
              0.1);
  EXPECT_TRUE(AnyNoteHas(enough, "is not bias from batches too short"));
}

TEST(SteadyScenariosTest, OrderServiceWarmUpAgainstItsResponseTime) {
  // Baseline: 32 clients at ~80 req/s, so W = 32 / 80 = 0.4 s and the check
  // wants a warm-up of at least 3 W = 1.2 s. The rig's 8 s covers it; none
  // does not.
  EXPECT_TRUE(Flag(RunDoc("order-service", {}), "steady"));
  ExpectFlagged(RunDoc("order-service", {"warmup_s=0"}),
                {"warm-up 0 s", "raise warmup_s"});
  // Open loop at 400 req/s against a baseline that serves ~80: overloaded.
  ExpectFlagged(RunDoc("order-service", {"loop=open", "rate_per_s=400"}),
                {"Little's Law does not hold"});
}

}  // namespace
}  // namespace perflab::sim
