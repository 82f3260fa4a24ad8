#include "tools/history/changes.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "models/median.h"
#include "rapidjson/stringbuffer.h"
#include "rapidjson/writer.h"

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

std::string PlotJson(const History& h, const Changes& c,
                     const ChangesOptions& options) {
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  w.StartObject();
  w.Key("metric");
  w.String(options.metric.c_str());
  w.Key("commits");
  w.StartArray();
  for (const Commit& commit : h.commits) {
    w.StartObject();
    w.Key("sha");
    w.String(commit.sha.c_str());
    w.Key("subject");
    w.String(commit.subject.c_str());
    w.EndObject();
  }
  w.EndArray();
  w.Key("series");
  w.StartArray();
  for (const SeriesChanges& sc : c.per_series) {
    const Series& s = *sc.series;
    w.StartObject();
    w.Key("benchmark");
    w.String(s.benchmark.c_str());
    w.Key("unit");
    w.String(s.unit.c_str());
    w.Key("points");
    w.StartArray();
    for (size_t i = 0; i < s.commits.size(); ++i) {
      w.StartObject();
      w.Key("commit");
      w.Uint64(s.commits[i]);
      w.Key("median");
      w.Double(models::Median(s.values[i]));
      w.Key("min");
      w.Double(*std::min_element(s.values[i].begin(), s.values[i].end()));
      w.Key("max");
      w.Double(*std::max_element(s.values[i].begin(), s.values[i].end()));
      w.EndObject();
    }
    w.EndArray();
    w.Key("changes");
    w.StartArray();
    for (const models::ChangePoint& cp : sc.changes) {
      w.StartObject();
      w.Key("commit");
      w.Uint64(s.commits[cp.index]);
      w.Key("change_pct");
      w.Double(cp.change_pct);
      w.EndObject();
    }
    w.EndArray();
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  return buf.GetString();
}

}  // namespace perflab::history
