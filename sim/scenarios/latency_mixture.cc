// latency-mixture (laws chapter): 100,000 latencies from three code paths; the
// mean sits where no request lives, and averaging two instances' p99s
// understates the p99 of their merged traffic.
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "models/histogram.h"
#include "models/percentiles.h"
#include "sim/random.h"
#include "sim/scenarios/internal/common.h"
#include "sim/scenarios/internal/plot_tables.h"

namespace perflab::sim {
namespace {

Mixture Healthy(const Params& p) {
  Mixture m;
  const double fast = 1 - p.Number("slow_share") - p.Number("stall_share");
  m.Add(fast, Dist::Lognormal(p.Number("fast_ms"), p.Number("fast_cv")));
  m.Add(p.Number("slow_share"), Dist::Uniform(120, 200));
  m.Add(p.Number("stall_share"), Dist::Uniform(800, 2000));
  return m;
}

struct Modes {
  int64_t count[3] = {0, 0, 0};  // < 50 ms, 50-500 ms, >= 500 ms
  __int128 tail_sum = 0;         // sum of the latencies >= 500 ms
};

// Records `n` draws (rounded to microseconds) into `rec`.
void Draw(const Mixture& m, int64_t n, Rng& rng, LatencyRecorder& rec,
          Modes* modes = nullptr) {
  for (int64_t i = 0; i < n; ++i) {
    const Time v = static_cast<Time>(std::llround(m.Sample(rng) * 1e3)) * kUs;
    rec.Record(v);
    if (modes != nullptr) {
      modes->count[v < 50 * kMs ? 0 : v < 500 * kMs ? 1 : 2]++;
      if (v >= 500 * kMs) modes->tail_sum += v;
    }
  }
}

absl::StatusOr<core::Document> Run(const Params& p, uint64_t seed) {
  if (p.Number("slow_share") + p.Number("stall_share") >= 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "key 'slow_share' = '", p.Text("slow_share"), "' with stall_share = '",
        p.Text("stall_share"), "': accepted slow_share + stall_share < 1"));
  }
  const int64_t n = p.Integer("samples");
  Rng rng(seed, "mixture");
  LatencyRecorder all(static_cast<size_t>(n));
  Modes modes;
  Draw(Healthy(p), n, rng, all, &modes);
  core::Document doc("Latency mixture: the mean against the percentiles");
  doc.Set("samples", "samples", all.Count());
  doc.Set("mean_ms", "mean (ms)", all.MeanMs(), 1);
  doc.Set("p50_ms", "p50 (ms)", all.PercentileMs(50), 1);
  doc.Set("p95_ms", "p95 (ms)", all.PercentileMs(95), 1);
  doc.Set("p99_ms", "p99 (ms)", all.PercentileMs(99), 1);
  doc.Set("p999_ms", "p99.9 (ms)", all.PercentileMs(99.9), 1);
  doc.Set("max_ms", "max (ms)", all.MaxMs(), 1);
  // How much of the mean the tail above 500 ms carries, and the three modes.
  doc.Set("above_500ms", "requests above 500 ms", modes.count[2]);
  doc.Set("tail_mean_contribution_ms", "mean contributed by them (ms)",
          static_cast<double>(modes.tail_sum) / static_cast<double>(n) / kMs,
          1);
  doc.Set("tail_mean_share_pct", "share of the mean they carry (%)",
          all.MeanMs() > 0
              ? static_cast<double>(modes.tail_sum) / static_cast<double>(n) /
                    kMs / all.MeanMs() * 100
              : 0.0,
          1);
  core::Table& m = doc.AddTable(
      "modes", "Modes", {{"range", "latency range"}, {"count", "requests"}});
  m.Add({std::string("< 50 ms"), modes.count[0]});
  m.Add({std::string("50-500 ms"), modes.count[1]});
  m.Add({std::string(">= 500 ms"), modes.count[2]});
  // For the plots (tools/plots): the spectrum and the three modes drawn.
  AddSpectrumTable(doc, {{"latency", &all}});
  AddLogHistogramTable(doc, all, 10);

  // Two instances: one healthy, one with a stalled 5 %.
  Mixture healthy;
  healthy.Add(1, Dist::Lognormal(p.Number("fast_ms"), p.Number("fast_cv")));
  Mixture sick;
  sick.Add(1 - p.Number("sick_share"),
           Dist::Lognormal(p.Number("fast_ms"), p.Number("fast_cv")));
  sick.Add(p.Number("sick_share"), Dist::Uniform(760, 1060));
  Rng a(seed, "healthy"), b(seed, "sick");
  LatencyRecorder h(static_cast<size_t>(n)), s(static_cast<size_t>(n));
  Draw(healthy, n, a, h);
  Draw(sick, n, b, s);
  models::Histogram merged = h.histogram();
  if (absl::Status st = merged.Merge(s.histogram()); !st.ok()) return st;
  const double avg = (h.PercentileMs(99) + s.PercentileMs(99)) / 2;
  core::Table& t =
      doc.AddTable("instances", "Two instances",
                   {{"name", "instance"}, {"p99_ms", "p99 (ms)", 1}});
  t.Add({std::string("healthy"), h.PercentileMs(99)});
  t.Add({std::string("sick"), s.PercentileMs(99)});
  t.Add({std::string("average of p99s"), avg});
  t.Add({std::string("merged histograms"), ToMs(merged.Percentile(99))});
  // A tail percentile needs about ten samples above it to mean anything.
  constexpr double kTailSamples = 10;
  for (double pct : {99.0, 99.9}) {
    if (n < models::SamplesForTail(pct, kTailSamples)) {
      doc.Note(absl::StrCat(
          "warning: p", pct, " rests on ",
          absl::StrFormat("%.1f", static_cast<double>(n) * (1 - pct / 100)),
          " samples above it; it needs ",
          models::SamplesForTail(pct, kTailSamples),
          " requests for about ten (raise samples)."));
    }
  }
  namespace cs = case_study;
  if (n == 100'000 && p.Number("slow_share") == 0.025 &&
      p.Number("stall_share") == 0.005) {
    AddCaseStudyTable(
        doc,
        {{"mean (ms)", cs::kMixtureMeanMs, all.MeanMs()},
         {"p50 (ms)", cs::kMixtureP50Ms, all.PercentileMs(50)},
         {"p99 (ms)", cs::kMixtureP99Ms, all.PercentileMs(99)},
         {"p99.9 (ms)", cs::kMixtureP999Ms, all.PercentileMs(99.9)},
         {"average of two p99s (ms)", cs::kAveragedP99Ms, avg},
         {"merged p99 (ms)", cs::kMergedP99Ms, ToMs(merged.Percentile(99))}});
  }
  doc.Note(
      "Percentiles of one sample set are exact nearest-rank; the merged p99 "
      "comes from adding histogram buckets (3 significant digits).");
  return doc;
}

}  // namespace

Scenario LatencyMixtureScenario() {
  return {
      "latency-mixture",
      "a three-mode latency mixture: mean vs p50/p99/p99.9, merged vs averaged "
      "p99",
      // About 7e5 samples a second here (drawn, sorted, summarised): 5e6
      // is seconds.
      {IntKey("samples", "100000", 100, 5000000, "latencies drawn"),
       NumKey("fast_ms", "15.5", 0, 1e6, "fast path (cache hit): mean (ms)",
              LowerBound::kOpen),
       NumKey("fast_cv", "0.25", 0, 10, "fast path: variation (lognormal cv)"),
       NumKey("slow_share", "0.025", 0, 1,
              "share on the slow path, 120-200 ms"),
       NumKey("stall_share", "0.005", 0, 1, "share stalled, 800-2000 ms"),
       NumKey("sick_share", "0.05", 0, 1,
              "sick instance: share stalled 760-1060 ms"),
       MaxPendingKey()},
      Run};
}

const ScenarioRegistration kLatencyMixture(LatencyMixtureScenario);

}  // namespace perflab::sim
