#include "tools/sweep/aggregate.h"

#include <cmath>
#include <map>
#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "models/hdr_codec.h"
#include "models/histogram.h"
#include "models/moments.h"
#include "models/student_t.h"

namespace perflab::sweep {
namespace {

// A per-run percentile such as p99_ms or p999_ms: replaced by the merged
// histogram's figure when one exists, since averaging percentiles is wrong.
bool IsPercentile(const std::string& key) {
  return key.size() > 2 && key[0] == 'p' && key[1] >= '0' && key[1] <= '9' &&
         key.find('[') == std::string::npos;
}

struct Stat {
  std::vector<double> xs;  // in replication order: sums are reproducible
};

// Histogram values are simulator time (nanoseconds); tables print ms.
double Ms(int64_t ns) { return static_cast<double>(ns) / 1e6; }

// One grid point's replications: each metric's values in first-seen order,
// and their histograms merged (when every replication attached one).
struct PointRuns {
  std::vector<std::string> order;
  std::map<std::string, Stat> stats;
  std::optional<models::Histogram> merged;
  bool missing_histogram = false;
};

absl::StatusOr<PointRuns> CollectPoint(const Experiment& e,
                                       const std::vector<RunResult>& results,
                                       int64_t p) {
  PointRuns out;
  for (int64_t r = 0; r < e.replications; ++r) {
    const RunResult& run = results[static_cast<size_t>(p * e.replications + r)];
    for (const auto& [key, v] : run.values) {
      auto [it, fresh] = out.stats.try_emplace(key);
      if (fresh) out.order.push_back(key);
      it->second.xs.push_back(v);
    }
    if (run.histogram_hdr.empty()) {
      out.missing_histogram = true;
      continue;
    }
    absl::StatusOr<models::Histogram> h =
        models::DecodeHdrBase64(run.histogram_hdr);
    if (!h.ok()) return h.status();
    if (!out.merged) {
      out.merged = std::move(*h);
    } else if (absl::Status s = out.merged->Merge(*h); !s.ok()) {
      return s;
    }
  }
  return out;
}

// A metric's row: n, mean, the 95 % Student-t half-width, min and max.
std::vector<core::Value> MetricRow(int64_t p, const std::string& key,
                                   const std::vector<double>& xs,
                                   std::map<int64_t, double>& t_cache) {
  int64_t n = std::ssize(xs);
  double lo = xs[0], hi = xs[0];
  for (double x : xs) {
    lo = std::min(lo, x);
    hi = std::max(hi, x);
  }
  // Finite for finite runs, values near DBL_MAX included.
  const double mean = models::MeanOf(xs);
  core::Value half;  // empty for n = 1: no spread to speak of
  if (n >= 2) {
    const double sd = models::SampleSdOf(xs, mean);
    auto [it, fresh] = t_cache.try_emplace(n, 0.0);
    if (fresh) it->second = models::StudentTQuantile(0.975, n - 1.0);
    half = it->second * sd / std::sqrt(static_cast<double>(n));
  }
  return {p, key, n, mean, half, lo, hi};
}

std::vector<core::Value> PointRow(const Experiment& e, int64_t p) {
  std::vector<core::Value> prow = {p};
  std::vector<std::string> sets = PointSets(e, p);
  for (const std::string& s : sets)
    prow.emplace_back(s.substr(s.find('=') + 1));
  prow.emplace_back(absl::StrCat(RunSeed(e, p * e.replications)));
  return prow;
}

// The rows of the three tables, collected first: AddTable may move earlier
// tables.
struct Rows {
  std::vector<std::vector<core::Value>> points, metrics, latency;
  bool any_histogram = false, any_without = false;
};

void AddTables(core::Document& doc, const Experiment& e, Rows& rows) {
  std::vector<core::Column> point_cols = {{"point", "point"}};
  for (const Axis& a : e.axes) point_cols.push_back({a.key, a.key});
  point_cols.push_back({"first_seed", "first seed"});
  core::Table& pts = doc.AddTable("points", "Grid points", point_cols);
  for (auto& row : rows.points) pts.Add(std::move(row));
  core::Table& metrics = doc.AddTable(
      "metrics", "Mean over replications, 95 % confidence half-width",
      {{"point", "point"},
       {"metric", "metric"},
       {"n", "n"},
       {"mean", "mean", 4},
       {"ci95_half_width", "+- 95 %", 4},
       {"min", "min", 4},
       {"max", "max", 4}});
  for (auto& row : rows.metrics) metrics.Add(std::move(row));
  if (rows.any_histogram) {
    core::Table& lat = doc.AddTable(
        "latency", "Latency of all replications together (merged histograms)",
        {{"point", "point"},
         {"count", "samples"},
         {"p50_ms", "p50 (ms)", 3},
         {"p90_ms", "p90 (ms)", 3},
         {"p99_ms", "p99 (ms)", 3},
         {"p999_ms", "p99.9 (ms)", 3},
         {"max_ms", "max (ms, bucket)", 3}});
    for (auto& row : rows.latency) lat.Add(std::move(row));
  }
}

void AddNotes(core::Document& doc, const Experiment& e, const Rows& rows) {
  std::string source = rows.any_histogram && rows.any_without ? "mixed"
                       : rows.any_histogram ? "merged_histograms"
                                            : "mean_of_per_run_percentiles";
  doc.Set("percentiles_from", "latency percentiles from", source);
  if (rows.any_histogram) {
    doc.Note(
        "Latency percentiles come from merging every replication's histogram "
        "(exact merge, bucket resolution), not from averaging per-run "
        "percentiles; per-run pNN fields are left out of the metrics.");
  }
  if (rows.any_without) {
    doc.Note(
        "The scenario attached no latency histogram for some point(s): their "
        "percentiles (pNN metrics) are the mean +- 95 % CI of the per-run "
        "percentiles, which understates the tail when runs differ.");
  }
  doc.Note(absl::StrCat(
      "Run k = point x ", e.replications,
      " + replication uses seed S + k; reproduce one with: perflab sim ",
      e.scenario, " --set ... --seed <first_seed + replication>."));
}

}  // namespace

absl::StatusOr<core::Document> Aggregate(
    const Experiment& e, const std::vector<RunResult>& results) {
  const int64_t points = GridPoints(e);
  core::Document doc(absl::StrCat("sweep: ", e.scenario, ", ", points,
                                  " grid point(s) x ", e.replications,
                                  " replication(s)"));
  doc.Set("scenario", "scenario", e.scenario);
  doc.Set("grid_points", "grid points", points);
  doc.Set("replications", "replications per point", e.replications);
  doc.Set("runs", "runs", TotalRuns(e));
  doc.Set("seed", "base seed S (run k uses S + k)",
          absl::StrCat(e.seed));  // a string: uint64 does not fit int64
  doc.Set("fingerprint", "experiment fingerprint", Fingerprint(e));
  Rows rows;
  std::map<int64_t, double> t_cache;  // n -> t(0.975, n - 1)
  for (int64_t p = 0; p < points; ++p) {
    rows.points.push_back(PointRow(e, p));
    absl::StatusOr<PointRuns> runs = CollectPoint(e, results, p);
    if (!runs.ok()) return runs.status();
    const bool use_histogram =
        runs->merged.has_value() && !runs->missing_histogram;
    rows.any_histogram |= use_histogram;
    rows.any_without |= !use_histogram;
    for (const std::string& key : runs->order) {
      if (use_histogram && IsPercentile(key)) continue;
      rows.metrics.push_back(MetricRow(p, key, runs->stats[key].xs, t_cache));
    }
    if (use_histogram) {
      const models::Histogram& m = *runs->merged;
      rows.latency.push_back({p, m.Count(), Ms(m.Percentile(50)),
                              Ms(m.Percentile(90)), Ms(m.Percentile(99)),
                              Ms(m.Percentile(99.9)), Ms(m.Max())});
    }
  }
  AddTables(doc, e, rows);
  AddNotes(doc, e, rows);
  return doc;
}

}  // namespace perflab::sweep
