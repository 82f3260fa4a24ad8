// The tables scenarios add for the plots (sim/scenarios/internal/plot_tables.h
// and the pool-starvation timeline), with expected values worked out by hand.
#include "sim/scenarios/internal/plot_tables.h"

#include <string>
#include <vector>

#include "core/document.h"
#include "gtest/gtest.h"
#include "sim/scenarios/scenario.h"

namespace perflab::sim {
namespace {

double Cell(const core::Table& t, size_t row, size_t col) {
  return core::AsDouble(t.rows.at(row).at(col));
}

// The row whose first cell is `first` (a percentile or a rate).
size_t RowOf(const core::Table& t, double first) {
  for (size_t r = 0; r < t.rows.size(); ++r) {
    if (Cell(t, r, 0) == first) return r;
  }
  ADD_FAILURE() << "no row " << first;
  return 0;
}

TEST(PlotTables, SpectrumIsNearestRankPerSeries) {
  // 1, 2, ..., 100 ms and the same doubled: nearest rank of p is ceil(p) ms.
  LatencyRecorder a, b;
  for (int i = 1; i <= 100; ++i) {
    a.Record(i * kMs);
    b.Record(2 * kMs * i);
  }
  core::Document doc("t");
  AddSpectrumTable(doc, {{"a", &a}, {"b", &b}});
  const core::Table* t = doc.FindTable("spectrum");
  ASSERT_NE(t, nullptr);
  ASSERT_EQ(t->columns.size(), 3u);
  EXPECT_EQ(t->columns[1].key, "a_ms");
  EXPECT_EQ(t->columns[2].key, "b_ms");
  EXPECT_DOUBLE_EQ(Cell(*t, RowOf(*t, 90), 1), 90);
  EXPECT_DOUBLE_EQ(Cell(*t, RowOf(*t, 90), 2), 180);
  EXPECT_DOUBLE_EQ(Cell(*t, RowOf(*t, 99.5), 1), 100);  // ceil(99.5)
  EXPECT_DOUBLE_EQ(Cell(*t, RowOf(*t, 10), 1), 10);
  EXPECT_DOUBLE_EQ(Cell(*t, RowOf(*t, 100), 2), 200);
}

TEST(PlotTables, LogHistogramKeepsEmptyBinsBetweenModes) {
  // One bin per decade: 1.5 and 2 ms in [1, 10), nothing in [10, 100), 150 ms
  // in [100, 1000).
  LatencyRecorder r;
  r.Record(1500 * kUs);
  r.Record(2 * kMs);
  r.Record(150 * kMs);
  core::Document doc("t");
  AddLogHistogramTable(doc, r, 1);
  const core::Table* t = doc.FindTable("histogram");
  ASSERT_NE(t, nullptr);
  ASSERT_EQ(t->rows.size(), 3u);
  EXPECT_DOUBLE_EQ(Cell(*t, 0, 0), 1);
  EXPECT_DOUBLE_EQ(Cell(*t, 0, 1), 10);
  EXPECT_DOUBLE_EQ(Cell(*t, 0, 2), 2);
  EXPECT_DOUBLE_EQ(Cell(*t, 1, 2), 0);
  EXPECT_DOUBLE_EQ(Cell(*t, 2, 0), 100);
  EXPECT_DOUBLE_EQ(Cell(*t, 2, 2), 1);
}

TEST(PlotTables, LatencyMixtureHistogramCountsEverySample) {
  absl::StatusOr<core::Document> doc =
      RunScenario("latency-mixture", {"samples=20000"}, kDefaultSeed);
  ASSERT_TRUE(doc.ok()) << doc.status();
  const core::Table* t = doc->FindTable("histogram");
  ASSERT_NE(t, nullptr);
  double total = 0;
  for (size_t r = 0; r < t->rows.size(); ++r) total += Cell(*t, r, 2);
  EXPECT_DOUBLE_EQ(total, 20000);
}

TEST(PlotTables, PoolStarvationTimelineGrowsByTheExcess) {
  // Constant arrivals at 250/s against 10 connections held 50 ms (200/s):
  // connection i (i = 1..10) is taken at 4 i ms and never idles, so by t it
  // finished floor((t - 4 i ms) / 50 ms) = 200 t / 10 - 1 holds: 200 t - 10
  // served, 10 in service, 250 t arrived (one fewer if the arrival at t comes
  // after the sample): pending = 50 t, give or take one. A request arriving at
  // a waits ~ a / 4 s, so the first 30 s timeout fires near a = 120 s, at t =
  // 150 s; from then on the queue holds the last 30 s of arrivals, 7,500.
  absl::StatusOr<core::Document> doc = RunScenario(
      "pool-starvation",
      {"rates_per_s=250", "arrivals=constant", "timeline_s=30"}, kDefaultSeed);
  ASSERT_TRUE(doc.ok()) << doc.status();
  const core::Table* t = doc->FindTable("timeline");
  ASSERT_NE(t, nullptr);
  ASSERT_EQ(t->rows.size(), 6u);  // 180 s / 30 s
  EXPECT_DOUBLE_EQ(Cell(*t, 0, 1), 30);
  EXPECT_NEAR(Cell(*t, 0, 2), 50 * 30, 1);
  EXPECT_NEAR(Cell(*t, 2, 2), 50 * 90, 1);
  EXPECT_DOUBLE_EQ(Cell(*t, 3, 3), 0);  // t = 120 s: no timeout yet
  EXPECT_NEAR(Cell(*t, 5, 2), 7500, 2);
  EXPECT_GT(Cell(*t, 5, 3), 0);
}

TEST(PlotTables, PoolStarvationHasNoTimelineByDefault) {
  absl::StatusOr<core::Document> doc =
      RunScenario("pool-starvation", {}, kDefaultSeed);
  ASSERT_TRUE(doc.ok()) << doc.status();
  EXPECT_EQ(doc->FindTable("timeline"), nullptr);
}

}  // namespace
}  // namespace perflab::sim
