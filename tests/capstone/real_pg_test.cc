// perflab capstone --real --db postgres, quickly: the baseline and the index
// step run for real against a child `perflab orders-service --db postgres`
// (its own throwaway cluster, a libpq pool) and composed with PostgreSQL's
// round trip. Each page is 81 statements on both sides, PostgreSQL's server
// processes did work the real CPU counts and the table shows apart. Where the
// server binaries are absent the binary exits 77 (ctest's SKIP_RETURN_CODE)
// with the line that names the package.
#include <iostream>
#include <string>

#include "absl/strings/str_cat.h"
#include "bench/order_service/pg_cluster.h"
#include "gtest/gtest.h"
#include "tests/temp_dir.h"
#include "tools/calibration/calibration_io.h"
#include "tools/capstone/real_run.h"
#include "tools/capstone/steps.h"

namespace perflab::capstone {
namespace {

TEST(CapstoneRealPg, StepsRunOnPostgresWithItsCpuCounted) {
  auto steps = ParseSteps("index");
  ASSERT_TRUE(steps.ok()) << steps.status();
  auto file = ReadCalibrationFile(
      absl::StrCat(PERFLAB_SOURCE_DIR,
                   "/fixtures/calibration/reference-xeon-2vcpu-2026-12.json"));
  ASSERT_TRUE(file.ok()) << file.status();
  RealOptions o;
  o.steps = *steps;
  o.calibration = file->values;
  // Stated here, not measured: the test checks the plumbing, not the fit.
  o.calibration.pg_round_trip_ms = 0.05;
  o.calibration.pg_item_statement_us = 70;
  o.db = "postgres";
  o.service_binary = PERFLAB_BINARY;
  o.scale = 0.2;
  const perflab::testing::TempDir tmp;
  o.dataset = tmp.File("perflab_real_pg_test.sqlite");
  o.repeats = 1;
  o.warmup_s = 0.5;
  o.closed_s = 2;
  o.open_s = 1;
  o.wrk = false;
  auto c = RunReal(o);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->db, "postgres");
  ASSERT_EQ(c->real.size(), 2u);
  ASSERT_EQ(c->composed.size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    const RealFigures& r = c->real[i];
    const RealFigures& m = c->composed[i];
    // N+1 at both steps: the newest 20 orders, 20 + 60 follow-ups.
    EXPECT_NEAR(r.queries_per_request, 81, 0.5) << i;
    EXPECT_NEAR(m.queries_per_request, 81, 0.5) << i;
    // The backends ran those statements: their CPU is counted, and is part
    // of the whole.
    EXPECT_GT(r.db_cpu_cores, 0) << i;
    EXPECT_GT(r.cpu_cores, r.db_cpu_cores) << i;
    EXPECT_GT(m.db_cpu_cores, 0) << i;
    EXPECT_EQ(r.errors, 0) << i;
  }
  core::Document doc = ToRealDocument(*c, "reference + stated pg");
  std::cout << core::Render(doc, core::Format::kTable);
  const core::Table* db = doc.FindTable("database");
  ASSERT_NE(db, nullptr);
  EXPECT_EQ(db->rows.size(), 2u);
}

}  // namespace
}  // namespace perflab::capstone
