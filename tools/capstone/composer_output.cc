// The composer's rendering: one Document of a Composition, beside the case
// study's own figures, whose tables are for readers (text, csv, Markdown)
// and whose nested fields are the JSON record. Pure functions of
// their inputs, so the same Composition always gives the same bytes.
#include <algorithm>
#include <cmath>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "core/case_study.h"
#include "sim/order_service/model.h"
#include "tools/calibration/calibration_io.h"
#include "tools/capstone/composer.h"
#include "tools/capstone/internal/sensitivity_output.h"
#include "tools/capstone/mva_estimate.h"
#include "tools/capstone/thresholds.h"

namespace perflab::capstone {
namespace {

const case_study::CapstoneStepFigures& CaseStudyRow(const Step& step) {
  return case_study::CapstoneRow(step.row);
}

// A number, or an empty cell when it has no meaning (the first step's factor).
core::Value Maybe(bool present, double v) {
  core::Value value;
  if (present) value = v;
  return value;
}

bool InCaseStudyOrder(const std::vector<const Step*>& steps) {
  const std::vector<Step>& all = AllSteps();
  if (steps.size() != all.size()) return false;
  for (size_t i = 0; i < steps.size(); ++i) {
    if (steps[i] != &all[i]) return false;
  }
  return true;
}

// The composed steps against the case study's, in its own order: RPS within
// kWithinLoose and kWithinTight of its figure, and whether each change moves
// throughput its way (FactorWay: within kFlatBand of 1 is flat, the band
// --real reads its medians with).
// Counted apart for held-out steps (no calibration field read their row: a
// prediction) and input steps (a field did: partly the table read back).
// The JSON keys name the bands ("within_30_pct"): they are stable, so a new
// band is a new key.
static_assert(100 * kWithinLoose == 30 && 100 * kWithinTight == 15);
struct Agreement {
  int steps = 0, within30 = 0, within15 = 0;
  int changes = 0, same_way = 0;
  int factor_within30 = 0;        // changes whose factor is within 30 % of its
  std::vector<size_t> other_way;  // the steps that move another way
};
struct Fidelity {
  Agreement held_out, input;
};

// Whether step i's case-study row fed the calibration.
std::vector<bool> InputMarks(const Composition& c,
                             const CalibrationIdentity& id) {
  const std::vector<std::string> rows = sim::InputRows(id.provenance);
  std::vector<bool> marks;
  for (const Step* s : c.steps) {
    marks.push_back(std::find(rows.begin(), rows.end(), s->name) != rows.end());
  }
  return marks;
}

const char* Mark(bool input) { return input ? "input" : "held out"; }

bool AtGeneratorCeiling(const StepFigures& f) {
  return f.generator_utilisation >= kGeneratorCeiling;
}

std::string FullCaps(const StepFigures& f) {
  std::vector<std::string> full;
  auto busy = [](double used, int64_t size) {
    return size > 0 && used >= kCapFullShare * static_cast<double>(size);
  };
  if (busy(f.threads_busy, f.threads)) full.emplace_back("threads");
  if (busy(f.pool_busy, f.pool)) full.emplace_back("pool");
  if (busy(f.cpu_cores, f.app_cores)) full.emplace_back("cores");
  return full.empty() ? "none" : absl::StrJoin(full, " + ");
}

// The first and last steps that are not steady: the outcomes divide them.
std::vector<std::string> UnsteadyEnds(const Composition& c) {
  std::vector<std::string> names;
  if (c.steps.empty()) return names;
  for (size_t i : {size_t{0}, c.steps.size() - 1}) {
    const std::string name(c.steps[i]->name);
    if (!c.figures[i].steady &&
        std::find(names.begin(), names.end(), name) == names.end()) {
      names.push_back(name);
    }
  }
  return names;
}

// Where the framework's per-request CPU (other_cpu_us, the model's "other"
// category with the cache lookup) comes from, for its column's name.
enum class Framework { kUnknown, kMeasured, kJvm };
Framework FrameworkSource(const CalibrationIdentity& id) {
  const std::vector<sim::CalibrationField>& fields = sim::CalibrationFields();
  for (size_t k = 0; k < fields.size() && k < id.provenance.size(); ++k) {
    if (fields[k].member != &sim::Calibration::other_cpu_us) continue;
    return id.provenance[k].kind == sim::SourceKind::kMeasured
               ? Framework::kMeasured
               : Framework::kJvm;
  }
  return Framework::kUnknown;
}
// A calibration with measured fields has this machine's costs (C++, SQLite,
// its cores), not the case study's JVM on its 12-core laptop: only what a
// step changes compares.
constexpr char kFactorsOnly[] =
    "step factors (x per step) and their direction only: absolute figures "
    "from another machine and stack are not comparable";
bool AnyMeasured(const CalibrationIdentity& id) {
  return std::any_of(id.provenance.begin(), id.provenance.end(),
                     [](const sim::Provenance& p) {
                       return p.kind == sim::SourceKind::kMeasured;
                     });
}

// The cache step's hit ratio beside the published one, and why they differ
// when they do by more than a point.
std::string HitRatioNote(const Composition& c) {
  for (size_t i = 0; i < c.steps.size(); ++i) {
    if (c.steps[i]->row != case_study::CapstoneStep::kCache) continue;
    const double ours = c.figures[i].cache_hit_ratio;
    const double theirs = case_study::kCacheHitRatio;
    std::string note = absl::StrFormat(
        "Cache hit ratio at the cache step: %.3f against the case study's "
        "published %.2f",
        ours, theirs);
    const double gap_points = 100 * std::abs(ours - theirs);
    if (gap_points <= 1) return absl::StrCat(note, ".");
    const double refresh =
        1 - static_cast<double>(case_study::kCustomers) /
                (static_cast<double>(case_study::kCacheTtlS) *
                 case_study::kCacheStepPerS);
    absl::StrAppend(
        &note,
        absl::StrFormat(
            ", %.1f points apart. The published ratio is about one miss per "
            "customer per TTL: 1 - %d customers / (%d s x %.0f req/s) = "
            "%.3f. ",
            gap_points, case_study::kCustomers, case_study::kCacheTtlS,
            case_study::kCacheStepPerS, refresh));
    const double run_s =
        case_study::kRigWarmupS + case_study::kClosedLoopDurationS;
    if (run_s < static_cast<double>(case_study::kCacheTtlS)) {
      absl::StrAppend(
          &note,
          absl::StrFormat(
              "perflab's closed run lasts %.0f + %.0f = %.0f s, under the "
              "%d s TTL, so no entry expires while it measures: after the "
              "warm-up only customers it has not drawn yet miss.",
              case_study::kRigWarmupS, case_study::kClosedLoopDurationS, run_s,
              case_study::kCacheTtlS));
    } else {
      const double at_ours =
          c.figures[i].rps > 0
              ? 1 - static_cast<double>(case_study::kCustomers) /
                        (static_cast<double>(case_study::kCacheTtlS) *
                         c.figures[i].rps)
              : 0;
      absl::StrAppend(&note, absl::StrFormat("At perflab's %.0f req/s the same "
                                             "refresh gives %.3f.",
                                             c.figures[i].rps, at_ours));
    }
    return note;
  }
  return "";
}

const sim::Provenance* ProvenanceOf(const CalibrationIdentity& id,
                                    std::string_view field) {
  const std::vector<sim::CalibrationField>& fields = sim::CalibrationFields();
  for (size_t k = 0; k < fields.size() && k < id.provenance.size(); ++k) {
    if (fields[k].name == field) return &id.provenance[k];
  }
  return nullptr;
}

// Where a measured calibration's factor says more about a field it did not
// measure than about this machine, or is flat for a reason its costs give:
// the steps at the load generator's ceiling (the rig's fields, copied) and
// a flat join (what the N+1 statements cost here against the join).
std::vector<std::string> CopiedFieldNotes(const Composition& c,
                                          const CalibrationIdentity& id) {
  std::vector<std::string> notes;
  const sim::Provenance* gen = ProvenanceOf(id, "generator_cpu_per_request_us");
  const bool gen_copied =
      gen != nullptr && gen->kind != sim::SourceKind::kMeasured;
  std::vector<std::string> ceiling;
  for (size_t i = 1; i < c.steps.size(); ++i) {
    if (gen_copied && (AtGeneratorCeiling(c.figures[i]) ||
                       AtGeneratorCeiling(c.figures[i - 1]))) {
      ceiling.emplace_back(c.steps[i]->name);
    }
    if (c.steps[i]->row != case_study::CapstoneStep::kJoin ||
        FactorWay(c.figures[i].factor) != 0) {
      continue;
    }
    const sim::Calibration& k = c.calibration;
    const double statements =
        k.orders_query_index_us +
        static_cast<double>(sim::kItemStatements) * k.item_statement_us;
    const double join = k.join_index_us + 1e3 * k.join_hold_ms;
    notes.push_back(absl::StrFormat(
        "join is flat (x%.2f) with this machine's costs: its %d statements "
        "cost %.1f us (%d x %.2f + %.1f) against the join's %.1f us "
        "(join_index_us + join_hold_ms), so replacing them changes little "
        "here; the case study's H2 paid %.1f us a statement (seed-h2).",
        c.figures[i].factor, sim::kItemStatements + 1, statements,
        sim::kItemStatements, k.item_statement_us, k.orders_query_index_us,
        join, sim::Calibration().item_statement_us));
  }
  if (!ceiling.empty()) {
    notes.push_back(absl::StrCat(
        "A copied field sets these factors: ", absl::StrJoin(ceiling, ", "),
        " (a side at the load generator's ceiling, generator_cores / "
        "generator_cpu_per_request_us, the case study's rig copied from ",
        gen->from.empty() ? std::string("seed-h2") : gen->from,
        ", not measured here)."));
  }
  return notes;
}

// The tail against the case study's: closed-loop p99 over the mean, the
// case study's mean by Little's law (its clients / its RPS), and the
// mechanisms that make a tail the model has and lacks.
std::string TailNote(const Composition& c) {
  double lo = 0, hi = 0, cs_lo = 0, cs_hi = 0, sum = 0, cs_sum = 0;
  bool any = false;
  for (size_t i = 0; i < c.steps.size(); ++i) {
    const StepFigures& f = c.figures[i];
    const case_study::CapstoneStepFigures& cs = CaseStudyRow(*c.steps[i]);
    if (f.rps <= 0 || f.avg_ms <= 0) continue;
    const double ours = f.p99_ms / f.avg_ms;
    const double mean_ms =
        1e3 * static_cast<double>(case_study::kClosedLoopClients) / cs.rps;
    const double theirs = cs.p99_ms / mean_ms;
    lo = any ? std::min(lo, ours) : ours;
    hi = any ? std::max(hi, ours) : ours;
    cs_lo = any ? std::min(cs_lo, theirs) : theirs;
    cs_hi = any ? std::max(cs_hi, theirs) : theirs;
    sum += ours;
    cs_sum += theirs;
    any = true;
  }
  if (!any) return "";
  return absl::StrFormat(
      "Tail: the model's closed-loop p99 is %.1f-%.1fx its mean at these "
      "steps, the case study's %.1f-%.1fx (its mean by Little's law, %d "
      "clients / RPS): on average its tail is %s. The model has: lognormal "
      "work (work_cv "
      "%g, assumed), processor sharing on whole cores, first-come thread and "
      "connection queues, young pauses of one constant length per heap on "
      "every core (the GC logs publish counts and totals, no spread). It "
      "lacks: the scheduler's time slices, an unfair (barging) pool "
      "hand-off, pauses of varying length, JIT compilation and "
      "deoptimisation.",
      lo, hi, cs_lo, cs_hi, static_cast<int>(case_study::kClosedLoopClients),
      sum < cs_sum ? "thinner, so its p99 and its 'p99 lower' outcome fall "
                     "short of the case study's"
                   : "as wide as the case study's or wider",
      c.calibration.work_cv);
}

// Only for the case study's ten steps in its order (InCaseStudyOrder).
Fidelity CompareWithCaseStudy(const Composition& c,
                              const std::vector<bool>& input) {
  Fidelity f;
  for (size_t i = 0; i < c.steps.size(); ++i) {
    const case_study::CapstoneStepFigures& cs = CaseStudyRow(*c.steps[i]);
    const StepFigures& mine = c.figures[i];
    Agreement& a = input[i] ? f.input : f.held_out;
    const double off = std::abs(mine.rps / cs.rps - 1);
    ++a.steps;
    a.within30 += off <= kWithinLoose ? 1 : 0;
    a.within15 += off <= kWithinTight ? 1 : 0;
    if (i == 0) continue;
    ++a.changes;
    a.factor_within30 +=
        std::abs(mine.factor / cs.factor - 1) <= kWithinLoose ? 1 : 0;
    if (FactorWay(mine.factor) == FactorWay(cs.factor)) {
      ++a.same_way;
    } else {
      a.other_way.push_back(i);
    }
  }
  return f;
}

// The header fields: which calibration, how it is scored, the seeds, the
// example prices and the rig every step runs on (so a reader of the output,
// the report's plots, need not restate it).
void SetHeaderFields(core::Document& doc, const Composition& c,
                     const CalibrationIdentity& id,
                     const models::CostOptions& cost, Framework framework,
                     const Fidelity* fidelity) {
  doc.SetFor(core::Audience::kReaders, "calibration", "calibration", id.name);
  doc.SetFor(core::Audience::kReaders, "calibration_path", "calibration file",
             id.path);
  doc.SetFor(core::Audience::kReaders, "calibration_hash",
             "calibration identity", id.hash);
  const std::string overrides = OverridesText(id.overrides);
  doc.SetFor(core::Audience::kReaders, "calibration_overrides",
             "calibration fields the command line replaced",
             overrides.empty() ? std::string("none") : overrides);
  // What the plots name the framework slice (tools/plots/capstone.py).
  doc.SetFor(core::Audience::kReaders, "framework_cpu",
             "framework CPU (other_cpu_us) is",
             framework == Framework::kMeasured ? "measured"
             : framework == Framework::kUnknown
                 ? "unknown"
                 : (AnyMeasured(id) ? "the case study's JVM, beside this "
                                      "machine's measured costs"
                                    : "the case study's JVM"));
  const bool measured = AnyMeasured(id);
  if (fidelity != nullptr) {
    const Agreement& h = fidelity->held_out;
    doc.SetFor(core::Audience::kReaders, "scored_on",
               "scored against the case study on",
               measured ? kFactorsOnly : "absolute RPS and step factors");
    if (!measured) {
      doc.SetFor(core::Audience::kReaders, "held_out_within_30_pct",
                 absl::StrCat("held-out steps (predictions), RPS within ",
                              100 * kWithinLoose, " %"),
                 absl::StrCat(h.within30, " of ", h.steps));
      doc.SetFor(
          core::Audience::kReaders, "held_out_within_15_pct",
          absl::StrCat("held-out steps, RPS within ", 100 * kWithinTight, " %"),
          absl::StrCat(h.within15, " of ", h.steps));
    }
    doc.SetFor(core::Audience::kReaders, "held_out_factor_within_30_pct",
               absl::StrCat("held-out steps, step factor within ",
                            100 * kWithinLoose, " %"),
               absl::StrCat(h.factor_within30, " of ", h.changes));
    doc.SetFor(core::Audience::kReaders, "held_out_same_way",
               "held-out steps moving its way",
               absl::StrCat(h.same_way, " of ", h.changes));
  }
  std::vector<std::string> seeds;
  for (uint64_t s : c.seeds) seeds.push_back(absl::StrCat(s));
  doc.SetFor(core::Audience::kReaders, "seeds",
             "seeds (one per repeat; median reported)",
             absl::StrJoin(seeds, ","));
  doc.SetFor(core::Audience::kReaders, "usd_per_vcpu_hour",
             "example price per vCPU-hour ($)", cost.usd_per_vcpu_hour, 4);
  doc.SetFor(core::Audience::kReaders, "usd_per_gib_hour",
             "example price per GiB-hour ($)", cost.usd_per_gib_hour, 4);
  doc.SetFor(core::Audience::kReaders, "target_utilisation",
             "target utilisation", cost.target_utilisation, 2);
}

// The rig every step runs on: shown to readers and in the JSON record.
void SetRig(core::Document& doc) {
  doc.Set("closed_loop_clients", "closed-loop clients",
          case_study::kClosedLoopClients);
  doc.Set("open_loop_rate_per_s", "open-loop rate (req/s)",
          case_study::kOpenLoopRatePerS);
}

void AddStepsTable(core::Document& doc, const Composition& c,
                   const std::vector<bool>& input) {
  core::Table& steps = doc.AddTable(
      "steps",
      absl::StrCat("Per step (closed loop ", case_study::kClosedLoopClients,
                   " clients; open loop ", case_study::kOpenLoopRatePerS,
                   " req/s)"),
      {{"name", "step"},
       {"change", "change"},
       {"mark", "row"},
       {"rps", "RPS", 0},
       {"avg_ms", "avg (ms)", 1},
       {"p95_ms", "p95 (ms)", 1},
       {"p99_ms", "p99 (ms)", 1},
       {"open_p99_ms", "open p99 (ms)", 1},
       {"cpu_cores", "CPU (model cores)", 2},
       {"queries_per_request", "queries/req", 1},
       {"cache_hit_ratio", "hit ratio", 3},
       {"usd_per_million", "$/1M (example)", 3},
       {"factor", "factor", 2},
       {"case_study_factor", "case study", 2},
       {"generator_ceiling", "RPS = generator's ceiling"}});
  for (size_t i = 0; i < c.steps.size(); ++i) {
    const StepFigures& f = c.figures[i];
    const case_study::CapstoneStepFigures& cs = CaseStudyRow(*c.steps[i]);
    steps.Add({std::string(c.steps[i]->name), StepChange(*c.steps[i]),
               std::string(Mark(input[i])), f.rps, Maybe(f.rps > 0, f.avg_ms),
               Maybe(f.rps > 0, f.p95_ms), Maybe(f.rps > 0, f.p99_ms),
               Maybe(f.open_rps > 0, f.open_p99_ms), f.cpu_cores,
               f.queries_per_request, f.cache_hit_ratio, f.usd_per_million,
               Maybe(i > 0, f.factor), Maybe(i > 0, cs.factor),
               AtGeneratorCeiling(f)});
  }
}

void AddCpuTable(core::Document& doc, const Composition& c,
                 Framework framework) {
  core::Table& cpu = doc.AddTable(
      "cpu_share", "Application CPU by category (% of its cores used)",
      {{"name", "step"},
       {"database_pct", "database %", 1},
       {"http_pct", "HTTP + stub %", 1},
       {"serialisation_pct", "serialisation %", 1},
       {"gc_pct", "GC %", 1},
       {"other_pct",
        framework == Framework::kJvm ? "framework (case study's JVM) %"
                                     : "framework %",
        1},
       {"generator_utilisation_pct", "load generator busy %", 1}});
  for (size_t i = 0; i < c.steps.size(); ++i) {
    const StepFigures& f = c.figures[i];
    cpu.Add({std::string(c.steps[i]->name), f.cpu_share.database,
             f.cpu_share.http, f.cpu_share.serialisation, f.cpu_share.gc,
             f.cpu_share.other, 100 * f.generator_utilisation});
  }
}

void AddCapsTable(core::Document& doc, const Composition& c) {
  core::Table& caps = doc.AddTable(
      "caps",
      "Caps in series (closed loop): each cap's size, mean busy and wait per "
      "request",
      {{"name", "step"},
       {"threads", "threads"},
       {"threads_busy", "busy", 1},
       {"thread_wait_ms", "wait (ms)", 2},
       {"pool", "pool"},
       {"pool_busy", "busy", 2},
       {"pool_wait_ms", "wait (ms)", 2},
       {"app_cores", "cores"},
       {"cores_busy", "busy", 2},
       {"full", absl::StrCat("full (busy >= ", 100 * kCapFullShare, " %)")}});
  for (size_t i = 0; i < c.steps.size(); ++i) {
    const StepFigures& f = c.figures[i];
    const bool capped = f.threads > 0;
    caps.Add({std::string(c.steps[i]->name),
              capped ? core::Value(f.threads) : std::string("virtual"),
              Maybe(capped, f.threads_busy), Maybe(capped, f.thread_wait_ms),
              f.pool, f.pool_busy, f.pool_wait_ms, f.app_cores, f.cpu_cores,
              FullCaps(f)});
  }
}

void AddCaseStudyTable(core::Document& doc, const Composition& c) {
  core::Table& beside =
      doc.AddTable("case_study", "The case study's own figures for these steps",
                   {{"name", "step"},
                    {"rps", "RPS", 0},
                    {"p95_ms", "p95 (ms)", 1},
                    {"p99_ms", "p99 (ms)", 1},
                    {"open_p99_ms", "open p99 (ms)", 1},
                    {"cpu_cores", "CPU (JVM cores)", 1},
                    {"queries_per_request", "queries/req", 0},
                    {"usd_per_million", "$/1M", 3},
                    {"cache_hit_ratio", "hit ratio", 2}});
  for (const Step* s : c.steps) {
    const case_study::CapstoneStepFigures& cs = CaseStudyRow(*s);
    beside.Add({std::string(s->name), cs.rps, cs.p95_ms, cs.p99_ms,
                cs.open_p99_ms, cs.cpu_cores, cs.queries_per_request,
                cs.usd_per_million,
                Maybe(s->row == case_study::CapstoneStep::kCache,
                      case_study::kCacheHitRatio)});
  }
}

// The outcomes table (first step against last) and the tail note after it.
void AddOutcomes(core::Document& doc, const Composition& c,
                 const std::vector<std::string>& unsteady) {
  const std::string steady_said =
      unsteady.empty()
          ? std::string("yes")
          : absl::StrCat("no: ", absl::StrJoin(unsteady, ", "), " not steady");
  core::Table& outcomes =
      doc.AddTable("outcomes", "Outcomes: first step against last",
                   {{"metric", "metric"},
                    {"perflab_x", "perflab (x)", 1},
                    {"case_study_x", "case study (x)", 0},
                    {"gap", "perflab / case study", 2},
                    {"steady", "from steady runs"}});
  for (const auto& [metric, ours, theirs] :
       {std::tuple{"p99 lower", c.p99_x, case_study::kCapstoneP99Outcome},
        std::tuple{"open-loop p99 lower", c.open_p99_x,
                   case_study::kCapstoneOpenP99Outcome},
        std::tuple{"throughput higher", c.rps_x,
                   case_study::kCapstoneRpsOutcome},
        std::tuple{"cost per 1M lower", c.cost_x,
                   case_study::kCapstoneCostOutcome}}) {
    outcomes.Add(
        {std::string(metric), ours, theirs, ours / theirs, steady_said});
  }
  if (const std::string tail = TailNote(c); !tail.empty()) doc.Note(tail);
}

// The notes on how to read the tables: steps with no completed request, what
// a figure is, which caps are full, what the CPU columns count.
void AddReadingNotes(core::Document& doc, const Composition& c) {
  for (size_t i = 0; i < c.steps.size(); ++i) {
    const StepFigures& f = c.figures[i];
    for (auto [loop, rps] :
         {std::pair{"closed", f.rps}, std::pair{"open", f.open_rps}}) {
      if (rps > 0) continue;
      doc.Note(absl::StrCat("step ", std::string(c.steps[i]->name),
                            ": no request completed in the ", loop,
                            " loop's window, so its latencies are not "
                            "measured (shown as -)"));
    }
  }
  doc.Note(
      "Each figure is the median of the repeats; factor = RPS / previous "
      "step's RPS; prices are EXAMPLE list prices (flags --usd-per-vcpu-hour, "
      "--usd-per-gib-hour, --target-utilisation).");
  std::vector<std::string> full;
  full.reserve(c.steps.size());
  for (size_t i = 0; i < c.steps.size(); ++i) {
    full.push_back(absl::StrCat(std::string(c.steps[i]->name), ": ",
                                FullCaps(c.figures[i])));
  }
  doc.Note(absl::StrCat(
      "Caps full (busy >= ", 100 * kCapFullShare,
      " % of the cap's size), from the caps table: ", absl::StrJoin(full, "; "),
      ". A full cap is the limit; where none is, the clients' own round "
      "trips or the load generator set the pace. A wait is per request (a "
      "request's statements' pool waits summed); busy cores queue as "
      "stretched work, not as a wait."));
  std::vector<int64_t> cores;
  for (const StepFigures& f : c.figures) {
    if (std::find(cores.begin(), cores.end(), f.app_cores) == cores.end()) {
      cores.push_back(f.app_cores);
    }
  }
  doc.Note(absl::StrCat(
      "CPU: perflab's column counts the simulated application's busy cores "
      "(this calibration's costs on ",
      absl::StrJoin(cores, " or "),
      " whole cores of work, the caps table's cores); the case study's "
      "column is its JVM's measured CPU on its 8 vCPUs (4 at right-size). "
      "The load generator's cores are in neither."));
}

// The notes on what limits a figure's meaning: the generator's ceiling, a
// framework cost copied from the JVM, the hit ratio, unsteady outcomes.
void AddCaveatNotes(core::Document& doc, const Composition& c,
                    const CalibrationIdentity& id, Framework framework,
                    const std::vector<std::string>& unsteady) {
  std::vector<std::string> ceiling;
  for (size_t i = 0; i < c.steps.size(); ++i) {
    if (!AtGeneratorCeiling(c.figures[i])) continue;
    ceiling.push_back(
        absl::StrFormat("%s (%.0f %% busy)", c.steps[i]->name,
                        100 * c.figures[i].generator_utilisation));
  }
  if (!ceiling.empty()) {
    doc.Note(absl::StrCat(
        "RPS at the load generator's ceiling (its cores at least ",
        100 * kGeneratorCeiling, " % busy): ", absl::StrJoin(ceiling, ", "),
        ". There the figure measures the rig (generator_cores / "
        "generator_cpu_per_request_us), not the service."));
  }
  if (framework == Framework::kJvm) {
    doc.Note(absl::StrCat(
        "CPU by category: the framework column is other_cpu_us (HTTP "
        "parsing, routing, the framework per request) and the cache lookup. "
        "This calibration does not measure it: it is the case study's JVM "
        "framework cost (Tomcat, routing, Spring; seed-h2's derivation from "
        "its table)",
        AnyMeasured(id) ? ", beside this machine's measured C++ costs in the "
                          "other columns, so its share says how much more "
                          "the JVM's framework costs than this machine's "
                          "database, JSON and HTTP."
                        : "."));
  }
  if (const std::string hit = HitRatioNote(c); !hit.empty()) doc.Note(hit);
  if (!unsteady.empty()) {
    doc.Note(absl::StrCat("warning: the outcomes divide ",
                          std::string(c.steps.front()->name), " by ",
                          std::string(c.steps.back()->name), ", and ",
                          absl::StrJoin(unsteady, " and "),
                          " is not steady: the ratios are not from steady "
                          "runs."));
  }
}

// How the sensitivity runs were made, and each step's reasons for not being
// steady.
void AddSensitivityAndSteadyNotes(core::Document& doc, const Composition& c) {
  internal::AddSensitivityNote(doc, c);
  for (size_t i = 0; i < c.steps.size(); ++i) {
    for (const std::string& reason : c.figures[i].steady_reasons) {
      doc.Note(absl::StrCat("warning: step ", std::string(c.steps[i]->name),
                            " is not a steady result: ", reason, "."));
    }
  }
}

// What the "row" column means, and which fields read each input row.
void AddRowNote(core::Document& doc, const CalibrationIdentity& id) {
  const std::vector<std::string> rows = sim::InputRows(id.provenance);
  if (rows.empty()) {
    doc.Note(
        "row: no calibration field reads the case study's table, so every "
        "step is held out: a prediction.");
    return;
  }
  const std::vector<sim::CalibrationField>& all = sim::CalibrationFields();
  std::vector<std::string> said;
  for (const std::string& row : rows) {
    std::vector<std::string> readers;
    for (size_t k = 0; k < id.provenance.size() && k < all.size(); ++k) {
      if (sim::ReadsRow(id.provenance[k], row)) {
        readers.emplace_back(all[k].name);
      }
    }
    said.push_back(readers.size() == 1
                       ? absl::StrCat(row, " (", readers[0], ")")
                       : absl::StrCat(row, " (", readers.size(), " fields)"));
  }
  doc.Note(absl::StrCat(
      "row: input = the calibration's fields read this step's row of the "
      "case study's table, were chosen by looking at it or read a figure "
      "measured in its run (each field's provenance), so agreeing with it "
      "is partly the table read back; held out = nothing read it, a "
      "prediction. Input rows: ",
      absl::StrJoin(said, ", "), "."));
}

// The fidelity table (held-out steps apart from input steps) and the steps
// that move throughput another way than the case study's; only for its ten
// steps in its order.
void AddFidelity(core::Document& doc, const Composition& c,
                 const CalibrationIdentity& id, const std::vector<bool>& input,
                 const Fidelity& fidelity) {
  const bool measured = AnyMeasured(id);
  const Agreement& h = fidelity.held_out;
  const Agreement& in = fidelity.input;
  core::Table& t = doc.AddTable(
      "fidelity",
      "Against the case study (its ten steps in its order): held-out steps, "
      "predictions, apart from input steps, whose rows fed the calibration",
      {{"check", "check"},
       {"held_out", "held out", 0},
       {"held_out_of", "of", 0},
       {"input", "input", 0},
       {"input_of", "of", 0}});
  if (!measured) {
    t.Add({absl::StrCat("RPS within ", 100 * kWithinLoose,
                        " % of the case study's"),
           h.within30, h.steps, in.within30, in.steps});
    t.Add({absl::StrCat("RPS within ", 100 * kWithinTight, " %"), h.within15,
           h.steps, in.within15, in.steps});
  }
  t.Add({absl::StrCat("step factor within ", 100 * kWithinLoose,
                      " % of the case study's"),
         h.factor_within30, h.changes, in.factor_within30, in.changes});
  t.Add({absl::StrCat("throughput moves its way (within ", 100 * kFlatBand,
                      " % counts as flat)"),
         h.same_way, h.changes, in.same_way, in.changes});
  if (measured) {
    doc.Note(absl::StrCat("Scored on ", kFactorsOnly, "."));
    for (const std::string& note : CopiedFieldNotes(c, id)) doc.Note(note);
  }
  std::vector<size_t> other_way = h.other_way;
  other_way.insert(other_way.end(), in.other_way.begin(), in.other_way.end());
  std::sort(other_way.begin(), other_way.end());
  if (other_way.empty()) return;
  std::vector<std::string> said;
  said.reserve(other_way.size());
  for (size_t i : other_way) {
    said.push_back(absl::StrFormat(
        "%s (%s) x%.2f against x%.2f", c.steps[i]->name, Mark(input[i]),
        c.figures[i].factor, CaseStudyRow(*c.steps[i]).factor));
  }
  doc.Note(
      absl::StrCat("Throughput moves another way than the case study's at: ",
                   absl::StrJoin(said, "; "),
                   ". The caps table shows which cap each step leaves full."));
}

// The names of the steps i for which keep(i) holds.
template <typename Keep>
core::Node StepNames(const Composition& c, Keep keep) {
  core::Node list = core::Node::List();
  for (size_t i = 0; i < c.steps.size(); ++i) {
    if (keep(i)) list.Add(std::string(c.steps[i]->name));
  }
  return list;
}

// The JSON record's head: the calibration, the seeds and the example prices
// (the rig's clients and rate follow, fields every rendering shows).
void SetRecordHead(core::Document& doc, const Composition& c,
                   const CalibrationIdentity& id,
                   const models::CostOptions& cost) {
  core::Node overrides = core::Node::Record();
  for (const CalibrationOverride& o : id.overrides) {
    overrides.Set(o.field, o.value);
  }
  doc.SetNested("calibration", core::Node::Record()
                                   .Set("name", id.name)
                                   .Set("path", id.path)
                                   .Set("hash", id.hash)
                                   .Set("overrides", std::move(overrides)));
  core::Node seeds = core::Node::List();
  // Seeds are small (the first is the command's, then one per repeat).
  for (uint64_t s : c.seeds) seeds.Add(static_cast<int64_t>(s));
  doc.SetNested("seeds", std::move(seeds));
  doc.SetNested("example_prices",
                core::Node::Record()
                    .Set("usd_per_vcpu_hour", cost.usd_per_vcpu_hour)
                    .Set("usd_per_gib_hour", cost.usd_per_gib_hour)
                    .Set("target_utilisation", cost.target_utilisation));
}

// A step's caps and its CPU by category, two records.
void SetCapsAndCpu(core::Node& step, const StepFigures& f) {
  step.Set("caps", core::Node::Record()
                       .Set("threads", f.threads)
                       .Set("pool", f.pool)
                       .Set("app_cores", f.app_cores)
                       .Set("threads_busy", f.threads_busy)
                       .Set("thread_wait_ms", f.thread_wait_ms)
                       .Set("pool_busy", f.pool_busy)
                       .Set("pool_wait_ms", f.pool_wait_ms)
                       .Set("full", FullCaps(f)));
  step.Set("cpu_share", core::Node::Record()
                            .Set("database_pct", f.cpu_share.database)
                            .Set("http_pct", f.cpu_share.http)
                            .Set("serialisation_pct", f.cpu_share.serialisation)
                            .Set("gc_pct", f.cpu_share.gc)
                            .Set("other_pct", f.cpu_share.other));
}

// One step's record; a latency of a loop that completed no request
// measured nothing, so its value is absent (Maybe).
core::Node StepRecord(const Composition& c, size_t i, bool input) {
  const StepFigures& f = c.figures[i];
  const case_study::CapstoneStepFigures& cs = CaseStudyRow(*c.steps[i]);
  core::Node step = core::Node::Record();
  step.Set("name", std::string(c.steps[i]->name))
      .Set("change", StepChange(*c.steps[i]))
      .Set("mark", std::string(Mark(input)))
      .Set("rps", f.rps)
      .Set("avg_ms", Maybe(f.rps > 0, f.avg_ms))
      .Set("p95_ms", Maybe(f.rps > 0, f.p95_ms))
      .Set("p99_ms", Maybe(f.rps > 0, f.p99_ms))
      .Set("open_p99_ms", Maybe(f.open_rps > 0, f.open_p99_ms))
      .Set("cpu_cores", f.cpu_cores)
      .Set("queries_per_request", f.queries_per_request)
      .Set("cache_hit_ratio", f.cache_hit_ratio)
      .Set("usd_per_million", f.usd_per_million)
      .Set("generator_utilisation", f.generator_utilisation)
      .Set("factor", f.factor)
      .Set("rps_repeats", core::Node::ListOf(f.rps_repeats))
      .Set("factor_repeats", core::Node::ListOf(f.factor_repeats))
      .Set("steady", f.steady)
      .Set("generator_ceiling", AtGeneratorCeiling(f))
      .Set("case_study_rps", cs.rps)
      .Set("case_study_factor", cs.factor);
  SetCapsAndCpu(step, f);
  if (!c.sensitivity.empty()) {
    internal::SetElasticity(step, c.sensitivity[i], c.sensitivity_seeds > 1);
  }
  return step;
}

// Only for the case study's ten steps in its order (InCaseStudyOrder).
core::Node FidelityRecord(const Composition& c, const CalibrationIdentity& id,
                          const std::vector<bool>& input, const Fidelity& f) {
  // Absolute RPS only where it compares (see kFactorsOnly).
  const bool absolute = !AnyMeasured(id);
  core::Node record = core::Node::Record();
  record.Set("scored_on", std::string(absolute ? "rps_and_factors" : "factors"))
      .Set("held_out_rows", StepNames(c, [&](size_t i) { return !input[i]; }))
      .Set("input_rows", StepNames(c, [&](size_t i) { return input[i]; }));
  for (const auto& [key, a] :
       {std::pair{"held_out", &f.held_out}, std::pair{"input", &f.input}}) {
    core::Node counts = core::Node::Record();
    counts.Set("steps", int64_t{a->steps});
    if (absolute) {
      counts.Set("within_30_pct", int64_t{a->within30})
          .Set("within_15_pct", int64_t{a->within15});
    }
    counts.Set("changes", int64_t{a->changes})
        .Set("same_way", int64_t{a->same_way});
    // A structured binding cannot be captured by a lambda before C++20's
    // P1091 reached every compiler (clang 14 refuses it): a plain copy.
    const auto& other_way = a->other_way;
    counts
        .Set("other_way", StepNames(c,
                                    [&](size_t i) {
                                      return std::find(other_way.begin(),
                                                       other_way.end(),
                                                       i) != other_way.end();
                                    }))
        .Set("factor_within_30_pct", int64_t{a->factor_within30});
    record.Set(key, std::move(counts));
  }
  return record;
}

core::Node OutcomesRecord(const Composition& c) {
  const std::vector<std::string> unsteady = UnsteadyEnds(c);
  return core::Node::Record()
      .Set("p99_x_lower", c.p99_x)
      .Set("open_p99_x_lower", c.open_p99_x)
      .Set("rps_x_higher", c.rps_x)
      .Set("cost_x_lower", c.cost_x)
      .Set("case_study_p99_x_lower", case_study::kCapstoneP99Outcome)
      .Set("case_study_open_p99_x_lower", case_study::kCapstoneOpenP99Outcome)
      .Set("case_study_rps_x_higher", case_study::kCapstoneRpsOutcome)
      .Set("case_study_cost_x_lower", case_study::kCapstoneCostOutcome)
      .Set("from_steady_runs", unsteady.empty())
      .Set("unsteady_steps", core::Node::ListOf(unsteady));
}

// The JSON record's body, after the rig: the steps, the fidelity, the
// outcomes, the MVA estimate and how the sensitivity was run.
void SetRecordBody(core::Document& doc, const Composition& c,
                   const CalibrationIdentity& id,
                   const std::vector<bool>& input, const Fidelity* fidelity) {
  core::Node steps = core::Node::List();
  for (size_t i = 0; i < c.steps.size(); ++i) {
    steps.Add(StepRecord(c, i, input[i]));
  }
  doc.SetNested("steps", std::move(steps));
  if (fidelity != nullptr) {
    doc.SetNested("fidelity", FidelityRecord(c, id, input, *fidelity));
  }
  doc.SetNested("outcomes", OutcomesRecord(c));
  doc.SetNested("mva", MvaRecords(c.steps, c.figures));
  if (!c.sensitivity.empty()) {
    doc.SetFor(core::Audience::kJson, "sensitivity_delta", "sensitivity delta",
               c.sensitivity_delta);
    doc.SetFor(core::Audience::kJson, "sensitivity_window_s",
               "sensitivity window (s)", c.sensitivity_window_s);
    doc.SetFor(core::Audience::kJson, "sensitivity_warmup_s",
               "sensitivity warm-up without the cache (s)",
               c.sensitivity_warmup_s);
    // Absent at the default of one seed.
    if (c.sensitivity_seeds > 1) {
      doc.SetFor(core::Audience::kJson, "sensitivity_seeds",
                 "sensitivity seeds", int64_t{c.sensitivity_seeds});
    }
  }
}

}  // namespace

core::Document ToDocument(const Composition& c, const CalibrationIdentity& id,
                          const models::CostOptions& cost) {
  core::Document doc(
      "capstone: the case study's steps composed from a calibration");
  const Framework framework = FrameworkSource(id);
  const std::vector<bool> input = InputMarks(c, id);
  const bool in_order = InCaseStudyOrder(c.steps);
  const Fidelity fidelity =
      in_order ? CompareWithCaseStudy(c, input) : Fidelity{};
  // The JSON record is shaped apart from the tables (its keys are stable
  // for scripts), so its fields are JSON only and the header's readers only.
  doc.set_json_layout(core::JsonLayout::kRecord);
  SetHeaderFields(doc, c, id, cost, framework, in_order ? &fidelity : nullptr);
  SetRecordHead(doc, c, id, cost);
  SetRig(doc);
  AddStepsTable(doc, c, input);
  AddCpuTable(doc, c, framework);
  AddCapsTable(doc, c);
  AddCaseStudyTable(doc, c);
  const std::vector<std::string> unsteady = UnsteadyEnds(c);
  AddOutcomes(doc, c, unsteady);
  internal::AddSensitivityTables(doc, c);
  AddReadingNotes(doc, c);
  AddCaveatNotes(doc, c, id, framework, unsteady);
  // The caps predicted by MVA: a table and its notes (mva_estimate.h).
  AddMvaTable(doc, c.steps, c.figures);
  AddSensitivityAndSteadyNotes(doc, c);
  AddRowNote(doc, id);
  if (!in_order) {
    doc.Note(
        "The steps are not the case study's ten in its order: its factors "
        "and outcomes are for its own sequence, shown for reference only.");
  } else {
    AddFidelity(doc, c, id, input, fidelity);
  }
  SetRecordBody(doc, c, id, input, in_order ? &fidelity : nullptr);
  return doc;
}

std::string OverridesText(const std::vector<CalibrationOverride>& overrides) {
  std::vector<std::string> said;
  said.reserve(overrides.size());
  for (const CalibrationOverride& o : overrides) {
    said.push_back(absl::StrCat(o.field, "=", o.value));
  }
  return absl::StrJoin(said, ",");
}

std::string IdentityHash(std::string_view bytes,
                         const std::vector<CalibrationOverride>& overrides) {
  if (overrides.empty()) return ContentHash(bytes);
  return ContentHash(absl::StrCat(std::string(bytes), "\noverrides ",
                                  OverridesText(overrides), "\n"));
}

}  // namespace perflab::capstone
