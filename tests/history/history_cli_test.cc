// perflab history through the CLI: bad input is one line and exit 2, and
// changes' exit code on a database the scripted Env filled.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "tests/history/test_support.h"
#include "tests/tools/cli_runner.h"
#include "tools/history/store.h"

namespace perflab::history {
namespace {

using perflab::testing::ExpectOneLineExit2;
using perflab::testing::RunCli;

TEST(HistoryCli, BadDatabasesAreOneLineAndExit2) {
  const testing::TempDir tmp;
  const std::string& dir = tmp.path();
  ExpectOneLineExit2({"history", "changes", "--db", dir + "/missing.sqlite"},
                     "no such file");
  std::ofstream(dir + "/corrupt.sqlite") << std::string(3000, 'z');
  ExpectOneLineExit2({"history", "changes", "--db", dir + "/corrupt.sqlite"},
                     "corrupt");
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open((dir + "/v9.sqlite").c_str(), &db), SQLITE_OK);
  sqlite3_exec(db,
               "CREATE TABLE t (x); PRAGMA application_id = 1885760616; "
               "PRAGMA user_version = 9;",
               nullptr, nullptr, nullptr);
  sqlite3_close(db);
  ExpectOneLineExit2({"history", "plot", "--db", dir + "/v9.sqlite",
                      "--out-dir", dir + "/plots"},
                     "schema version 9");
  EXPECT_FALSE(std::filesystem::exists(dir + "/plots"));
}

TEST(HistoryCli, AnUnresolvableRangeCreatesNoDatabase) {
  const testing::TempDir tmp;
  const std::string& dir = tmp.path();
  ExpectOneLineExit2({"history", "run", "no-such-ref..HEAD", "--filter", "BM_",
                      "--db", dir + "/h.sqlite", "--repo", dir},
                     "git cannot resolve it");
  EXPECT_FALSE(std::filesystem::exists(dir + "/h.sqlite"));
}

TEST(HistoryCli, ChangesExitsOneOnARecentRegression) {
  const testing::TempDir tmp;
  const std::string& dir = tmp.path();
  const std::string db = dir + "/h.sqlite";
  testing::ScriptedEnv env(20);
  env.level = [](int i) { return i >= 15 ? 150.0 : 100.0; };
  {
    Store store = *Store::Open(db, true);
    RunOptions o;
    o.filter = "BM_";
    o.reps = 3;
    std::ostringstream progress;
    ASSERT_TRUE(RunHistory(store, env, "A..B", o, progress).ok());
  }
  // Machine 1 is the scripted one (this machine has no runs there).
  ExpectOneLineExit2({"history", "changes", "--db", db}, "--machine ID");
  auto r = RunCli({"history", "changes", "--db", db, "--machine", "1",
                   "--since", "6", "--format", "csv"});
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_NE(r.out.find("BM_A"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(testing::ScriptedEnv::Sha(15).substr(0, 10)),
            std::string::npos)
      << r.out;
  r = RunCli(
      {"history", "changes", "--db", db, "--machine", "1", "--since", "4"});
  EXPECT_EQ(r.code, 0) << r.err;  // the rise is 5 commits old
  r = RunCli(
      {"history", "changes", "--db", db, "--machine", "1", "--format", "md"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("| BM_A"), std::string::npos) << r.out;
}

// A database the scripted Env filled (machine 1), and a one-commit git
// repository whose commit it does not hold.
struct AgainstFixture {
  AgainstFixture() {
    testing::ScriptedEnv env(4);
    Store store = *Store::Open(db, true);
    RunOptions o;
    o.filter = "BM_";
    o.reps = 3;
    std::ostringstream progress;
    EXPECT_TRUE(RunHistory(store, env, "A..B", o, progress).ok());
    const std::string git = "git -C '" + repo + "' ";
    EXPECT_EQ(std::system(("git init -q '" + repo + "' && " + git +
                           "-c user.email=t@example.com -c user.name=t "
                           "commit -q --allow-empty -m one")
                              .c_str()),
              0);
  }
  std::vector<std::string> Args(std::vector<std::string> more) const {
    std::vector<std::string> a = {"history",   "changes", "--db",   db,
                                  "--machine", "1",       "--repo", repo};
    a.insert(a.end(), more.begin(), more.end());
    return a;
  }
  const testing::TempDir tmp;
  std::string dir = tmp.path();
  std::string db = dir + "/h.sqlite", repo = dir + "/repo";
};

TEST(HistoryCli, AgainstBadInputIsOneLineAndExit2) {
  AgainstFixture f;
  ExpectOneLineExit2(f.Args({"--against", "no-such-ref"}),
                     "--against 'no-such-ref': git cannot resolve it");
  // HEAD resolves, but the database holds another repository's commits.
  ExpectOneLineExit2(f.Args({"--against", "HEAD"}), "another project");
  for (const char* n : {"0", "51", "-1", "2.5"}) {
    ExpectOneLineExit2(f.Args({"--against", "HEAD", "--confirm", n}),
                       "accepted: an integer in [1, 50]");
  }
  ExpectOneLineExit2(f.Args({"--confirm", "3"}), "--against");
  ExpectOneLineExit2(f.Args({"--against", "HEAD", "--since", "3"}),
                     "one of the two");
  // Another schema is refused before git is asked anything.
  sqlite3* db = nullptr;
  const std::string v9 = f.dir + "/v9.sqlite";
  ASSERT_EQ(sqlite3_open(v9.c_str(), &db), SQLITE_OK);
  sqlite3_exec(db,
               "CREATE TABLE t (x); PRAGMA application_id = 1885760616; "
               "PRAGMA user_version = 9;",
               nullptr, nullptr, nullptr);
  sqlite3_close(db);
  ExpectOneLineExit2(
      {"history", "changes", "--db", v9, "--against", "HEAD", "--repo", f.repo},
      "schema version 9");
}

}  // namespace
}  // namespace perflab::history
