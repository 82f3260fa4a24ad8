// The benchmark history database (SQLite): which commits were measured on
// which machine with which filter, and every repetition's times, instructions
// and counters. A file is recognised by PRAGMA application_id and its schema
// by PRAGMA user_version; anything else is refused, never migrated. A new
// database is created beside its path and renamed into place, and each
// commit's run is one transaction, so the file is never half-written.
// A Store is one connection: one thread at a time.
#ifndef PERFLAB_TOOLS_HISTORY_STORE_H_
#define PERFLAB_TOOLS_HISTORY_STORE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "bench/order_service/sqlite_util.h"

namespace perflab::history {

inline constexpr int kApplicationId = 0x70666c68;  // "pflh"
inline constexpr int kSchemaVersion = 1;

// Series from different machines never mix: a machine is all four fields.
struct Machine {
  std::string cpu;
  int cores = 0;
  std::string kernel;
  std::string governor;  // cpufreq scaling governor, "none" without one
};

struct Commit {
  std::string sha, parent;
  int64_t time = 0;  // committer date, seconds since the epoch
  std::string subject;
};

struct Sample {
  std::string benchmark;
  int repetition = 0;
  double real_time = 0, cpu_time = 0;
  std::string unit;                    // Google Benchmark's time_unit
  std::optional<double> instructions;  // --instructions runs only
  std::string counters;                // JSON object of the user counters
};

// What makes two runs of a commit the same measurement.
struct RunKey {
  int64_t machine = 0;
  std::string filter;
  bool instructions = false;
};

// One benchmark's values over the commits that measured it, oldest first.
struct Series {
  std::string benchmark, unit;
  std::vector<size_t> commits;              // indices into History::commits
  std::vector<std::vector<double>> values;  // the repetitions per commit
};

struct History {
  std::vector<Commit> commits;  // built and measured, oldest first
  std::vector<Series> series;   // by benchmark name
};

class Store {
 public:
  // Opens `path`. `writable`: creates it when missing and refuses a file
  // that cannot be written. InvalidArgument, one line naming the path, for a
  // file that is not a history database, of another schema version, corrupt
  // or (writable) read-only; for a missing file when not `writable`.
  static absl::StatusOr<Store> Open(const std::string& path, bool writable);

  // The machine's id; inserted when new (writable stores only).
  absl::StatusOr<int64_t> MachineId(const Machine& machine);
  // "id: cpu, N cores, kernel, governor" for every stored machine.
  absl::StatusOr<std::vector<std::string>> Machines();

  // Whether this commit was already run (built or not) under `key`. A run
  // that failed for a reason outside the commit does not count: the next
  // run tries that commit again.
  absl::StatusOr<bool> HasRun(absl::string_view sha, const RunKey& key);
  // Stores the commit, the run and its samples in one transaction: all or
  // nothing. built = false records a commit that did not build. Replaces a
  // failure outside the commit stored for the same key.
  absl::Status AddRun(const Commit& commit, const RunKey& key, bool built,
                      const std::vector<Sample>& samples);
  // Records that measuring the commit failed for a reason outside it (its
  // worktree could not be made, the disk filled, the measuring process was
  // stopped): kept apart from "does not build", never loaded as a series,
  // and replaced when a later run measures the commit.
  absl::Status AddOutsideFailure(const Commit& commit, const RunKey& key);
  // How many runs of `key` failed outside their commit and wait for a retry.
  absl::StatusOr<int64_t> OutsideFailures(const RunKey& key);

  // True while this Store created its file and has stored no run in it: an
  // interrupt then removes the file (it is registered with the interrupt
  // cleanup until the first run is stored), and a caller that ends with
  // nothing stored may remove it too.
  bool fresh() const { return fresh_; }

  // The series of `metric` (real_time, cpu_time or instructions) measured on
  // `machine`, commits ordered by committer date, then by when they were run.
  absl::StatusOr<History> Load(int64_t machine, absl::string_view metric);

 private:
  Store(orders::Database db, std::string path, bool fresh)
      : db_(std::move(db)), path_(std::move(path)), fresh_(fresh) {}
  absl::Status Error(absl::string_view what) const;
  // One transaction: the commit row, then a run row with `built` (0 did not
  // build, 1 built, 2 failed outside the commit) and its samples.
  absl::Status Insert(const Commit& commit, const RunKey& key, int built,
                      const std::vector<Sample>& samples);
  void Stored();  // the first run is in: the file is no longer temporary
  orders::Database db_;
  std::string path_;
  bool fresh_ = false;
};

}  // namespace perflab::history

#endif  // PERFLAB_TOOLS_HISTORY_STORE_H_
