#include "tools/history/changes.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "models/median.h"

namespace perflab::history {

absl::StatusOr<Changes> FindChanges(const History& h,
                                    const ChangesOptions& options) {
  Changes out;
  const size_t newest_from =
      options.since > 0 && static_cast<size_t>(options.since) < h.commits.size()
          ? h.commits.size() - static_cast<size_t>(options.since)
          : 0;
  for (const Series& s : h.series) {
    absl::StatusOr<std::vector<models::ChangePoint>> cps =
        models::FindChangePoints(s.values, options.detector);
    if (!cps.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat(s.benchmark, ": ", cps.status().message()));
    }
    for (const models::ChangePoint& cp : *cps) {
      // Every metric stored (times, instructions) is worse when higher.
      if (options.since > 0 && s.commits[cp.index] >= newest_from &&
          cp.change_pct > options.threshold_pct) {
        out.regression = true;
      }
    }
    out.per_series.push_back({&s, *std::move(cps)});
  }
  return out;
}

core::Document ChangesDocument(const History& h, const Changes& c,
                               const ChangesOptions& options,
                               const std::string& machine) {
  core::Document doc(
      "Benchmark history: change points (E-divisive means, "
      "confirmed by the Mann-Whitney U test)");
  doc.Set("machine", "machine", machine);
  doc.Set("metric", "metric", options.metric);
  doc.Set("commits", "commits measured",
          static_cast<int64_t>(h.commits.size()));
  doc.Set("benchmarks", "benchmarks", static_cast<int64_t>(h.series.size()));
  doc.Set("alpha", "false-alarm level per test", options.detector.alpha, 3);
  core::Table& t = doc.AddTable("changes", "Change points",
                                {{"benchmark", "benchmark"},
                                 {"commit", "commit"},
                                 {"subject", "subject"},
                                 {"median_before", "median before", 3},
                                 {"median_after", "median after", 3},
                                 {"unit", "unit"},
                                 {"change_pct", "change (%)", 2},
                                 {"p_value", "p-value", 6},
                                 {"regression", "regression"}});
  for (const SeriesChanges& sc : c.per_series) {
    for (const models::ChangePoint& cp : sc.changes) {
      const Commit& commit = h.commits[sc.series->commits[cp.index]];
      t.Add({sc.series->benchmark, commit.sha.substr(0, 10), commit.subject,
             cp.median_before, cp.median_after, sc.series->unit, cp.change_pct,
             cp.p_value, cp.change_pct > options.threshold_pct});
    }
  }
  if (options.since > 0) {
    doc.Note(absl::StrCat(c.regression ? "A regression" : "No regression",
                          " beyond ", options.threshold_pct,
                          " % in the newest ", options.since, " commits."));
  }
  return doc;
}

core::Document PlotDocument(const History& h, const Changes& c,
                            const ChangesOptions& options) {
  core::Document doc("Benchmark history: plot data");
  doc.set_json_layout(core::JsonLayout::kRecord);
  doc.SetFor(core::Audience::kJson, "metric", "metric", options.metric);
  core::Node commits = core::Node::List();
  for (const Commit& commit : h.commits) {
    commits.Add(core::Node::Record()
                    .Set("sha", commit.sha)
                    .Set("subject", commit.subject));
  }
  doc.SetNested("commits", std::move(commits));
  core::Node series = core::Node::List();
  for (const SeriesChanges& sc : c.per_series) {
    const Series& s = *sc.series;
    core::Node points = core::Node::List();
    for (size_t i = 0; i < s.commits.size(); ++i) {
      const std::vector<double>& v = s.values[i];
      points.Add(core::Node::Record()
                     .Set("commit", static_cast<int64_t>(s.commits[i]))
                     .Set("median", models::Median(v))
                     .Set("min", *std::min_element(v.begin(), v.end()))
                     .Set("max", *std::max_element(v.begin(), v.end())));
    }
    core::Node changes = core::Node::List();
    for (const models::ChangePoint& cp : sc.changes) {
      changes.Add(core::Node::Record()
                      .Set("commit", static_cast<int64_t>(s.commits[cp.index]))
                      .Set("change_pct", cp.change_pct));
    }
    series.Add(core::Node::Record()
                   .Set("benchmark", s.benchmark)
                   .Set("unit", s.unit)
                   .Set("points", std::move(points))
                   .Set("changes", std::move(changes)));
  }
  doc.SetNested("series", std::move(series));
  return doc;
}

}  // namespace perflab::history
