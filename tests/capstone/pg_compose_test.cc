// capstone --real --db postgres's checks and composed side: the database
// name and the calibration's PostgreSQL costs refused in one line, the
// round trip and follow-up statement OnPostgres sets, and, composed end to
// end, the N+1 page paying 80 more round trips than the join.
#include "tools/capstone/pg_compose.h"

#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tools/capstone/real_run.h"
#include "tools/capstone/steps.h"

namespace perflab::capstone {
namespace {

using ::testing::HasSubstr;

TEST(PgCompose, TheDatabaseIsSqliteOrPostgres) {
  EXPECT_TRUE(CheckDb("sqlite").ok());
  EXPECT_TRUE(CheckDb("postgres").ok());
  const absl::Status s = CheckDb("mysql");
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "--db: got 'mysql'; accepted: sqlite, postgres");
  EXPECT_FALSE(CheckDb("").ok());
  EXPECT_FALSE(CheckDb("Postgres").ok());
}

TEST(PgCompose, ACalibrationWithoutPostgresCostsIsRefusedWithItsReason) {
  CalibrationFile f;
  absl::Status s = CheckPostgresCalibration(f, "old.json");
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("'old.json'"));
  EXPECT_THAT(s.message(), HasSubstr("written before"));
  EXPECT_THAT(s.message(), HasSubstr("accepted:"));
  f.postgres_absent = "not measured: bench_pg: install postgresql";
  s = CheckPostgresCalibration(f, "new.json");
  EXPECT_THAT(s.message(), HasSubstr("(not measured: bench_pg: install "
                                     "postgresql)"));
  f.postgres_absent.clear();
  f.postgres_measured = true;
  EXPECT_TRUE(CheckPostgresCalibration(f, "new.json").ok());
}

TEST(PgCompose, EveryStatementPaysTheRoundTripAndTheRestIsCpu) {
  sim::Calibration c;
  c.pg_round_trip_ms = 0.05;
  c.pg_item_statement_us = 70;
  const sim::Calibration p = OnPostgres(c);
  EXPECT_DOUBLE_EQ(p.db_round_trip_ms, 0.05);
  EXPECT_DOUBLE_EQ(p.item_statement_us, 70 - 50);
  // Only those two change.
  EXPECT_DOUBLE_EQ(p.join_index_us, c.join_index_us);
  EXPECT_DOUBLE_EQ(p.orders_query_index_us, c.orders_query_index_us);
  // A round trip measured above the all-in statement (noise): no negative
  // CPU.
  c.pg_round_trip_ms = 0.08;
  c.pg_item_statement_us = 60;
  EXPECT_DOUBLE_EQ(OnPostgres(c).item_statement_us, 0);
}

// One client, no spread, no scheduler, the page's first statement as dear
// as the join and no CPU beyond the round trip in a follow-up statement:
// the N+1 page (index step) and the join page (join step) then differ by
// exactly the 80 follow-up statements' round trips, 80 x 0.05 ms = 4 ms, on
// PostgreSQL, and by nothing on SQLite (round trip 0, statement CPU 0).
TEST(PgCompose, TheComposedNPlus1PaysEightyMoreRoundTripsThanTheJoin) {
  RealOptions o = QuickRealOptions({});
  absl::StatusOr<std::vector<const Step*>> steps = ParseSteps("index,join");
  ASSERT_TRUE(steps.ok()) << steps.status();
  o.steps = *steps;
  o.clients = 1;
  o.warmup_s = 0.2;
  o.closed_s = 2;
  o.open_s = 0.5;
  o.open_rate_per_s = 10;
  sim::Calibration& c = o.calibration;
  c.work_cv = 0;
  c.sched_quantum_us = 0;
  c.join_index_us = c.orders_query_index_us = 100;
  c.item_statement_us = 0;
  c.pg_round_trip_ms = 0.05;
  c.pg_item_statement_us = 50;  // the round trip and nothing more
  for (const char* db : {"postgres", "sqlite"}) {
    o.db = db;
    absl::StatusOr<std::vector<RealFigures>> f = ComposeScaled(o);
    ASSERT_TRUE(f.ok()) << f.status();
    ASSERT_EQ(f->size(), 3u);
    const RealFigures& nplus1 = (*f)[1];
    const RealFigures& join = (*f)[2];
    EXPECT_DOUBLE_EQ(nplus1.queries_per_request, 81) << db;
    EXPECT_DOUBLE_EQ(join.queries_per_request, 1) << db;
    const double expected_ms = o.db == "postgres" ? 80 * 0.05 : 0;
    EXPECT_NEAR(nplus1.avg_ms - join.avg_ms, expected_ms, 1e-6) << db;
  }
}

}  // namespace
}  // namespace perflab::capstone
