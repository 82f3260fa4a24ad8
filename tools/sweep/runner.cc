#include "tools/sweep/runner.h"

#include <any>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <ostream>
#include <thread>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
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

  void Watch(const std::atomic<int64_t>& done) {
    if (o_.progress == nullptr) return;
    auto start = std::chrono::steady_clock::now();
    auto next = start + std::chrono::duration<double>(o_.progress_after_s);
    bool printed = false;
    std::unique_lock<std::mutex> lock(mu_);
    while (!finished_) {
      cv_.wait_until(lock, next, [this] { return finished_; });
      if (finished_) break;
      Print(done.load(), start);
      printed = true;
      next += std::chrono::seconds(1);
    }
    if (printed) Print(done.load(), start);
  }

  void Finish() {
    std::lock_guard<std::mutex> lock(mu_);
    finished_ = true;
    cv_.notify_all();
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
  std::mutex mu_;
  std::condition_variable cv_;
  bool finished_ = false;
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
  int jobs = options.jobs;
  if (jobs <= 0) jobs = static_cast<int>(std::thread::hardware_concurrency());
  if (jobs <= 0) jobs = 1;
  jobs = static_cast<int>(
      std::min<int64_t>(jobs, std::max<int64_t>(1, std::ssize(runs))));

  std::vector<RunResult> results(runs.size());
  std::vector<absl::Status> errors(runs.size());
  std::atomic<int64_t> next{0};
  std::atomic<int64_t> done{0};
  // The lowest failing position so far: later runs are skipped, earlier ones
  // still run, so the error reported is the same for every J.
  std::atomic<int64_t> first_failure{INT64_MAX};
  Progress progress(options, std::ssize(runs));

  auto work = [&] {
    for (;;) {
      int64_t i = next.fetch_add(1, std::memory_order_relaxed);
      if (i >= std::ssize(runs)) return;
      if (i > first_failure.load(std::memory_order_relaxed)) return;
      size_t slot = static_cast<size_t>(i);
      int64_t k = runs[slot];
      uint64_t seed = RunSeed(e, k);
      absl::StatusOr<core::Document> doc =
          fn(e.scenario, PointSets(e, k / e.replications), seed);
      if (doc.ok()) {
        results[slot] = ResultOf(*doc, k, seed);
      } else {
        errors[slot] = doc.status();
        int64_t seen = first_failure.load(std::memory_order_relaxed);
        while (i < seen && !first_failure.compare_exchange_weak(seen, i)) {
        }
      }
      done.fetch_add(1, std::memory_order_relaxed);
    }
  };

  std::vector<std::thread> workers;
  workers.reserve(static_cast<size_t>(jobs));
  for (int j = 0; j < jobs; ++j) workers.emplace_back(work);
  std::thread watcher([&] { progress.Watch(done); });
  for (std::thread& t : workers) t.join();
  progress.Finish();
  watcher.join();

  for (size_t i = 0; i < runs.size(); ++i) {
    if (errors[i].ok()) continue;
    int64_t k = runs[i];
    return absl::Status(
        errors[i].code(),
        absl::StrCat("run ", k, " (",
                     absl::StrJoin(PointSets(e, k / e.replications), " "),
                     " seed ", RunSeed(e, k), "): ", errors[i].message()));
  }
  return results;
}

}  // namespace perflab::sweep
