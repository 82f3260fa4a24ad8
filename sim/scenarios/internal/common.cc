#include "sim/scenarios/internal/common.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace perflab::sim {

std::vector<core::Column> SummaryColumns() {
  return {{"throughput_per_s", "throughput (req/s)", 1},
          {"mean_ms", "mean (ms)", 1},
          {"p50_ms", "p50 (ms)", 1},
          {"p95_ms", "p95 (ms)", 1},
          {"p99_ms", "p99 (ms)", 1},
          {"p999_ms", "p99.9 (ms)", 1},
          {"max_ms", "max (ms)", 1},
          {"errors", "errors", 0},
          {"l_sampled", "L sampled", 2},
          {"l_little", "lambda x W", 2}};
}

std::vector<core::Value> SummaryCells(const Summary& s) {
  return {s.throughput_per_s, s.mean_ms, s.p50_ms, s.p95_ms,    s.p99_ms,
          s.p999_ms,          s.max_ms,  s.errors, s.l_sampled, s.l_little};
}

void AddSummaryFields(core::Document& doc, const Meter& meter) {
  const Summary s = meter.Summarise();
  doc.Attach(std::string(kLatencyHistogram), meter.latencies().histogram());
  doc.Set("completed", "completed requests in the window", s.completed);
  doc.Set("errors", "errors and timeouts in the window", s.errors);
  doc.Set("throughput_per_s", "throughput (req/s)", s.throughput_per_s, 1);
  doc.Set("mean_ms", "mean latency (ms)", s.mean_ms, 2);
  doc.Set("p50_ms", "p50 (ms)", s.p50_ms, 2);
  doc.Set("p95_ms", "p95 (ms)", s.p95_ms, 2);
  doc.Set("p99_ms", "p99 (ms)", s.p99_ms, 2);
  doc.Set("p999_ms", "p99.9 (ms)", s.p999_ms, 2);
  doc.Set("max_ms", "max (ms)", s.max_ms, 2);
  doc.Set("l_sampled", "in flight L, sampled", s.l_sampled, 2);
  doc.Set("l_little", "arrival rate x mean time in system", s.l_little, 2);
}

void AddResourceTable(core::Document& doc,
                      const std::vector<const Resource*>& rs) {
  core::Table& t = doc.AddTable("resources", "Resources",
                                {{"name", "resource"},
                                 {"capacity", "capacity"},
                                 {"utilisation", "busy", 3},
                                 {"mean_queue_length", "mean queue", 2},
                                 {"max_queue_length", "max queue"},
                                 {"mean_wait_ms", "mean wait (ms)", 2},
                                 {"timeouts", "timeouts"}});
  for (const Resource* r : rs) {
    const ResourceStats s = r->Stats();
    t.Add({r->name(), r->capacity(), s.utilisation, s.mean_queue_length,
           s.max_queue_length, s.mean_wait_s * 1e3, s.timeouts});
  }
}

void AddSteadyFields(core::Document& doc, const SteadyVerdict& v) {
  doc.Set("steady", "steady result", v.steady);
  if (v.steady) return;
  doc.Set("steady_reasons", "why not steady", absl::StrJoin(v.reasons, "; "));
  for (const std::string& r : v.reasons) {
    doc.Note(absl::StrCat("warning: not a steady result: ", r, "."));
  }
}

void MergeSteady(SteadyVerdict& run, const std::string& row,
                 const SteadyVerdict& v) {
  if (v.steady) return;
  run.steady = false;
  for (const std::string& r : v.reasons) {
    run.reasons.push_back(absl::StrCat(row, ": ", r));
  }
}

void AddCaseStudyTable(core::Document& doc,
                       const std::vector<CaseStudyRow>& rows) {
  if (rows.empty()) return;
  core::Table& t = doc.AddTable("case_study", "Beside the case study",
                                {{"figure", "figure"},
                                 {"case_study", "case study", 1},
                                 {"perflab", "perflab", 1},
                                 {"difference_pct", "difference (%)", 1}});
  for (const CaseStudyRow& r : rows) {
    t.Add({r.figure, r.case_study, r.perflab,
           r.case_study != 0
               ? core::Value((r.perflab - r.case_study) / r.case_study * 100)
               : core::Value()});
  }
}

}  // namespace perflab::sim
