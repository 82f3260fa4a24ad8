#include "tools/compare/compare.h"

#include <algorithm>
#include <map>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "models/mann_whitney.h"
#include "models/median.h"

namespace perflab::compare {

std::string_view VerdictName(Verdict verdict) {
  switch (verdict) {
    case Verdict::kSame:
      return "same";
    case Verdict::kFaster:
      return "faster";
    case Verdict::kSlower:
      return "slower";
  }
  return "same";  // unreachable: the switch covers every enumerator
}

bool HigherIsBetter(std::string_view metric) {
  return metric.ends_with("per_second") || metric.ends_with("_per_s");
}

absl::StatusOr<Comparison> Compare(const std::vector<BenchmarkSamples>& base,
                                   const std::vector<BenchmarkSamples>& cont,
                                   const Options& options) {
  std::map<std::string, const BenchmarkSamples*, std::less<>> in_cont;
  for (const BenchmarkSamples& s : cont) in_cont[s.name] = &s;
  std::map<std::string, bool, std::less<>> in_base;
  Comparison c;
  std::vector<double> ratios;
  for (const BenchmarkSamples& b : base) {
    in_base[b.name] = true;
    auto it = in_cont.find(b.name);
    if (it == in_cont.end()) {
      c.only_in_base.push_back(b.name);
      continue;
    }
    const BenchmarkSamples& k = *it->second;
    if (b.unit != k.unit) {
      return absl::InvalidArgumentError(absl::StrCat(
          b.name, ": time_unit '", b.unit, "' in BASE but '", k.unit,
          "' in CONTENDER; accepted: the same unit in both files (rerun one "
          "with the other's --benchmark_time_unit)"));
    }
    Row r;
    r.name = b.name;
    r.unit = b.unit;
    r.base_n = b.values.size();
    r.contender_n = k.values.size();
    r.base_median = models::Median(b.values);
    r.contender_median = models::Median(k.values);
    if (!(r.base_median > 0) || !(r.contender_median > 0)) {
      return absl::InvalidArgumentError(
          absl::StrCat(b.name, ": median ", options.metric, " is ",
                       r.base_median, " (BASE) and ", r.contender_median,
                       " (CONTENDER); accepted: medians > 0"));
    }
    // Finite medians > 0 can still be so far apart that their ratio (or the
    // change in percent, 100 times it) is past a double's range, or so
    // close to 0 that the geometric mean's log is -inf: refused, never inf.
    const double ratio = r.contender_median / r.base_median;
    if (!(ratio >= kMinRatio && ratio <= kMaxRatio)) {
      return absl::InvalidArgumentError(absl::StrCat(
          b.name, ": median ", options.metric, " is ", r.base_median,
          " (BASE) and ", r.contender_median,
          " (CONTENDER), a ratio past what a change in percent holds; "
          "accepted: medians within a factor of ",
          absl::StrFormat("%g", kMaxRatio), " of each other"));
    }
    r.change_pct = (ratio - 1) * 100;
    absl::StatusOr<models::MannWhitneyResult> u =
        models::MannWhitneyU(b.values, k.values);
    if (!u.ok()) return u.status();
    r.p_value = u->p_value;
    const bool significant = r.p_value < options.alpha &&
                             std::abs(r.change_pct) > options.threshold_pct;
    const bool worse = HigherIsBetter(options.metric) ? ratio < 1 : ratio > 1;
    r.verdict = !significant ? Verdict::kSame
                : worse      ? Verdict::kSlower
                             : Verdict::kFaster;
    c.any_slower |= r.verdict == Verdict::kSlower;
    c.unreliable |= std::min(r.base_n, r.contender_n) < kReliableRepetitions;
    ratios.push_back(ratio);
    c.rows.push_back(std::move(r));
  }
  for (const BenchmarkSamples& k : cont) {
    if (!in_base.contains(k.name)) c.only_in_contender.push_back(k.name);
  }
  if (c.rows.empty()) {
    return absl::InvalidArgumentError(
        "BASE and CONTENDER share no benchmark name; accepted: two runs of "
        "the same benchmarks");
  }
  // Medians are finite and > 0, but their ratio can still overflow.
  absl::StatusOr<double> geomean = models::GeometricMean(ratios);
  if (!geomean.ok()) return geomean.status();
  c.geomean_ratio = *geomean;
  return c;
}

core::Document ToDocument(const Comparison& c, const Options& options) {
  core::Document doc(absl::StrCat("Benchmark comparison (", options.metric,
                                  ", medians; contender vs base)"));
  doc.Set("geomean_ratio", "geometric mean of contender/base", c.geomean_ratio,
          4);
  doc.Set("slower", "benchmarks slower",
          static_cast<int64_t>(std::count_if(
              c.rows.begin(), c.rows.end(),
              [](const Row& r) { return r.verdict == Verdict::kSlower; })));
  doc.Set("faster", "benchmarks faster",
          static_cast<int64_t>(std::count_if(
              c.rows.begin(), c.rows.end(),
              [](const Row& r) { return r.verdict == Verdict::kFaster; })));
  const std::string unit = c.rows.front().unit;
  const std::string u = unit.empty() ? "" : absl::StrCat(" (", unit, ")");
  core::Table& t = doc.AddTable("benchmarks", "",
                                {{"name", "benchmark", 0},
                                 {"base_median", "base" + u, 2},
                                 {"contender_median", "contender" + u, 2},
                                 {"change_pct", "change (%)", 2},
                                 {"p_value", "p (U test)", 4},
                                 {"verdict", "verdict", 0},
                                 {"repetitions", "reps (base/contender)", 0},
                                 {"unit", "unit", 0}});
  for (const Row& r : c.rows) {
    t.Add({r.name, r.base_median, r.contender_median, r.change_pct, r.p_value,
           std::string(VerdictName(r.verdict)),
           absl::StrCat(r.base_n, "/", r.contender_n), r.unit});
  }
  // Always present (possibly empty) so scripts can rely on the keys.
  struct OnlyIn {
    const char* key;
    std::string title;
    const std::vector<std::string>& names;
  };
  for (const OnlyIn& o :
       {OnlyIn{"only_in_base", "only in BASE", c.only_in_base},
        OnlyIn{"only_in_contender", "only in CONTENDER",
               c.only_in_contender}}) {
    core::Table& t =
        doc.AddTable(o.key, o.names.empty() ? o.title + ": none" : o.title,
                     {{"name", "benchmark", 0}});
    for (const std::string& n : o.names) t.Add({n});
  }
  doc.Note(absl::StrFormat(
      "verdict: %s/%s when p < %g (two-sided Mann-Whitney U) and "
      "|change| > %g %%; otherwise %s",
      VerdictName(Verdict::kSlower), VerdictName(Verdict::kFaster),
      options.alpha, options.threshold_pct, VerdictName(Verdict::kSame)));
  if (c.unreliable) {
    doc.Note(absl::StrCat("warning: fewer than ", kReliableRepetitions,
                          " repetitions a side; the verdicts are unreliable "
                          "(use ",
                          kReliableRepetitions,
                          "+: --benchmark_repetitions, or bench-commits "
                          "--reps)"));
  }
  return doc;
}

}  // namespace perflab::compare
