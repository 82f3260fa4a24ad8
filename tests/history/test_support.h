// Shared by the history tests: a temporary folder, a scripted Env, and a dump
// of every stored row to compare databases by.
#ifndef PERFLAB_TESTS_HISTORY_TEST_SUPPORT_H_
#define PERFLAB_TESTS_HISTORY_TEST_SUPPORT_H_

#include <sqlite3.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <system_error>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "tests/temp_dir.h"
#include "tools/history/run.h"

namespace perflab::history::testing {

// A scoped directory of a test's own (tests/temp_dir.h).
using ::perflab::testing::TempDir;

// Commits c00..cNN, one a minute; commit i's benchmarks BM_A and BM_B take
// level(i) + repetition ns; each measurement advances the clock by 40 s.
class ScriptedEnv : public Env {
 public:
  explicit ScriptedEnv(int n) : n_(n) {}

  absl::StatusOr<std::vector<Commit>> ListCommits(
      absl::string_view range) override {
    if (range != "A..B") {
      return absl::InvalidArgumentError("REV_RANGE: git cannot resolve it");
    }
    std::vector<Commit> out;
    out.reserve(static_cast<size_t>(n_));
    for (int i = 0; i < n_; ++i) {
      out.push_back({Sha(i), i == 0 ? "" : Sha(i - 1), 1000 + 60 * i,
                     absl::StrCat("commit ", i)});
    }
    return out;
  }

  absl::StatusOr<Measured> Measure(const Commit& c,
                                   const RunOptions& o) override {
    const int i = std::stoi(c.sha.substr(1, 2));
    measured.push_back(i);
    now += 40'000'000'000;  // each commit takes 40 s
    if (i == die_at) return absl::InternalError("killed");
    Measured m;
    if (broken.contains(i)) {
      m.outcome = Measured::Outcome::kBuildFailed;
      return m;
    }
    if (outside.contains(i)) {
      m.outcome = Measured::Outcome::kOutside;
      m.why = "the worktree could not be made";
      return m;
    }
    if (no_match) {
      m.outcome = Measured::Outcome::kNoMatch;
      return m;
    }
    m.json = R"({"context": {}, "benchmarks": [)";
    for (int r = 0; r < o.reps; ++r) {
      for (const char* name : {"BM_A", "BM_B"}) {
        const double t = level(i) + r;
        absl::StrAppend(&m.json, r + (name[3] == 'B') > 0 ? "," : "",
                        R"({"name": ")", name, R"(", "run_name": ")", name,
                        R"(", "run_type": "iteration", "repetition_index": )",
                        r, R"(, "real_time": )", t, R"(, "cpu_time": )", t,
                        R"(, "time_unit": "ns", "items_per_second": 5})");
      }
    }
    m.json += "]}";
    return m;
  }

  Machine ThisMachine() override { return {"Test CPU", 2, "6.1", "none"}; }
  int64_t NowNanos() override { return now; }

  static std::string Sha(int i) {
    return absl::StrCat("c", i < 10 ? "0" : "", i, std::string(37, 'f'));
  }

  std::function<double(int)> level = [](int) { return 100.0; };
  std::set<int> broken;
  std::set<int> outside;  // failed outside the commit (worktree, disk)
  int die_at = -1;
  bool no_match = false;
  std::vector<int> measured;
  int64_t now = 0;

 private:
  int n_;
};

// Every row of every table, in key order, as text.
inline std::vector<std::string> Dump(const std::string& path) {
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr),
            SQLITE_OK);
  std::vector<std::string> rows;
  for (const char* sql :
       {"SELECT * FROM machines ORDER BY id",
        "SELECT * FROM commits ORDER BY sha",
        "SELECT sha, machine, filter, instructions, built FROM runs ORDER BY "
        "sha",
        "SELECT r.sha, s.benchmark, s.repetition, s.real_time, s.cpu_time, "
        "s.unit, s.instructions, s.counters FROM samples s JOIN runs r ON "
        "r.id = s.run ORDER BY r.sha, s.benchmark, s.repetition"}) {
    sqlite3_stmt* st = nullptr;
    EXPECT_EQ(sqlite3_prepare_v2(db, sql, -1, &st, nullptr), SQLITE_OK);
    while (sqlite3_step(st) == SQLITE_ROW) {
      std::string row;
      for (int c = 0; c < sqlite3_column_count(st); ++c) {
        const unsigned char* t = sqlite3_column_text(st, c);
        absl::StrAppend(&row, t ? reinterpret_cast<const char*>(t) : "NULL",
                        "|");
      }
      rows.push_back(row);
    }
    sqlite3_finalize(st);
  }
  sqlite3_close(db);
  return rows;
}

}  // namespace perflab::history::testing

#endif  // PERFLAB_TESTS_HISTORY_TEST_SUPPORT_H_
