// Private to sim/scenarios: tables whose job is to be drawn (tools/plots reads
// them from `--format json|csv`): a percentile spectrum of one or more latency
// recorders, and a histogram of one recorder on logarithmic bins. Header-only
// free functions; no state, so safe from any thread on distinct arguments.
#ifndef PERFLAB_SIM_SCENARIOS_INTERNAL_PLOT_TABLES_H_
#define PERFLAB_SIM_SCENARIOS_INTERNAL_PLOT_TABLES_H_

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/document.h"
#include "sim/measure.h"

namespace perflab::sim {

// The percentiles a spectrum is read at: dense in the tail, where a log
// "nines" axis spends most of its width. 100 is the maximum.
inline const std::vector<double>& SpectrumPercentiles() {
  static const std::vector<double> kPercentiles = {
      10,   25,   50,   75,    90,    95,    97,     98,     99, 99.5,
      99.7, 99.8, 99.9, 99.95, 99.97, 99.99, 99.995, 99.999, 100};
  return kPercentiles;
}

// A "spectrum" table: one row per percentile, one `<key>_ms` column per
// recorder (nearest rank, as the recorders' own percentiles).
inline void AddSpectrumTable(
    core::Document& doc,
    const std::vector<std::pair<std::string, const LatencyRecorder*>>& series) {
  std::vector<core::Column> columns = {{"percentile", "percentile", 3}};
  for (const auto& [key, rec] : series) {
    columns.push_back(
        {absl::StrCat(key, "_ms"), absl::StrCat(key, " (ms)"), 1});
  }
  core::Table& t =
      doc.AddTable("spectrum", "Percentile spectrum", std::move(columns));
  for (double p : SpectrumPercentiles()) {
    std::vector<core::Value> row;
    row.reserve(series.size() + 1);
    row.emplace_back(p);
    for (const auto& [key, rec] : series)
      row.emplace_back(rec->PercentileMs(p));
    t.Add(std::move(row));
  }
}

// A "histogram" table of the raw samples on bins of equal width in log(ms),
// `per_decade` bins to a factor of ten, from the first non-empty bin to the
// last (empty bins between are kept: the gaps between modes are the point).
// Needs the raw samples; past the recorder's exact limit it adds a note
// instead.
inline void AddLogHistogramTable(core::Document& doc,
                                 const LatencyRecorder& rec, int per_decade) {
  if (!rec.Exact() || rec.Count() == 0) {
    doc.Note(
        "No histogram table: it needs the raw samples (within the exact "
        "limit).");
    return;
  }
  // Bin k covers [10^(k/per_decade), 10^((k+1)/per_decade)) ms.
  auto bin_of = [per_decade](Time v) {
    const double ms = std::max(ToMs(v), 1e-3);
    return static_cast<int>(std::floor(std::log10(ms) * per_decade));
  };
  int lo = bin_of(rec.samples().front()), hi = lo;
  for (Time v : rec.samples()) {
    lo = std::min(lo, bin_of(v));
    hi = std::max(hi, bin_of(v));
  }
  std::vector<int64_t> counts(static_cast<size_t>(hi - lo + 1), 0);
  for (Time v : rec.samples()) counts[static_cast<size_t>(bin_of(v) - lo)]++;
  core::Table& t = doc.AddTable("histogram", "Histogram (log bins)",
                                {{"from_ms", "from (ms)", 2},
                                 {"to_ms", "to (ms)", 2},
                                 {"count", "requests"}});
  for (int k = lo; k <= hi; ++k) {
    const double d = per_decade;
    t.Add({std::pow(10.0, k / d), std::pow(10.0, (k + 1) / d),
           counts[static_cast<size_t>(k - lo)]});
  }
}

}  // namespace perflab::sim

#endif  // PERFLAB_SIM_SCENARIOS_INTERNAL_PLOT_TABLES_H_
