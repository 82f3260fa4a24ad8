#include "bench/lab/dataset.h"

#include <filesystem>
#include <fstream>

#include "bench/lab/sqlite_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/lab/test_db.h"

namespace perflab::lab {
namespace {

using ::testing::HasSubstr;
using testing::SmallDatabase;
using testing::TempPath;

// A digest of every row, so "same seed -> same rows" is checked on content.
uint64_t Digest(const std::string& path) {
  auto db = OpenDatabase(path, true);
  EXPECT_TRUE(db.ok());
  uint64_t h = 1469598103934665603ULL;
  for (const char* sql :
       {"SELECT id, customer_id, status, total, created_at FROM orders ORDER "
        "BY id",
        "SELECT id, order_id, product_id, qty, price FROM order_items ORDER BY "
        "id",
        "SELECT id, name FROM products ORDER BY id"}) {
    auto stmt = Prepare(db->get(), sql);
    EXPECT_TRUE(stmt.ok());
    while (sqlite3_step(stmt->get()) == SQLITE_ROW) {
      for (int c = 0; c < sqlite3_column_count(stmt->get()); ++c) {
        const unsigned char* t = sqlite3_column_text(stmt->get(), c);
        for (; t != nullptr && *t != 0; ++t) h = (h ^ *t) * 1099511628211ULL;
        h = (h ^ 0xff) * 1099511628211ULL;
      }
    }
  }
  return h;
}

TEST(DatasetTest, ShapeOfTheCaseStudy) {
  auto shape = ShapeFor(DatasetOptions{});
  ASSERT_TRUE(shape.ok());
  EXPECT_EQ(shape->customers, 5000);
  EXPECT_EQ(shape->products, 2000);
  EXPECT_EQ(shape->orders, 200000);
  EXPECT_EQ(shape->order_items, 600000);
  auto tenth = ShapeFor(DatasetOptions{.scale = 0.1});
  ASSERT_TRUE(tenth.ok());
  EXPECT_EQ(tenth->orders, 20000);
}

TEST(DatasetTest, RejectsBadScale) {
  for (double bad : {0.0, -1.0, 11.0, std::nan("")}) {
    auto shape = ShapeFor(DatasetOptions{.scale = bad});
    EXPECT_EQ(shape.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(shape.status().ToString(), HasSubstr("--scale"));
  }
}

TEST(DatasetTest, BuiltFilePassesTheCheck) {
  EXPECT_TRUE(
      CheckDataset(SmallDatabase(), {.scale = testing::kTestScale}).ok());
}

TEST(DatasetTest, SameSeedSameRowsOtherSeedOtherRows) {
  std::string a = TempPath("seed_a.sqlite"), b = TempPath("seed_b.sqlite");
  ASSERT_TRUE(BuildDataset(a, {.scale = 0.01, .seed = 7}).ok());
  ASSERT_TRUE(BuildDataset(b, {.scale = 0.01, .seed = 7}).ok());
  EXPECT_EQ(Digest(a), Digest(b));
  ASSERT_TRUE(BuildDataset(b, {.scale = 0.01, .seed = 8}).ok());
  EXPECT_NE(Digest(a), Digest(b));
}

TEST(DatasetTest, CheckNamesTheProblem) {
  std::string path = TempPath("check.sqlite");
  std::filesystem::remove(path);
  EXPECT_EQ(CheckDataset(path, {.scale = 0.01}).code(),
            absl::StatusCode::kNotFound);
  ASSERT_TRUE(BuildDataset(path, {.scale = 0.01}).ok());
  // Another scale, seed or index choice is a different database.
  EXPECT_THAT(CheckDataset(path, {.scale = 0.02}).ToString(),
              HasSubstr("meta 'scale'"));
  EXPECT_THAT(CheckDataset(path, {.scale = 0.01, .seed = 1}).ToString(),
              HasSubstr("meta 'seed'"));
  EXPECT_THAT(
      CheckDataset(path, {.scale = 0.01, .customer_index = false}).ToString(),
      HasSubstr("ix_orders_cust"));
  // Rows deleted behind the meta table's back.
  {
    auto db = OpenDatabase(path, false);
    ASSERT_TRUE(db.ok());
    ASSERT_TRUE(Exec(db->get(), "DELETE FROM order_items WHERE id = 5").ok());
  }
  EXPECT_THAT(CheckDataset(path, {.scale = 0.01}).ToString(),
              HasSubstr("order_items has 5999 rows, expected 6000"));
}

TEST(DatasetTest, CheckRejectsAnotherColumnShape) {
  std::string path = TempPath("columns.sqlite");
  ASSERT_TRUE(BuildDataset(path, {.scale = 0.01}).ok());
  {
    auto db = OpenDatabase(path, false);
    ASSERT_TRUE(db.ok());
    ASSERT_TRUE(
        Exec(db->get(), "ALTER TABLE orders ADD COLUMN note TEXT").ok());
  }
  EXPECT_THAT(CheckDataset(path, {.scale = 0.01}).ToString(),
              HasSubstr("table orders"));
}

TEST(DatasetTest, FortyOrdersPerCustomerSpreadOverTime) {
  auto db = OpenDatabase(SmallDatabase(), true);
  ASSERT_TRUE(db.ok());
  auto stmt = Prepare(db->get(),
                      "SELECT min(n), max(n) FROM (SELECT count(*) AS n FROM "
                      "orders GROUP BY customer_id)");
  ASSERT_TRUE(stmt.ok());
  ASSERT_EQ(sqlite3_step(stmt->get()), SQLITE_ROW);
  EXPECT_EQ(sqlite3_column_int64(stmt->get(), 0), 40);
  EXPECT_EQ(sqlite3_column_int64(stmt->get(), 1), 40);
  auto span = Prepare(db->get(),
                      "SELECT max(created_at) - min(created_at), "
                      "count(DISTINCT created_at) FROM orders");
  ASSERT_TRUE(span.ok());
  ASSERT_EQ(sqlite3_step(span->get()), SQLITE_ROW);
  EXPECT_GT(sqlite3_column_int64(span->get(), 0), 9'000'000);  // ~116 days
  EXPECT_GT(sqlite3_column_int64(span->get(), 1), 3900);       // of 4,000
}

TEST(DatasetTest, EnsureRebuildsATruncatedFile) {
  std::string path = TempPath("truncated.sqlite");
  ASSERT_TRUE(BuildDataset(path, {.scale = 0.01}).ok());
  auto size = std::filesystem::file_size(path);
  std::filesystem::resize_file(path, size / 2);
  absl::Status check = CheckDataset(path, {.scale = 0.01});
  EXPECT_EQ(check.code(), absl::StatusCode::kFailedPrecondition) << check;
  auto ensured = EnsureDataset(path, {.scale = 0.01});
  ASSERT_TRUE(ensured.ok()) << ensured.status();
  EXPECT_TRUE(ensured->rebuilt);
  EXPECT_THAT(ensured->reason, HasSubstr("rebuilt"));
  EXPECT_TRUE(CheckDataset(path, {.scale = 0.01}).ok());
  auto reused = EnsureDataset(path, {.scale = 0.01});
  ASSERT_TRUE(reused.ok());
  EXPECT_FALSE(reused->rebuilt);
}

TEST(DatasetTest, EnsureRebuildsAForeignFile) {
  std::string path = TempPath("foreign.sqlite");
  std::ofstream(path) << "not a database at all";
  auto ensured = EnsureDataset(path, {.scale = 0.01});
  ASSERT_TRUE(ensured.ok()) << ensured.status();
  EXPECT_TRUE(ensured->rebuilt);
}

}  // namespace
}  // namespace perflab::lab

namespace perflab::lab {
namespace {

// The dataset directory comes through the Env seam: a test sets it without
// touching the process's environment.
TEST(DatasetPath, EnvironmentVariableOverridesTheBuildTreeDefault) {
  core::FakeEnv env;
  const std::string fallback = DefaultDatasetPath(0.1, env);
  EXPECT_TRUE(fallback.ends_with("/orders-scale-0.1.sqlite")) << fallback;
  env.SetVar("PERFLAB_DATASET_DIR", "/data/perflab");
  EXPECT_EQ(DefaultDatasetPath(0.1, env),
            "/data/perflab/orders-scale-0.1.sqlite");
  EXPECT_NE(fallback, DefaultDatasetPath(0.1, env));
}

}  // namespace
}  // namespace perflab::lab
