#include "bench/order_service/dataset.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "bench/order_service/sqlite_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/order_service/test_db.h"

namespace perflab::orders {
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

std::string Read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Only a file recognised as a perflab dataset is ever replaced: another
// file, another SQLite database, a device or a symbolic link is refused in
// one line and left exactly as it was.
TEST(DatasetTest, EnsureRefusesWhatIsNotADataset) {
  std::string path = TempPath("foreign.sqlite");
  std::ofstream(path) << "not a database at all";
  auto ensured = EnsureDataset(path, {.scale = 0.01});
  ASSERT_FALSE(ensured.ok());
  EXPECT_EQ(ensured.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(ensured.status().message(), HasSubstr("not a perflab dataset"));
  EXPECT_EQ(ensured.status().message().find('\n'), std::string::npos);
  EXPECT_EQ(Read(path), "not a database at all");

  std::string other = TempPath("other.sqlite");
  std::filesystem::remove(other);
  {
    auto db = OpenDatabase(other, false);
    ASSERT_TRUE(db.ok());
    ASSERT_TRUE(Exec(db->get(), "CREATE TABLE t(x)").ok());
  }
  const std::string before = Read(other);
  EXPECT_FALSE(BuildDataset(other, {.scale = 0.01}).ok());
  EXPECT_EQ(Read(other), before);

  EXPECT_THAT(EnsureDataset("/dev/null", {.scale = 0.01}).status().message(),
              HasSubstr("not a regular file"));
  EXPECT_TRUE(
      std::filesystem::is_character_file(std::filesystem::status("/dev/null")));

  std::string link = TempPath("link.sqlite");
  std::filesystem::remove(link);
  std::filesystem::create_symlink(path, link);
  EXPECT_THAT(EnsureDataset(link, {.scale = 0.01}).status().message(),
              HasSubstr("symbolic link"));
  EXPECT_TRUE(
      std::filesystem::is_symlink(std::filesystem::symlink_status(link)));
  EXPECT_EQ(Read(path), "not a database at all");
  std::filesystem::remove(link);
}

// A dataset of another generator version or scale is still ours: rebuilt.
TEST(DatasetTest, EnsureRebuildsADatasetOfOtherOptions) {
  std::string path = TempPath("other_scale.sqlite");
  ASSERT_TRUE(BuildDataset(path, {.scale = 0.02}).ok());
  {
    auto db = OpenDatabase(path, false);
    ASSERT_TRUE(db.ok());
    ASSERT_TRUE(Exec(db->get(),
                     "UPDATE perflab_meta SET value = 'perflab-orders-v0' "
                     "WHERE key = 'generator'")
                    .ok());
  }
  auto ensured = EnsureDataset(path, {.scale = 0.01});
  ASSERT_TRUE(ensured.ok()) << ensured.status();
  EXPECT_TRUE(ensured->rebuilt);
  EXPECT_TRUE(CheckDataset(path, {.scale = 0.01}).ok());
}

// The temporary file is created exclusively at an unpredictable name: links
// planted at the names a builder could guess redirect nothing.
TEST(DatasetTest, BuildIgnoresLinksAtPredictableTemporaryNames) {
  std::string path = TempPath("planted.sqlite");
  std::filesystem::remove(path);
  std::string victim = TempPath("victim.txt");
  std::ofstream(victim) << "precious";
  std::vector<std::string> planted;
  for (const std::string& suffix :
       std::vector<std::string>{".tmp", absl::StrCat(".tmp.", ::getpid()),
                                absl::StrCat(".tmp.", ::getpid(), ".0"),
                                absl::StrCat(".tmp.", ::getpid(), ".1")}) {
    planted.push_back(path + suffix);
    std::filesystem::remove(planted.back());
    std::filesystem::create_symlink(victim, planted.back());
  }
  ASSERT_TRUE(BuildDataset(path, {.scale = 0.01}).ok());
  EXPECT_TRUE(CheckDataset(path, {.scale = 0.01}).ok());
  EXPECT_EQ(Read(victim), "precious");
  for (const std::string& p : planted) {
    EXPECT_TRUE(
        std::filesystem::is_symlink(std::filesystem::symlink_status(p)));
    std::filesystem::remove(p);
  }
}

}  // namespace
}  // namespace perflab::orders

namespace perflab::orders {
namespace {

// The dataset directory comes through the Env seam: a test sets it without
// touching the process's environment. Each step down the order is checked
// with everything above it unset (or unusable), so each rule is seen alone.
TEST(DatasetPath, FlagFreeDefaultsFollowTheXdgCacheOrder) {
  core::FakeEnv env;
  EXPECT_EQ(DefaultDatasetPath(0.1, env),
            "perflab-datasets/orders-scale-0.1.sqlite");
  env.SetVar("HOME", "/home/ann");
  EXPECT_EQ(DefaultDatasetPath(0.1, env),
            "/home/ann/.cache/perflab/datasets/orders-scale-0.1.sqlite");
  env.SetVar("XDG_CACHE_HOME", "relative/cache");  // ignored, as the spec says
  EXPECT_EQ(DefaultDatasetDir(env), "/home/ann/.cache/perflab/datasets");
  env.SetVar("XDG_CACHE_HOME", "/var/cache/ann");
  EXPECT_EQ(DefaultDatasetDir(env), "/var/cache/ann/perflab/datasets");
  env.SetVar("PERFLAB_DATASET_DIR", "/data/perflab");
  EXPECT_EQ(DefaultDatasetPath(2, env), "/data/perflab/orders-scale-2.sqlite");
  env.SetVar("PERFLAB_DATASET_DIR", "");  // empty: as if unset
  EXPECT_EQ(DefaultDatasetDir(env), "/var/cache/ann/perflab/datasets");
}

}  // namespace
}  // namespace perflab::orders
