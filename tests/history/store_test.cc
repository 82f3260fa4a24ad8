#include "tools/history/store.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>
#include <fstream>

#include "tests/history/test_support.h"

namespace perflab::history {
namespace {

namespace fs = std::filesystem;

const Machine kMachine{"Test CPU", 4, "6.1.0", "performance"};

// A plain SQLite file with the given pragmas and one table.
void MakeSqlite(const std::string& path, int app_id, int version) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  const std::string sql =
      absl::StrCat("CREATE TABLE t (x); PRAGMA application_id = ", app_id,
                   "; PRAGMA user_version = ", version, ";");
  ASSERT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr),
            SQLITE_OK);
  sqlite3_close(db);
}

std::string Message(const absl::StatusOr<Store>& s) {
  return std::string(s.status().message());
}

TEST(Store, CreatesTheSchemaAtomicallyAndRoundTrips) {
  const testing::TempDir tmp;
  const std::string& dir = tmp.path();
  const std::string db = dir + "/sub/h.sqlite";
  absl::StatusOr<Store> store = Store::Open(db, true);
  ASSERT_TRUE(store.ok()) << store.status();
  // Nothing but the database: the temporary file it was made in is gone.
  EXPECT_EQ(std::distance(fs::directory_iterator(dir + "/sub"),
                          fs::directory_iterator()),
            1);
  const int64_t m = *store->MachineId(kMachine);
  EXPECT_EQ(*store->MachineId(kMachine), m);  // found, not added twice
  const RunKey key{m, "BM_", false};
  // Stored out of date order: loaded by committer date.
  const Commit newer{"bbbb", "aaaa", 2000, "newer"};
  const Commit older{"aaaa", "", 1000, "older"};
  ASSERT_TRUE(store
                  ->AddRun(newer, key, true,
                           {{"BM_X", 0, 20, 19, "ns", std::nullopt, "{}"},
                            {"BM_X", 1, 22, 21, "ns", std::nullopt, "{}"}})
                  .ok());
  ASSERT_TRUE(
      store->AddRun(older, key, true, {{"BM_X", 0, 10, 9, "ns", {}, "{}"}})
          .ok());
  EXPECT_TRUE(*store->HasRun("aaaa", key));
  EXPECT_FALSE(*store->HasRun("aaaa", RunKey{m, "other", false}));
  History h = *store->Load(m, "cpu_time");
  ASSERT_EQ(h.commits.size(), 2u);
  EXPECT_EQ(h.commits[0].subject, "older");
  ASSERT_EQ(h.series.size(), 1u);
  EXPECT_EQ(h.series[0].values,
            (std::vector<std::vector<double>>{{9}, {19, 21}}));
  EXPECT_FALSE(store->Load(m, "wall").ok());

  sqlite3* raw = nullptr;
  ASSERT_EQ(sqlite3_open(db.c_str(), &raw), SQLITE_OK);
  sqlite3_stmt* st = nullptr;
  sqlite3_prepare_v2(raw, "PRAGMA application_id", -1, &st, nullptr);
  ASSERT_EQ(sqlite3_step(st), SQLITE_ROW);
  EXPECT_EQ(sqlite3_column_int(st, 0), 0x70666c68);  // "pflh"
  sqlite3_finalize(st);
  sqlite3_close(raw);
}

// SQLite reads text in a REAL column as 0: a value edited into text, or a
// negative one, makes the load fail naming it, instead of entering the
// series as a 0 (a fake 100 % improvement).
TEST(Store, TextOrANegativeInANumericColumnIsRefused) {
  const testing::TempDir tmp;
  const std::string db = tmp.path() + "/edited.sqlite";
  fs::remove(db);
  {
    Store store = *Store::Open(db, true);
    const int64_t m = *store.MachineId(kMachine);
    ASSERT_TRUE(store
                    .AddRun({"cccc", "", 1000, "one"}, RunKey{m, "BM_", false},
                            true, {{"BM_X", 0, 10, 9, "ns", {}, "{}"}})
                    .ok());
    ASSERT_TRUE(store.Load(m, "cpu_time").ok());
  }
  for (const char* edit : {"UPDATE samples SET cpu_time = 'fast'",
                           "UPDATE samples SET cpu_time = -9"}) {
    sqlite3* raw = nullptr;
    ASSERT_EQ(sqlite3_open(db.c_str(), &raw), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(raw, edit, nullptr, nullptr, nullptr), SQLITE_OK);
    sqlite3_close(raw);
    Store store = *Store::Open(db, false);
    absl::StatusOr<History> h =
        store.Load(*store.MachineId(kMachine), "cpu_time");
    ASSERT_FALSE(h.ok()) << edit;
    EXPECT_NE(h.status().message().find("BM_X: cpu_time is"), std::string::npos)
        << h.status();
  }
}

TEST(Store, AFailedRunLeavesNothing) {
  const testing::TempDir tmp;
  const std::string db = tmp.path() + "/h.sqlite";
  Store store = *Store::Open(db, true);
  const int64_t m = *store.MachineId(kMachine);
  const std::vector<std::string> before = testing::Dump(db);
  // The same repetition twice breaks the samples' key halfway through.
  const absl::Status s = store.AddRun(
      {"cccc", "", 1, "s"}, {m, "BM_", false}, true,
      {{"BM_X", 0, 1, 1, "ns", {}, "{}"}, {"BM_X", 0, 2, 2, "ns", {}, "{}"}});
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(testing::Dump(db), before);  // not even the commit row
  EXPECT_FALSE(*store.HasRun("cccc", {m, "BM_", false}));
}

TEST(Store, RefusesWhatItDidNotWrite) {
  const testing::TempDir tmp;
  const std::string& dir = tmp.path();
  const std::string other_version = dir + "/v2.sqlite";
  MakeSqlite(other_version, kApplicationId, 2);
  auto s = Store::Open(other_version, false);
  EXPECT_EQ(s.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(Message(s).find("schema version 2"), std::string::npos)
      << Message(s);

  const std::string foreign = dir + "/foreign.sqlite";
  MakeSqlite(foreign, 0, 1);
  EXPECT_NE(Message(Store::Open(foreign, true))
                .find("not a perflab history database"),
            std::string::npos);

  const std::string corrupt = dir + "/corrupt.sqlite";
  std::ofstream(corrupt) << std::string(4096, 'x');
  s = Store::Open(corrupt, true);
  EXPECT_EQ(s.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(Message(s).find("corrupt"), std::string::npos) << Message(s);

  // A real history database with its schema page overwritten halfway.
  const std::string damaged = dir + "/damaged.sqlite";
  {
    Store ok = *Store::Open(damaged, true);
    ASSERT_TRUE(ok.MachineId(kMachine).ok());
  }
  {
    std::fstream f(damaged, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(120);
    f << std::string(200, '\x7f');
  }
  s = Store::Open(damaged, false);
  EXPECT_EQ(s.status().code(), absl::StatusCode::kInvalidArgument);

  const std::string read_only = dir + "/ro.sqlite";
  ASSERT_TRUE(Store::Open(read_only, true).ok());
  fs::permissions(read_only, fs::perms::owner_read | fs::perms::group_read);
  s = Store::Open(read_only, true);
  EXPECT_NE(Message(s).find("read-only"), std::string::npos) << Message(s);
  EXPECT_TRUE(Store::Open(read_only, false).ok());  // reading is fine

  EXPECT_NE(
      Message(Store::Open(dir + "/missing.sqlite", false)).find("no such file"),
      std::string::npos);
  EXPECT_FALSE(fs::exists(dir + "/missing.sqlite"));
}

}  // namespace
}  // namespace perflab::history
