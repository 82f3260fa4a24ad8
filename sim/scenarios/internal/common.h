// Private to sim/scenarios: the small helpers the scenario files share (key
// declarations, unit conversions, summary columns). Callers outside
// sim/scenarios/ use scenario.h only.
#ifndef PERFLAB_SIM_SCENARIOS_INTERNAL_COMMON_H_
#define PERFLAB_SIM_SCENARIOS_INTERNAL_COMMON_H_

#include <cmath>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/str_format.h"
#include "core/case_study.h"
#include "core/document.h"
#include "sim/engine.h"
#include "sim/measure.h"
#include "sim/resource.h"
#include "sim/scenarios/scenario.h"
#include "sim/steady_state.h"

namespace perflab::sim {

// A number as the user would type it (shortest form: 0.569, 30000): a key's
// default, so it can come from a constant (core/case_study.h) defined once,
// and the bounds of its accepted range.
inline std::string DefaultText(double value) {
  return absl::StrFormat("%.10g", value);
}

inline KeySpec IntKey(std::string name, std::string fallback, double min,
                      double max, std::string help) {
  KeySpec k;
  k.name = std::move(name);
  k.type = KeySpec::Type::kInt;
  k.fallback = std::move(fallback);
  k.min = min;
  k.max = max;
  k.help = std::move(help);
  return k;
}
// Whether a number key's min is itself accepted: kOpen rejects it, for rates
// and times that must be > 0 (their help reads "a number in (0, max]").
enum class LowerBound { kClosed, kOpen };

// A number in [min, max], or (min, max] with LowerBound::kOpen.
inline KeySpec NumKey(std::string name, std::string fallback, double min,
                      double max, std::string help,
                      LowerBound lower = LowerBound::kClosed) {
  KeySpec k =
      IntKey(std::move(name), std::move(fallback), min, max, std::move(help));
  k.type = KeySpec::Type::kNumber;
  k.min_open = lower == LowerBound::kOpen;
  return k;
}
// Comma-separated numbers, each in the range NumKey's arguments give.
inline KeySpec ListKey(std::string name, std::string fallback, double min,
                       double max, std::string help,
                       LowerBound lower = LowerBound::kClosed) {
  KeySpec k = NumKey(std::move(name), std::move(fallback), min, max,
                     std::move(help), lower);
  k.type = KeySpec::Type::kList;
  return k;
}
inline KeySpec ChoiceKey(std::string name, std::string fallback,
                         std::vector<std::string> choices, std::string help) {
  KeySpec k;
  k.name = std::move(name);
  k.type = KeySpec::Type::kChoice;
  k.fallback = std::move(fallback);
  k.choices = std::move(choices);
  k.help = std::move(help);
  return k;
}
// The key every scenario has: the budget that stops a run gone wrong.
inline KeySpec MaxPendingKey() {
  return IntKey("max_pending", "2000000", 1000, 100000000,
                "budget: pending events + live processes before the run stops");
}

// The run budget from the max_pending key (MaxPendingKey); the rest default.
inline Budget BudgetFrom(const Params& p) {
  Budget budget;
  budget.max_pending = p.Integer("max_pending");
  return budget;
}
// Meter options from the warmup_s and duration_s keys; the rest default.
inline MeterOptions MeterOptionsFrom(const Params& p) {
  MeterOptions mo;
  mo.warmup = SecToNs(p.Number("warmup_s"));
  mo.window = SecToNs(p.Number("duration_s"));
  return mo;
}

// Whether `formula` names `key` as a whole word ("lookups" in
// "2 x lookups", not in "warm_lookups").
bool NamesKey(std::string_view formula, std::string_view key);
// "accepted FORMULA <= MAX": the work bound as its refusal and the --help of
// each key it names print it.
std::string WorkBoundText(const WorkBound& bound);

// Columns and cells of a run summary, for scenarios that print one row per run.
std::vector<core::Column> SummaryColumns();
std::vector<core::Value> SummaryCells(const Summary& s);
// The meter's summary as top-level fields, and its latency histogram
// (models::Histogram) attached under kLatencyHistogram for the sweep.
void AddSummaryFields(core::Document& doc, const Meter& meter);
// A "resources" table: each resource's utilisation, queue and timeouts.
void AddResourceTable(core::Document& doc,
                      const std::vector<const Resource*>& rs);

// The shared steady-state verdict of a one-window run: a `steady` field
// (true/false), `steady_reasons` when false, and a plain warning note.
void AddSteadyFields(core::Document& doc, const SteadyVerdict& v);
// For scenarios with one run per row: folds a row's verdict into the whole
// run's (steady only when every row is), each reason prefixed with `row`.
void MergeSteady(SteadyVerdict& run, const std::string& row,
                 const SteadyVerdict& v);

// One row of the shape table: a case-study figure beside perflab's.
struct CaseStudyRow {
  std::string figure;  // what it is, with its unit: "p99, 200 threads (ms)"
  double case_study = 0;
  double perflab = 0;
};
// The "case_study" table (figure, case study, perflab, difference %), the
// side by side figures.md asks for. Nothing is added for an empty list.
void AddCaseStudyTable(core::Document& doc,
                       const std::vector<CaseStudyRow>& rows);

}  // namespace perflab::sim

#endif  // PERFLAB_SIM_SCENARIOS_INTERNAL_COMMON_H_
