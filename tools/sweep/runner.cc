#include "tools/sweep/runner.h"

#include <any>
#include <atomic>
#include <chrono>
#include <cmath>
#include <optional>
#include <ostream>
#include <system_error>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "core/mutex.h"
#include "core/parallel.h"
#include "models/hdr_codec.h"
#include "models/histogram.h"
#include "sim/scenarios/scenario.h"

namespace perflab::sweep {
namespace {

std::optional<double> Numeric(const core::Value& v) {
  double d = 0;
  if (const int64_t* i = std::get_if<int64_t>(&v)) {
    d = static_cast<double>(*i);
  } else if (const double* x = std::get_if<double>(&v)) {
    d = *x;
  } else {
    return std::nullopt;
  }
  if (!std::isfinite(d)) return std::nullopt;
  return d;
}

// Prints "runs done of total, elapsed, remaining" once a second, but only
// once the sweep has lasted progress_after_s: short sweeps stay silent.
class Progress {
 public:
  Progress(const RunnerOptions& o, int64_t total) : o_(o), total_(total) {}

  void Watch(const std::atomic<int64_t>& done) ABSL_LOCKS_EXCLUDED(mu_) {
    if (o_.progress == nullptr) return;
    auto start = std::chrono::steady_clock::now();
    auto next = start + std::chrono::duration<double>(o_.progress_after_s);
    bool printed = false;
    core::MutexLock lock(&mu_);
    while (!finished_) {
      // Until `next`, or less when Finish() comes first.
      while (!finished_) {
        if (!cv_.WaitUntil(&mu_, next)) break;
      }
      if (finished_) break;
      Print(done.load(), start);
      printed = true;
      next += std::chrono::seconds(1);
    }
    if (printed) Print(done.load(), start);
  }

  void Finish() ABSL_LOCKS_EXCLUDED(mu_) {
    core::MutexLock lock(&mu_);
    finished_ = true;
    cv_.SignalAll();
  }

 private:
  void Print(int64_t done, std::chrono::steady_clock::time_point start) {
    double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count();
    std::string left = "?";
    if (done > 0) {
      left = absl::StrFormat("%.1f s", elapsed *
                                           static_cast<double>(total_ - done) /
                                           static_cast<double>(done));
    }
    *o_.progress << absl::StrFormat(
        "sweep: %d of %d runs done, %.1f s elapsed, ~%s remaining\n", done,
        total_, elapsed, left);
    o_.progress->flush();
  }

  const RunnerOptions& o_;
  int64_t total_;
  core::Mutex mu_;
  core::CondVar cv_;  // finished
  bool finished_ ABSL_GUARDED_BY(mu_) = false;
};

}  // namespace

RunFn ScenarioRunFn() {
  return [](const std::string& scenario, const std::vector<std::string>& sets,
            uint64_t seed) { return sim::RunScenario(scenario, sets, seed); };
}

RunResult ResultOf(const core::Document& doc, int64_t run, uint64_t seed) {
  RunResult r;
  r.run = run;
  r.seed = seed;
  for (const core::Field& f : doc.fields()) {
    if (f.key == "seed") continue;  // the stamp, not a result
    if (std::optional<double> d = Numeric(f.value)) {
      r.values.emplace_back(f.key, *d);
    }
  }
  for (const core::Table& t : doc.tables()) {
    if (t.key == "parameters") continue;  // the stamp again
    for (size_t row = 0; row < t.rows.size(); ++row) {
      for (size_t c = 0; c < t.columns.size() && c < t.rows[row].size(); ++c) {
        if (std::optional<double> d = Numeric(t.rows[row][c])) {
          r.values.emplace_back(
              absl::StrCat(t.key, "[", row, "].", t.columns[c].key), *d);
        }
      }
    }
  }
  if (const std::any* a = doc.FindAttachment(sim::kLatencyHistogram)) {
    if (const auto* h = std::any_cast<models::Histogram>(a)) {
      r.histogram_hdr = models::EncodeHdrBase64(*h);
    }
  }
  return r;
}

absl::StatusOr<std::vector<RunResult>> RunRuns(const Experiment& e,
                                               const std::vector<int64_t>& runs,
                                               const RunFn& fn,
                                               const RunnerOptions& options) {
  std::vector<RunResult> results(runs.size());
  std::atomic<int64_t> done{0};
  Progress progress(options, std::ssize(runs));
  // Only a sweep that prints progress needs the thread that paces it.
  std::thread watcher;
  if (options.progress != nullptr) {
    try {
      watcher = std::thread([&] { progress.Watch(done); });
    } catch (const std::system_error& e) {
      return core::ThreadRefused("the progress thread", e);
    }
  }
  absl::Status status = core::ParallelFor(
      std::ssize(runs), options.jobs,
      [&](int64_t i) -> absl::Status {
        const size_t slot = static_cast<size_t>(i);
        const int64_t k = runs[slot];
        const uint64_t seed = RunSeed(e, k);
        absl::StatusOr<core::Document> doc =
            fn(e.scenario, PointSets(e, k / e.replications), seed);
        if (!doc.ok()) {
          return absl::Status(
              doc.status().code(),
              absl::StrCat("run ", k, " (",
                           absl::StrJoin(PointSets(e, k / e.replications), " "),
                           " seed ", seed, "): ", doc.status().message()));
        }
        results[slot] = ResultOf(*doc, k, seed);
        return absl::OkStatus();
      },
      [&](int64_t finished) { done.store(finished); });
  progress.Finish();
  if (watcher.joinable()) watcher.join();
  if (!status.ok()) return status;
  return results;
}

}  // namespace perflab::sweep
