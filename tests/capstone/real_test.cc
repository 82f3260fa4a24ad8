// perflab capstone --real, quickly: baseline, + index, + cache run for real
// against a child `perflab orders-service` and composed by the model. The
// real throughput must rise at each step, and the composed table must order
// the steps the same way. Bounded to about 20 s (2 s closed loop per step).
#include <iostream>
#include <string>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "tools/capstone/calibration_io.h"
#include "tools/capstone/real_run.h"

namespace perflab::capstone {
namespace {

TEST(CapstoneReal, BaselineIndexCacheRiseForRealAndComposed) {
  auto steps = ParseSteps("baseline,index,cache");
  ASSERT_TRUE(steps.ok());
  auto file = ReadCalibrationFile(
      absl::StrCat(PERFLAB_SOURCE_DIR, "/fixtures/calibration/reference.json"));
  ASSERT_TRUE(file.ok()) << file.status();
  RealOptions o;
  o.steps = *steps;
  o.calibration = file->values;
  o.service_binary = PERFLAB_BINARY;
  // A fifth of the data (1,000 customers): the scan stays the bottleneck of
  // the baseline and the dataset is quick to generate. The calibration's
  // costs are for the full dataset, so only orderings are compared here.
  o.scale = 0.2;
  o.dataset = absl::StrCat(::testing::TempDir(), "perflab_real_test.sqlite");
  o.repeats = 1;
  o.warmup_s = 0.5;
  o.closed_s = 2;
  o.open_s = 1;
  o.wrk = false;
  auto c = RunReal(o);
  ASSERT_TRUE(c.ok()) << c.status();
  ASSERT_EQ(c->real.size(), 3u);
  ASSERT_EQ(c->composed.size(), 3u);
  // The index removes the scan: several times the throughput on both sides
  // (measured here ~4x real at this scale, ~16x composed; 2x leaves room for
  // a busy machine but not for a service that ignored --index). The cache
  // must rise on both sides; the composed rise is small (its misses still
  // pay N+1), so only the order is checked there.
  EXPECT_GT(c->real[1].rps, 2 * c->real[0].rps);
  EXPECT_GT(c->composed[1].rps, 2 * c->composed[0].rps);
  EXPECT_GT(c->real[2].rps, 1.5 * c->real[1].rps);
  EXPECT_GT(c->composed[2].rps, c->composed[1].rps);
  // N+1 without the cache: 1 + 20 + 60 statements per page (by hand).
  EXPECT_NEAR(c->real[0].queries_per_request, 81, 0.5);
  EXPECT_NEAR(c->real[1].queries_per_request, 81, 0.5);
  // Skewed ids over 1,000 customers: most pages repeat within the window.
  EXPECT_GT(c->real[2].cache_hit_ratio, 0.5);
  EXPECT_LT(c->real[2].queries_per_request, 81 * 0.5);
  for (const RealFigures& f : c->real) EXPECT_EQ(f.errors, 0);
  core::Document doc = ToRealDocument(*c, "reference");
  std::cout << core::Render(doc, core::Format::kTable);
  ASSERT_NE(doc.FindTable("difference"), nullptr);
  EXPECT_EQ(doc.FindTable("real")->rows.size(), 3u);
}

}  // namespace
}  // namespace perflab::capstone
