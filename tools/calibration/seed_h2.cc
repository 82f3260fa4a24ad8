#include "tools/calibration/seed_h2.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <initializer_list>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "sim/order_service/calibration.h"

namespace perflab::capstone {
namespace {

using sim::Calibration;
using Member = double Calibration::*;
using S = case_study::CapstoneStep;
using F = case_study::FigureId;
using Row = case_study::CapstoneStepFigures;
using Column = double Row::*;
constexpr Column kRps = &Row::rps;
constexpr Column kCpuCores = &Row::cpu_cores;
constexpr Column kQueries = &Row::queries_per_request;

[[noreturn]] void Missing(std::string_view what, std::string_view name) {
  std::fprintf(stderr, "seed-h2 derivation: no %.*s '%.*s' in its figures\n",
               static_cast<int>(what.size()), what.data(),
               static_cast<int>(name.size()), name.data());
  std::abort();
}

// The step whose own run measured a named figure: the GC logs cover the
// cache step's run (256 MiB) and the heap step's (768 MiB), the JFR profile
// the baseline's, the unloaded open-loop median TCP_NODELAY's. Reading such
// a figure reads that step's results, so it makes the step an input.
std::optional<S> RunOf(F figure) {
  static constexpr std::pair<F, S> kRuns[] = {
      {F::kLiveSetMib, S::kCache},
      {F::kGcPauses256, S::kCache},
      {F::kGcPauseTotal256Ms, S::kCache},
      {F::kGcPauses768, S::kHeap768},
      {F::kGcPauseTotal768Ms, S::kHeap768},
      {F::kJfrDatabasePct, S::kBaseline},
      {F::kJfrFrameworkPct, S::kBaseline},
      {F::kJfrJsonPct, S::kBaseline},
      {F::kJfrHttpClientPct, S::kBaseline},
      {F::kNodelayOpenP50Ms, S::kTcpNodelay},
  };
  for (const auto& [id, step] : kRuns) {
    if (id == figure) return step;
  }
  return std::nullopt;
}

const char* Name(S step) { return case_study::CapstoneRow(step).step; }

// The name a source cites a column by.
std::string_view Name(Column column) {
  for (const auto& c : case_study::kCapstoneColumns) {
    if (c.member == column) return c.name;
  }
  std::abort();
}

double Round(double v, int decimals) {
  const double scale = std::pow(10.0, decimals);
  return std::round(v * scale) / scale;
}

// Derives one field at a time. Every read of a cell, a figure or an earlier
// field is recorded against the field being derived, so its Provenance is
// what the arithmetic actually read (and, through `fields`, what those read).
class Derivation {
 public:
  Derivation(const PublishedFigures& figures, std::optional<S> excluded)
      : figures_(figures), excluded_(excluded) {
    const size_t n = sim::CalibrationFields().size();
    file_.sources.assign(n, "");
    file_.provenance.assign(n, sim::Provenance{});
    reads_.resize(n);
  }

  // Whether the derivation may read `row` (every row but the excluded one).
  bool Has(S row) const { return row != excluded_; }

  double Cell(S row, Column column) {
    const double v = Peek(row, column);
    current_.cells[std::string(Name(row))].insert(std::string(Name(column)));
    return v;
  }
  // A step's application CPU per request in us: cores / RPS.
  double CpuUs(S row) { return Cell(row, kCpuCores) / Cell(row, kRps) * 1e6; }
  double Figure(F id) {
    const double v = PeekFigure(id);
    current_.figures.insert(figures_.Figure(id).name);
    if (const std::optional<S> run = RunOf(id)) {
      current_.runs.insert(std::string(Name(*run)));
    }
    return v;
  }
  // Rows whose results chose the value or its form: inputs of the field
  // being derived and of every field computed from it.
  void SelectedOn(std::initializer_list<S> rows) {
    for (S row : rows) {
      if (!Has(row)) Missing("selection on the excluded row", Name(row));
      current_.selected.insert(std::string(Name(row)));
    }
  }
  // An earlier field's (rounded) value; its reads become this field's too.
  double Field(Member m) {
    const size_t i = Index(m);
    if (!done_.count(i)) Missing("derived field", FieldName(m));
    for (const auto& [row, columns] : reads_[i].cells) {
      current_.cells[row].insert(columns.begin(), columns.end());
    }
    current_.figures.insert(reads_[i].figures.begin(), reads_[i].figures.end());
    current_.selected.insert(reads_[i].selected.begin(),
                             reads_[i].selected.end());
    current_.runs.insert(reads_[i].runs.begin(), reads_[i].runs.end());
    current_.fields.insert(i);
    return file_.values.*m;
  }
  // Figures for a check in a source text only: not recorded, since the value
  // does not depend on them.
  double Peek(S row, Column column) const {
    if (!Has(row)) Missing("read of the excluded row", Name(row));
    return figures_.Row(row).*column;
  }
  double PeekFigure(F id) const { return figures_.Figure(id).value; }

  // Finishes the field being derived: rounds, stores, records.
  double Set(Member m, double value, int decimals, std::string text) {
    const size_t i = Index(m);
    file_.values.*m = Round(value, decimals);
    file_.sources[i] = std::move(text);
    sim::Provenance& p = file_.provenance[i];
    for (const auto& row : figures_.table) {
      auto it = current_.cells.find(row.step);
      if (it == current_.cells.end()) continue;
      sim::TableCells cells{row.step, {}};
      for (const auto& c : case_study::kCapstoneColumns) {
        if (it->second.count(c.name)) cells.columns.emplace_back(c.name);
      }
      p.rows.push_back(std::move(cells));
    }
    for (const auto& row : figures_.table) {
      if (current_.selected.count(row.step))
        p.selected_on.emplace_back(row.step);
      if (current_.runs.count(row.step)) p.runs.emplace_back(row.step);
    }
    for (const auto& f : case_study::kNamedFigures) {
      if (current_.figures.count(f.name)) p.figures.emplace_back(f.name);
    }
    for (size_t k : current_.fields) {
      p.fields.emplace_back(sim::CalibrationFields()[k].name);
    }
    p.kind = !p.rows.empty()      ? sim::SourceKind::kTable
             : !p.figures.empty() ? sim::SourceKind::kPublished
                                  : sim::SourceKind::kAssumed;
    if (p.kind == sim::SourceKind::kAssumed) {
      Missing("figure for", FieldName(m));
    }
    reads_[i] = std::move(current_);
    current_ = {};
    done_.insert(i);
    return file_.values.*m;
  }
  // Marks the field just Set as fitted to the cells it read.
  void Fitted(Member m, std::string why) {
    sim::Provenance& p = file_.provenance[Index(m)];
    p.kind = sim::SourceKind::kFitted;
    p.why = std::move(why);
  }
  // A stated value no published figure gives.
  void Assume(Member m, double value, std::string why, std::string text) {
    const size_t i = Index(m);
    file_.values.*m = value;
    file_.sources[i] = std::move(text);
    file_.provenance[i].kind = sim::SourceKind::kAssumed;
    file_.provenance[i].why = std::move(why);
    current_ = {};
    done_.insert(i);
  }

  // A field no figure gives without the excluded row: 0, and listed.
  void Underive(Member m, const std::string& why) {
    underived_.emplace_back(FieldName(m));
    Assume(m, 0, why, "not derived: " + why);
  }

  SeedH2Fold Take() {
    std::vector<std::string> underived;
    for (const auto& f : sim::CalibrationFields()) {
      if (std::find(underived_.begin(), underived_.end(), f.name) !=
          underived_.end()) {
        underived.emplace_back(f.name);
      }
    }
    return {std::move(file_), std::move(underived)};
  }

 private:
  struct Reads {
    std::map<std::string, std::set<std::string>> cells;
    std::set<std::string> selected, runs;
    std::set<std::string> figures;
    std::set<size_t> fields;
  };
  static size_t Index(Member m) {
    const auto& all = sim::CalibrationFields();
    for (size_t i = 0; i < all.size(); ++i) {
      if (all[i].member == m) return i;
    }
    std::abort();
  }
  static std::string_view FieldName(Member m) {
    return sim::CalibrationFields()[Index(m)].name;
  }

  const PublishedFigures& figures_;
  std::optional<S> excluded_;
  std::vector<std::string_view> underived_;
  CalibrationFile file_;
  std::vector<Reads> reads_;
  Reads current_;
  std::set<size_t> done_;
};

}  // namespace

PublishedFigures CaseStudyFigures() {
  PublishedFigures f;
  f.table.assign(std::begin(case_study::kCapstoneTable),
                 std::end(case_study::kCapstoneTable));
  f.named.assign(std::begin(case_study::kNamedFigures),
                 std::end(case_study::kNamedFigures));
  return f;
}

const case_study::CapstoneStepFigures& PublishedFigures::Row(
    case_study::CapstoneStep step) const {
  for (const auto& row : table) {
    if (row.id == step) return row;
  }
  Missing("table row", Name(step));
}

const case_study::NamedFigure& PublishedFigures::Figure(
    case_study::FigureId id) const {
  for (const auto& f : named) {
    if (f.id == id) return f;
  }
  for (const auto& f : case_study::kNamedFigures) {
    if (f.id == id) Missing("named figure", f.name);
  }
  std::abort();
}

CalibrationFile DeriveSeedH2(const PublishedFigures& figures) {
  return DeriveSeedH2Without(figures, std::nullopt).file;
}

namespace {

// The fields the JVM model never reads: the C++ service's.
void AssumeNotForTheJvm(Derivation& d) {
  using C = Calibration;
  const char* kCpp =
      "not for the JVM model: the C++ order service of capstone --real only "
      "(0: not measured)";
  for (Member m : {&C::cpp_hit_pooled_us, &C::cpp_hit_per_connection_us,
                   &C::cpp_miss_pooled_us, &C::cpp_miss_per_connection_us,
                   &C::cpp_front_end_us, &C::cpp_handoff_us,
                   &C::cpp_idle_wake_us, &C::cpp_build_page_us,
                   &C::cpp_build_page_arena_us, &C::cpp_generator_cpu_us}) {
    d.Assume(m, 0, "the JVM model does not read it", kCpp);
  }
}

// The case study publishes nothing of its kernel's scheduling, so these are
// stated, each with its reason; only the working set follows a derived
// field. 16 Tomcat threads share the fitted effective cores, so requests do
// queue for a core and each dispatch of another thread costs a switch.
void AssumeTheJvmsScheduling(Derivation& d) {
  using C = Calibration;
  d.Assume(&C::sched_quantum_us, 3000,
           "Linux's default slice for 8 CPUs: a base of 0.75 ms scaled by "
           "1 + log2(8) (sched_base_slice_ns, or sched_min_granularity_ns "
           "before 6.6, with the default logarithmic tunable scaling)",
           "assumed: 3 ms, the kernel's default slice on 8 vCPUs");
  d.Assume(&C::sched_switch_us, 2,
           "a direct switch between two threads with no working set costs "
           "1-3 us on current x86 Linux (lmbench lat_ctx; 1.8 us on this "
           "lab's 2-vCPU EPYC VM)",
           "assumed: 2 us, lmbench lat_ctx's order on x86 Linux");
  const std::pair<Member, double> refill[] = {{&C::sched_refill_16kib_us, 0.3},
                                              {&C::sched_refill_64kib_us, 0.6},
                                              {&C::sched_refill_256kib_us, 1.2},
                                              {&C::sched_refill_1mib_us, 2.2}};
  for (const auto& [m, us] : refill) {
    d.Assume(m, us,
             "the refill curve measured on this lab's 2-vCPU EPYC VM "
             "(BM_Switch_WorkingSet), rounded: the case study's machine is "
             "not measured",
             absl::StrFormat("assumed: %.1f us, this lab's refill curve", us));
  }
  const double kib = d.Field(&C::alloc_per_request_mib) * 1024;
  d.Set(&C::handler_working_set_kib, std::min(1024.0, kib), 0,
        absl::StrFormat(
            "alloc_per_request_mib x 1024 = %.0f KiB (at most 1024): what a "
            "request allocates is what it brings back into the cache",
            kib));
  for (const sim::CalibrationField& f : sim::CalibrationFields()) {
    if (!f.name.starts_with("contention_")) continue;
    d.Assume(f.member, 0,
             "no contention: the case study publishes nothing of what its "
             "threads' shared parts (cache, pool, allocator, counters) cost "
             "them together",
             "assumed: 0, each shared part costs what it costs one thread");
  }
}

// What the case study does not publish: the C++ service's fields and the
// JVM's scheduling.
void AssumeTheUnpublished(Derivation& d) {
  AssumeNotForTheJvm(d);
  AssumeTheJvmsScheduling(d);
}

using C = Calibration;
using absl::StrFormat;

// What a request allocates, from the heap step's GC logs: the 256 MiB log
// covers the cache step's run; without that row, the 768 MiB log covers the
// heap step's. And the live set the logs show.
void DeriveAllocation(Derivation& d) {
  const bool cache_log = d.Has(S::kCache);
  const S log_step = cache_log ? S::kCache : S::kHeap768;
  const F log_heap = cache_log ? F::kHeapMib : F::kTunedHeapMib;
  const F log_pauses = cache_log ? F::kGcPauses256 : F::kGcPauses768;
  const double young_log = d.Figure(log_heap) - d.Figure(F::kLiveSetMib);
  const double log_requests =
      d.Cell(log_step, kRps) *
          (d.Figure(F::kRigWarmupS) + d.Figure(F::kClosedLoopDurationS)) +
      d.Figure(F::kOpenLoopRatePerS) * d.Figure(F::kOpenLoopDurationS);
  const double log_pause_count = d.Figure(log_pauses);
  d.Set(&C::alloc_per_request_mib, log_pause_count * young_log / log_requests,
        4,
        StrFormat("%g young pauses x %g MiB young (heap %g - live %g) / "
                  "%.0f requests of the %s step (%g RPS x %g s + %g "
                  "req/s x %g s), whose run the %g MiB log covers; an "
                  "upper bound (the seeding's allocation is counted)",
                  log_pause_count, young_log, d.PeekFigure(log_heap),
                  d.PeekFigure(F::kLiveSetMib), log_requests, Name(log_step),
                  d.Peek(log_step, kRps),
                  d.PeekFigure(F::kRigWarmupS) +
                      d.PeekFigure(F::kClosedLoopDurationS),
                  d.PeekFigure(F::kOpenLoopRatePerS),
                  d.PeekFigure(F::kOpenLoopDurationS), d.PeekFigure(log_heap)));
  d.Set(&C::live_set_mib, d.Figure(F::kLiveSetMib), 1,
        "GC log: about 206M live after a concurrent mark");
}

// The young pause as a line through the logs' two mean pauses: its slope
// per young MiB.
void DeriveYoungPauseSlope(Derivation& d) {
  const double mean256 =
      d.Figure(F::kGcPauseTotal256Ms) / d.Figure(F::kGcPauses256);
  const double mean768 =
      d.Figure(F::kGcPauseTotal768Ms) / d.Figure(F::kGcPauses768);
  const double y256 = d.Figure(F::kHeapMib) - d.Figure(F::kLiveSetMib);
  const double y768 = d.Figure(F::kTunedHeapMib) - d.Figure(F::kLiveSetMib);
  d.Set(&C::young_pause_per_mib_ms, (mean768 - mean256) / (y768 - y256), 3,
        StrFormat("slope of the line through the GC logs' mean young pauses, "
                  "%g ms / %g = %.2f ms at %g MiB young and %g / %g = %.2f "
                  "ms at %g MiB: (%.2f - %.2f) / (%g - %g)",
                  d.PeekFigure(F::kGcPauseTotal256Ms),
                  d.PeekFigure(F::kGcPauses256), mean256, y256,
                  d.PeekFigure(F::kGcPauseTotal768Ms),
                  d.PeekFigure(F::kGcPauses768), mean768, y768, mean768,
                  mean256, y768, y256));
}

// The same line's base at 0 MiB young. It reads the figures again, not the
// slope's locals: a field's provenance is what its own calls read.
void DeriveYoungPauseBase(Derivation& d) {
  const double mean256 =
      d.Figure(F::kGcPauseTotal256Ms) / d.Figure(F::kGcPauses256);
  const double y256 = d.Figure(F::kHeapMib) - d.Figure(F::kLiveSetMib);
  const double slope = d.Field(&C::young_pause_per_mib_ms);
  d.Set(&C::young_pause_base_ms, mean256 - slope * y256, 1,
        StrFormat("the same line at 0 MiB young: %.2f ms - %g x %g MiB",
                  mean256, slope, y256));
}

// Fitted, not derived: from the index step to virtual threads (keep-alive
// aside, its stalled 0.9 cores) the CPU column stays at 3.7-4.8 cores
// whatever limit the text names, as if one resource of about 4 cores were
// saturated; with the text's 8 vCPUs the model ran those steps 1.3-1.7x too
// fast. That form was chosen by looking at those five rows, so all five
// are its inputs; the value is their mean CPU in whole cores, over the
// rows kept when one is left out.
void FitEffectiveCores(Derivation& d) {
  std::vector<std::string> kept;
  double sum = 0;
  for (S row :
       {S::kIndex, S::kJoin, S::kTcpNodelay, S::kPool8, S::kVirtualThreads}) {
    if (!d.Has(row)) continue;
    kept.emplace_back(Name(row));
    sum += d.Cell(row, kCpuCores);
    d.SelectedOn({row});
  }
  const double mean = sum / static_cast<double>(kept.size());
  const std::string rows = absl::StrJoin(kept, ", ");
  d.Set(&C::effective_cores, mean, 0,
        StrFormat("fitted: the mean CPU of the %s steps, %.2f cores of "
                  "the 8 vCPUs, rounded to whole cores (their CPU column "
                  "stays at 3.7-4.8 cores whatever limit the text names; "
                  "a 4 vCPU step gets half)",
                  rows, mean));
  d.Fitted(&C::effective_cores,
           StrFormat("the whole cores nearest the mean CPU of the %s rows, "
                     "%.2f; the form (one saturated resource) was chosen "
                     "because 8 cores ran those steps 1.3-1.7x too fast; "
                     "no figure outside the table gives it, and the text "
                     "says 8 vCPUs and, at TCP_NODELAY's 3.7 cores, 'not "
                     "CPU-saturated'",
                     rows, mean));
}

// A young pause stops every effective core: its CPU per request at a heap
// of `heap` MiB is alloc / young x pause x cores.
double PauseCpuUs(Derivation& d, F heap) {
  const double young = d.Figure(heap) - d.Field(&C::live_set_mib);
  const double pause = d.Field(&C::young_pause_base_ms) +
                       d.Field(&C::young_pause_per_mib_ms) * young;
  return d.Field(&C::alloc_per_request_mib) / young * pause * 1e3 *
         d.Field(&C::effective_cores);
}

// Concurrent marking's CPU per MiB allocated, which only the heap step's
// saving separates from the pauses'.
void DeriveConcurrentMarking(Derivation& d) {
  if (d.Has(S::kCache) && d.Has(S::kHeap768)) {
    const double c7 = d.CpuUs(S::kCache);
    const double c8 = d.CpuUs(S::kHeap768);
    const double p256 = PauseCpuUs(d, F::kHeapMib);
    const double p768 = PauseCpuUs(d, F::kTunedHeapMib);
    d.Set(&C::gc_concurrent_cpu_per_mib_us,
          (c7 - c8 - (p256 - p768)) / d.Field(&C::alloc_per_request_mib), 1,
          StrFormat("the heap step's saving per request C7 - C8 = %.1f - %.1f "
                    "= %.1f us (C_k = cores / RPS), less the young pauses' "
                    "share %.1f - %.1f, per %g MiB allocated: only at 256 MiB "
                    "is the live set above 45 %% of the heap",
                    c7, c8, c7 - c8, p256, p768,
                    d.Field(&C::alloc_per_request_mib)));
  } else {
    d.Assume(&C::gc_concurrent_cpu_per_mib_us, 0,
             "only the heap step's saving C7 - C8 separates concurrent "
             "marking, and one of the two rows is left out: 0, its CPU stays "
             "in the hit path",
             "left-out row: no figure separates concurrent marking (0)");
  }
}

// GC CPU per request at 256 MiB: pauses and concurrent marking.
double Gc256Us(Derivation& d) {
  return PauseCpuUs(d, F::kHeapMib) +
         d.Field(&C::alloc_per_request_mib) *
             d.Field(&C::gc_concurrent_cpu_per_mib_us);
}

// The hit path (framework and JSON) is the heap step's CPU per request, a
// cached page, less its young pauses. Without the heap step's row, the
// cache step's (C7, 256 MiB pauses).
S HitStep(const Derivation& d) {
  return d.Has(S::kHeap768) ? S::kHeap768 : S::kCache;
}
F HitHeap(const Derivation& d) {
  return d.Has(S::kHeap768) ? F::kTunedHeapMib : F::kHeapMib;
}
double HitPathUs(Derivation& d) {
  return d.CpuUs(HitStep(d)) - PauseCpuUs(d, HitHeap(d));
}

// JSON's part of the hit path: its share of the baseline JFR profile's
// framework and JSON samples.
double JfrJsonShare(Derivation& d) {
  return d.Figure(F::kJfrJsonPct) /
         (d.Figure(F::kJfrFrameworkPct) + d.Figure(F::kJfrJsonPct));
}

// Serialisation: the hit path's JSON share.
void DeriveSerialisation(Derivation& d) {
  const S hit_step = HitStep(d);
  const double hit = HitPathUs(d);
  d.Set(&C::serialize_us, hit * JfrJsonShare(d), 1,
        StrFormat(
            "hit path %.1f us x JSON %g %% / (framework %g %% + JSON "
            "%g %%) of the baseline JFR profile; hit path = %s (%g cores / "
            "%g RPS = %.1f) - young pause CPU at %g MiB %.1f",
            hit, d.PeekFigure(F::kJfrJsonPct),
            d.PeekFigure(F::kJfrFrameworkPct), d.PeekFigure(F::kJfrJsonPct),
            d.Has(S::kHeap768) ? "C8" : "C7 (the heap-768 row is left out)",
            d.Peek(hit_step, kCpuCores), d.Peek(hit_step, kRps),
            d.Peek(hit_step, kCpuCores) / d.Peek(hit_step, kRps) * 1e6,
            d.PeekFigure(HitHeap(d)),
            d.Peek(hit_step, kCpuCores) / d.Peek(hit_step, kRps) * 1e6 - hit));
}

// The cache lookup, which no published figure times.
void AssumeCacheLookup(Derivation& d) {
  d.Assume(&C::cache_hit_us, 1,
           "a Caffeine getIfPresent is sub-microsecond; no published figure",
           "a Caffeine getIfPresent: sub-microsecond, rounded up to 1 us");
}

// The rest of the hit path (the framework's share), less the cache lookup.
void DeriveOtherCpu(Derivation& d) {
  const double hit = HitPathUs(d);
  const double cache_hit = d.Field(&C::cache_hit_us);
  d.Set(&C::other_cpu_us, hit * (1 - JfrJsonShare(d)) - cache_hit, 1,
        StrFormat("hit path %.1f us x framework %g %% / (framework %g %% + "
                  "JSON %g %%) of the baseline JFR profile - cache_hit %g",
                  hit, d.PeekFigure(F::kJfrFrameworkPct),
                  d.PeekFigure(F::kJfrFrameworkPct),
                  d.PeekFigure(F::kJfrJsonPct), cache_hit));
}

// The inventory call's CPU: the baseline JFR profile's HTTP client share of
// C0; without that row, the warm call's wall time (an upper bound).
void DeriveInventoryCpu(Derivation& d) {
  if (d.Has(S::kBaseline)) {
    const double c0 = d.CpuUs(S::kBaseline);
    d.Set(&C::inventory_cpu_us, d.Figure(F::kJfrHttpClientPct) / 100 * c0, 1,
          StrFormat("baseline JFR 'socket / HTTP client' %g %% x C0 (%g cores "
                    "/ %g RPS = %.1f us)",
                    d.PeekFigure(F::kJfrHttpClientPct),
                    d.Peek(S::kBaseline, kCpuCores), d.Peek(S::kBaseline, kRps),
                    c0));
  } else {
    d.Set(&C::inventory_cpu_us, d.Figure(F::kHttpCallUs), 1,
          "the pools chapter's warm loopback call, 569 us of wall time: an "
          "upper bound of its CPU (the baseline row, whose JFR share gives "
          "it, is left out)");
  }
}

// C4, the TCP_NODELAY step's CPU per request; without its row the pool
// step's, the same code on a larger pool (a pool adds no CPU per request).
S NodelayStep(const Derivation& d) {
  return d.Has(S::kTcpNodelay) ? S::kTcpNodelay : S::kPool8;
}

// A new connection's CPU: the join step (Connection: close) against
// TCP_NODELAY's (keep-alive); without the join row, the pools chapter's
// new loopback connection.
void DeriveConnect(Derivation& d) {
  const S nodelay_step = NodelayStep(d);
  if (d.Has(S::kJoin)) {
    const double c2 = d.CpuUs(S::kJoin);
    const double c4 = d.CpuUs(nodelay_step);
    d.Set(&C::connect_us, c2 - c4, 1,
          StrFormat("C2 - C4 = %.1f - %.1f (Connection: close against "
                    "keep-alive + TCP_NODELAY%s, the same code otherwise)",
                    c2, c4, d.Has(S::kTcpNodelay) ? "" : ", the pool-8 row's"));
  } else {
    d.Set(&C::connect_us, d.Figure(F::kHttpConnectUs), 1,
          "the pools chapter's new loopback connection, 707 us a call (the "
          "join row, whose CPU against TCP_NODELAY's gives it, is left out)");
  }
}

// What the model bills on every request besides the database.
double HitBilledUs(Derivation& d) {
  return d.Field(&C::serialize_us) + d.Field(&C::cache_hit_us) +
         d.Field(&C::other_cpu_us);
}

// The join's CPU: what is left of C4 besides the hit path, the inventory
// call and GC.
void DeriveJoin(Derivation& d) {
  const double c4 = d.CpuUs(NodelayStep(d));
  const double hit = HitBilledUs(d);
  const double inv = d.Field(&C::inventory_cpu_us);
  const double gc = Gc256Us(d);
  d.Set(&C::join_index_us, c4 - hit - inv - gc, 1,
        StrFormat("C4 - hit path - inventory - GC = %.1f - %.1f - %.1f - "
                  "%.1f%s",
                  c4, hit, inv, gc,
                  d.Has(S::kTcpNodelay) ? "" : " (C4: the pool-8 row's)"));
}

// The pool is the cap at TCP_NODELAY: 16 threads / its RPS per request is
// more than its unloaded median, so requests queue while its cores are
// not saturated, and the text names the pool first. Little's law on the
// saturated connections then gives what each holds per request.
// Without either row, no other gives the hold: it is assumed 0.
void DeriveJoinHold(Derivation& d) {
  if (d.Has(S::kTcpNodelay) && d.Has(S::kPool8)) {
    const double pool = d.Figure(F::kBaselineDbPool);
    const double rps = d.Cell(S::kTcpNodelay, kRps);
    const double join_ms = d.Field(&C::join_index_us) / 1e3;
    const double held_ms = pool / rps * 1e3;
    const double threads = d.PeekFigure(F::kRequestThreads);
    const double median = d.PeekFigure(F::kNodelayOpenP50Ms);
    // That the queue at TCP_NODELAY is a wait, not a hold, was judged on its
    // open-loop median; the hold itself was chosen on the pool step.
    d.SelectedOn({S::kTcpNodelay, S::kPool8});
    const double wait_ms = threads / rps * 1e3 - median;
    d.Set(&C::join_hold_ms, held_ms - join_ms, 4,
          StrFormat("Little's law on the TCP_NODELAY step's %g saturated "
                    "connections, %g / %g RPS = %.3f ms held per request, "
                    "less the join's CPU %.4f ms. The pool is the cap there: "
                    "%g request threads / %g RPS = %.2f ms a request against "
                    "the unloaded open-loop median %g ms, so requests queue "
                    "%.2f ms while %g of 8 cores are busy (the text: 'first "
                    "the pool, then the thread count'); that queue is a wait, "
                    "not a hold (as a hold beside the join's CPU, %.2f ms, %g "
                    "connections would carry %.0f RPS, not %g)",
                    pool, pool, rps, held_ms, join_ms, threads, rps,
                    threads / rps * 1e3, median, wait_ms,
                    d.Peek(S::kTcpNodelay, kCpuCores), wait_ms, pool,
                    pool / (join_ms + wait_ms) * 1e3, rps));
    d.Fitted(&C::join_hold_ms,
             "a hold beyond the join's CPU, and on the join alone (the N+1 "
             "statements get none), was added so that the pool-8 step gains "
             "(without it x0.98 against the case study's x1.12): chosen on "
             "that row, so it is an input; its value reads TCP_NODELAY's");
  } else if (!d.Has(S::kPool8)) {
    d.Assume(&C::join_hold_ms, 0,
             "the join-only hold was chosen on the pool-8 row, which is left "
             "out; the rule stated before looking instead: no statement "
             "holds its connection beyond its CPU",
             "left-out row: the hold was chosen on it; no statement holds its "
             "connection beyond its CPU (0)");
  } else {
    d.Assume(&C::join_hold_ms, 0,
             "only the TCP_NODELAY row shows a saturated pool in front of "
             "one join, and it is left out",
             "left-out row: no other row gives the join's hold (0)");
  }
}

// One item statement's CPU: what is left of C1 besides the rest of the
// request, per statement; an indexed orders query costs as much.
void DeriveStatements(Derivation& d) {
  if (d.Has(S::kIndex)) {
    const double c1 = d.CpuUs(S::kIndex);
    const double statements = d.Cell(S::kIndex, kQueries);
    const double hit = HitBilledUs(d);
    const double inv = d.Field(&C::inventory_cpu_us);
    const double conn = d.Field(&C::connect_us);
    const double gc = Gc256Us(d);
    d.Set(&C::item_statement_us, (c1 - hit - inv - conn - gc) / statements, 1,
          StrFormat("(C1 - hit path - inventory - connect - GC) / %g "
                    "statements = (%.1f - %.1f - %.1f - %.1f - %.1f) / %g",
                    statements, c1, hit, inv, conn, gc, statements));
  } else {
    const double join = d.Field(&C::join_index_us);
    const double statements = d.Cell(S::kBaseline, kQueries);
    d.Set(&C::item_statement_us, join / statements, 1,
          StrFormat("join_index / %g statements = %.1f / %g: the join does "
                    "the page's statements' work in one, without their "
                    "per-statement overhead, so a lower bound (the index "
                    "row, whose CPU gives it, is left out)",
                    statements, join, statements));
  }
  d.Set(&C::orders_query_index_us, d.Field(&C::item_statement_us), 1,
        "taken equal to one item statement (an indexed lookup of a few rows)");
}

// The orders scan's CPU: what is left of C0 besides the follow-up
// statements and the rest of the request; the join over a scan follows.
// Only the baseline runs the scan.
void DeriveScans(Derivation& d) {
  if (d.Has(S::kBaseline)) {
    const double c0 = d.CpuUs(S::kBaseline);
    const double follow_ups = d.Cell(S::kBaseline, kQueries) - 1;
    const double items = follow_ups * d.Field(&C::item_statement_us);
    const double hit = HitBilledUs(d);
    const double inv = d.Field(&C::inventory_cpu_us);
    const double conn = d.Field(&C::connect_us);
    const double gc = Gc256Us(d);
    const double scan = c0 - items - hit - inv - conn - gc;
    d.Set(&C::orders_query_scan_us, scan, 1,
          StrFormat("C0 - %g follow-up statements - hit path - inventory - "
                    "connect - GC = %.1f - %.1f - %.1f - %.1f - %.1f - %.1f "
                    "(C0 = %g cores / %g RPS); database share %.1f %% against "
                    "the JFR's %g %%",
                    follow_ups, c0, items, hit, inv, conn, gc,
                    d.Peek(S::kBaseline, kCpuCores), d.Peek(S::kBaseline, kRps),
                    100 * (Round(scan, 1) + items) / c0,
                    d.PeekFigure(F::kJfrDatabasePct)));
    const double scanned = d.Field(&C::orders_query_scan_us);
    const double index = d.Field(&C::orders_query_index_us);
    const double join = d.Field(&C::join_index_us);
    d.Set(&C::join_scan_us, scanned - index + join, 1,
          StrFormat("orders_query_scan - orders_query_index + join_index = "
                    "%.1f - %.1f + %.1f (the case study did not run it)",
                    scanned, index, join));
  } else {
    d.Underive(&C::orders_query_scan_us,
               "only the baseline row gives the scan's cost, and it is left "
               "out");
    d.Underive(&C::join_scan_us,
               "derived from the scan, which only the baseline row gives");
  }
}

// The case study's service neither crosses a network to its database nor
// compresses.
void AssumeNoNetworkNorCompression(Derivation& d) {
  d.Assume(&C::db_round_trip_ms, 0,
           "the case study's H2 is embedded: no network between the service "
           "and its database",
           "embedded H2: no network (the text: 0.5-1 ms within an AZ for a "
           "networked database)");
  d.Assume(&C::gzip_us, 0, "the case study's service does not compress",
           "compression is off in the case study");
}

// The waits off the CPU: the inventory stub's sleep and the Nagle stall.
void DeriveWaits(Derivation& d) {
  d.Set(&C::inventory_service_ms, d.Figure(F::kInventoryStubMs), 3,
        "the stub's Thread.sleep(5)");
  d.Set(&C::nagle_stall_ms,
        d.Figure(F::kNagleStallMs) - d.Figure(F::kHttpCallUs) / 1e3, 3,
        StrFormat("pools chapter: %g ms a request with the stall minus its "
                  "warm call's %g ms",
                  d.PeekFigure(F::kNagleStallMs),
                  d.PeekFigure(F::kHttpCallUs) / 1e3));
}

// The generator was the limit at the last step; without that row, it did
// at least the cache step's RPS, the most of the other nine.
void DeriveGenerator(Derivation& d) {
  const double gen_cores = d.Figure(F::kGeneratorCores);
  const S row = d.Has(S::kRightSize) ? S::kRightSize : S::kCache;
  const double rps = d.Cell(row, kRps);
  d.Set(&C::generator_cpu_per_request_us, gen_cores / rps * 1e6, 1,
        d.Has(S::kRightSize)
            ? StrFormat("%g generator cores / %g RPS at the last step, "
                        "where the application used %g of its 4 vCPUs: the "
                        "generator was the limit",
                        gen_cores, rps, d.Peek(S::kRightSize, kCpuCores))
            : StrFormat("%g generator cores / %g RPS at the cache step, the "
                        "most of the rows kept (the right-size row, where "
                        "the generator was the limit, is left out): an "
                        "upper bound",
                        gen_cores, rps));
  if (d.Has(S::kRightSize)) {
    d.Fitted(&C::generator_cpu_per_request_us,
             "the generator's CPU per request that makes the last step's "
             "RPS its ceiling: fitted on that row (the text says only "
             "that the generator, not the service, was the limit there)");
  }
  d.Set(&C::generator_cores, d.Figure(F::kGeneratorCores), 0,
        "run.sh: taskset -c 8-11");
}

// The spread of a request's work, which nothing published gives.
void AssumeWorkSpread(Derivation& d) {
  d.Assume(&C::work_cv, 0.5,
           "no published figure gives the spread of a request's work (JIT, "
           "caches, row counts); 0.5 keeps the clients from marching in "
           "lockstep after a pause and is not fitted to any row's tail",
           "assumed: lognormal work with a coefficient of variation of 0.5");
}

// The file's name and description, saying which row a fold leaves out.
void NameFold(SeedH2Fold& fold, std::optional<S> excluded_row) {
  fold.file.name = "seed-h2";
  // The derivation's first path, kept: fixtures/calibration/seed-h2.json
  // holds these bytes, and the capstone prints that file's content hash.
  fold.file.description =
      "costs derived from the case study's published figures (H2 embedded "
      "database, laptop rig) by tools/capstone/seed_h2.cc";
  if (excluded_row) {
    fold.file.name = absl::StrCat("seed-h2 without ", Name(*excluded_row));
    fold.file.description =
        absl::StrCat(fold.file.description, ", leaving out the ",
                     Name(*excluded_row), " row");
  }
}

}  // namespace

SeedH2Fold DeriveSeedH2Without(const PublishedFigures& figures,
                               std::optional<S> excluded_row) {
  // In this order: a field reads only fields derived before it (reading one
  // not yet derived aborts), at the rounded values the model reads.
  Derivation d(figures, excluded_row);
  // Memory and GC from the heap step's GC logs, and the effective cores a
  // young pause stops.
  DeriveAllocation(d);
  DeriveYoungPauseSlope(d);
  DeriveYoungPauseBase(d);
  FitEffectiveCores(d);
  DeriveConcurrentMarking(d);
  // CPU per request: the hit path by the JFR profile, the rest by the
  // differences between the table's rows.
  DeriveSerialisation(d);
  AssumeCacheLookup(d);
  DeriveOtherCpu(d);
  DeriveInventoryCpu(d);
  DeriveConnect(d);
  DeriveJoin(d);
  DeriveJoinHold(d);
  DeriveStatements(d);
  DeriveScans(d);
  // Waits, the load generator, and what nothing published gives.
  AssumeNoNetworkNorCompression(d);
  DeriveWaits(d);
  DeriveGenerator(d);
  AssumeWorkSpread(d);
  AssumeTheUnpublished(d);
  SeedH2Fold fold = d.Take();
  NameFold(fold, excluded_row);
  return fold;
}

}  // namespace perflab::capstone
