#include "tools/capstone/validate.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/parallel.h"
#include "sim/order_service/calibration.h"

namespace perflab::capstone {
namespace {

// The fields a fold derived differently from seed-h2 (value or provenance).
std::vector<std::string> Rederived(const CalibrationFile& fold,
                                   const CalibrationFile& full) {
  std::vector<std::string> names;
  const auto& fields = sim::CalibrationFields();
  for (size_t i = 0; i < fields.size(); ++i) {
    if (fold.values.*fields[i].member != full.values.*fields[i].member ||
        !(fold.provenance[i] == full.provenance[i])) {
      names.emplace_back(fields[i].name);
    }
  }
  return names;
}

double OffPct(double mine, double theirs) {
  return theirs > 0 ? 100 * (mine / theirs - 1) : 0;
}

bool Predicted(const Fold& f) {
  return f.unpredictable_because.empty() && f.reads_own_row.empty();
}

// Fold k's calibration, derived without its row, and what the fold says
// of it: the rows it read, the fields derived otherwise, and why it is no
// prediction (if it is none).
CalibrationFile DeriveFold(const PublishedFigures& figures, const Step& step,
                           const sim::OrderServiceConfig& config,
                           const CalibrationFile& full, Fold& fold) {
  fold.published = figures.Row(step.row);
  fold.step = fold.published.step;
  SeedH2Fold derived = DeriveSeedH2Without(figures, step.row);
  fold.input_rows = sim::InputRows(derived.file.provenance);
  fold.rederived = Rederived(derived.file, full);
  for (const std::string& name : derived.underived) {
    for (const sim::CalibrationField& f : sim::CalibrationFields()) {
      if (f.name == name && sim::ReadsField(config, f.member)) {
        fold.unpredictable_because.push_back(name);
      }
    }
  }
  const auto& fields = sim::CalibrationFields();
  for (size_t j = 0; j < fields.size(); ++j) {
    if (sim::ReadsRow(derived.file.provenance[j], fold.step) &&
        sim::ReadsField(config, fields[j].member)) {
      fold.reads_own_row.emplace_back(fields[j].name);
    }
  }
  return std::move(derived.file);
}

// Row k of the JSON record: the model's figures only when predicted.
core::Node RowRecord(const Fold& f, size_t k) {
  const case_study::CapstoneStepFigures& cs = f.published;
  const bool p = Predicted(f);
  core::Node row = core::Node::Record();
  row.Set("step", f.step)
      .Set("predicted", p)
      .Set("unpredictable_because", core::Node::ListOf(f.unpredictable_because))
      .Set("reads_own_row", core::Node::ListOf(f.reads_own_row))
      .Set("input_rows", core::Node::ListOf(f.input_rows))
      .Set("rederived", core::Node::ListOf(f.rederived));
  if (p) {
    row.Set("rps", f.figures.rps)
        .Set("p99_ms", f.figures.p99_ms)
        .Set("open_p99_ms", f.figures.open_p99_ms)
        .Set("cpu_cores", f.figures.cpu_cores)
        .Set("factor", f.figures.factor)
        .Set("rps_off_pct", OffPct(f.figures.rps, cs.rps));
    if (k > 0) {
      row.Set("same_way", FactorWay(f.figures.factor) == FactorWay(cs.factor));
    }
  }
  row.Set("case_study", core::Node::Record()
                            .Set("rps", cs.rps)
                            .Set("p99_ms", cs.p99_ms)
                            .Set("open_p99_ms", cs.open_p99_ms)
                            .Set("cpu_cores", cs.cpu_cores)
                            .Set("factor", cs.factor));
  return row;
}

// The summary for readers: the seeds and how many rows agree.
void SetSummary(core::Document& doc, const Validation& v) {
  doc.SetFor(core::Audience::kReaders, "seeds", "seeds",
             absl::StrJoin(v.seeds, ", "));
  doc.SetFor(core::Audience::kReaders, "predicted_rows",
             "rows predicted (of 10)", static_cast<int64_t>(v.predicted));
  // The keys name the bands: they are stable, so a new band is a new key.
  static_assert(100 * kWithinLoose == 30 && 100 * kWithinTight == 15);
  doc.SetFor(
      core::Audience::kReaders, "within_15_pct",
      absl::StrCat("predicted rows, RPS within ", 100 * kWithinTight, " %"),
      absl::StrCat(v.within15, " of ", v.predicted));
  doc.SetFor(
      core::Audience::kReaders, "within_30_pct",
      absl::StrCat("predicted rows, RPS within ", 100 * kWithinLoose, " %"),
      absl::StrCat(v.within30, " of ", v.predicted));
  doc.SetFor(core::Audience::kReaders, "same_way",
             "step factors that move the case study's way",
             absl::StrCat(v.same_way, " of ", v.changes));
}

// The JSON record (validate.h): which calibration, the seeds, the summary's
// counts and every row.
void SetRecord(core::Document& doc, const Validation& v) {
  doc.SetFor(core::Audience::kJson, "calibration", "calibration",
             std::string("seed-h2, leave-one-row-out"));
  core::Node seeds = core::Node::List();
  // Seeds are small (the first is the command's, then one per repeat).
  for (uint64_t s : v.seeds) seeds.Add(static_cast<int64_t>(s));
  doc.SetNested("seeds", std::move(seeds));
  doc.SetNested("summary", core::Node::Record()
                               .Set("predicted_rows", int64_t{v.predicted})
                               .Set("within_15_pct", int64_t{v.within15})
                               .Set("within_30_pct", int64_t{v.within30})
                               .Set("changes", int64_t{v.changes})
                               .Set("same_way", int64_t{v.same_way}));
  core::Node rows = core::Node::List();
  for (size_t k = 0; k < v.folds.size(); ++k) {
    rows.Add(RowRecord(v.folds[k], k));
  }
  doc.SetNested("rows", std::move(rows));
}

}  // namespace

absl::StatusOr<Validation> Validate(const ValidateOptions& options,
                                    const StepRunner& runner) {
  if (options.repeats < 1 || options.jobs < 0) {
    return absl::InvalidArgumentError(
        "capstone --validate: repeats must be >= 1 and jobs >= 0 (0: every "
        "core)");
  }
  const std::vector<Step>& all = AllSteps();
  const size_t n = all.size();
  const CalibrationFile full = DeriveSeedH2(options.figures);
  const std::vector<sim::OrderServiceConfig> configs = [&] {
    std::vector<const Step*> steps;
    steps.reserve(all.size());
    for (const Step& s : all) steps.push_back(&s);
    return CumulativeConfigs(steps);
  }();

  Validation v;
  v.folds.resize(n);
  for (int r = 0; r < options.repeats; ++r) v.seeds.push_back(options.seed + r);
  // The folds' derivations first, then every predicted fold's composition
  // at once, their runs balanced together on the workers (the folds differ
  // in length: row k runs k + 1 steps).
  std::vector<CalibrationFile> derived(n);
  absl::Status s = core::ParallelFor(
      static_cast<int64_t>(n), options.jobs, [&](int64_t i) -> absl::Status {
        const size_t k = static_cast<size_t>(i);
        derived[k] =
            DeriveFold(options.figures, all[k], configs[k], full, v.folds[k]);
        return absl::OkStatus();
      });
  if (!s.ok()) return s;
  std::vector<Composing> compositions;
  std::vector<size_t> composed;  // the fold of each composition
  for (size_t k = 0; k < n; ++k) {
    if (!Predicted(v.folds[k])) continue;
    ComposeOptions compose;
    for (size_t j = 0; j <= k; ++j) compose.steps.push_back(&all[j]);
    compose.calibration = derived[k].values;
    compose.repeats = options.repeats;
    compose.seed = options.seed;
    // Only row k's figures and the row before's RPS (the factor) are
    // read: the earlier steps are there for their cumulative configs.
    std::vector<sim::OrderServiceConfig> read = {configs[k]};
    if (k > 0) read.push_back(configs[k - 1]);
    compositions.push_back({compose, OnlyConfigs(runner, std::move(read))});
    composed.push_back(k);
  }
  absl::StatusOr<std::vector<Composition>> c =
      ComposeAll(compositions, options.jobs);
  if (!c.ok()) return c.status();
  for (size_t i = 0; i < composed.size(); ++i) {
    v.folds[composed[i]].figures = (*c)[i].figures.back();
  }

  for (size_t k = 0; k < n; ++k) {
    const Fold& f = v.folds[k];
    if (!Predicted(f)) continue;
    const case_study::CapstoneStepFigures& cs = f.published;
    ++v.predicted;
    const double off = std::abs(f.figures.rps / cs.rps - 1);
    v.within30 += off <= kWithinLoose ? 1 : 0;
    v.within15 += off <= kWithinTight ? 1 : 0;
    if (k == 0) continue;
    ++v.changes;
    v.same_way += FactorWay(f.figures.factor) == FactorWay(cs.factor) ? 1 : 0;
  }
  return v;
}

core::Document ToDocument(const Validation& v) {
  core::Document doc(
      "capstone --validate: seed-h2 leave-one-row-out (each row predicted by "
      "a calibration derived without it)");
  // The JSON record is shaped apart from the table (RowRecord): its fields
  // are JSON only, the table's and the summary's readers only.
  doc.set_json_layout(core::JsonLayout::kRecord);
  SetSummary(doc, v);
  core::Table& t =
      doc.AddTable("rows", "Each row predicted without it (model | case study)",
                   {{"step", "step"},
                    {"rps", "RPS", 0},
                    {"case_rps", "case RPS", 0},
                    {"rps_off_pct", "RPS off (%)", 1},
                    {"p99_ms", "p99 (ms)", 1},
                    {"case_p99_ms", "case p99 (ms)", 1},
                    {"open_p99_ms", "open p99 (ms)", 1},
                    {"case_open_p99_ms", "case open p99 (ms)", 1},
                    {"cpu_cores", "CPU (cores)", 1},
                    {"case_cpu_cores", "case CPU (cores)", 1},
                    {"factor", "factor (x)", 2},
                    {"case_factor", "case factor (x)", 2},
                    {"way", "direction"},
                    {"rederived", "fields derived otherwise"}});
  for (size_t k = 0; k < v.folds.size(); ++k) {
    const Fold& f = v.folds[k];
    const case_study::CapstoneStepFigures& cs = f.published;
    const bool p = Predicted(f);
    auto mine = [p](double x) -> core::Value {
      if (!p) return std::monostate{};
      return x;
    };
    std::string way = "-";
    if (p && k > 0) {
      way = FactorWay(f.figures.factor) == FactorWay(cs.factor) ? "right"
                                                                : "WRONG";
    }
    t.Add({f.step, mine(f.figures.rps), cs.rps,
           mine(OffPct(f.figures.rps, cs.rps)), mine(f.figures.p99_ms),
           cs.p99_ms, mine(f.figures.open_p99_ms), cs.open_p99_ms,
           mine(f.figures.cpu_cores), cs.cpu_cores,
           k == 0 ? core::Value{} : mine(f.figures.factor),
           k == 0 ? core::Value{} : core::Value{cs.factor}, way,
           f.rederived.empty() ? std::string("none")
                               : absl::StrJoin(f.rederived, " ")});
  }
  for (const Fold& f : v.folds) {
    if (!f.unpredictable_because.empty()) {
      doc.Note(absl::StrCat(
          f.step, ": no prediction; without its row nothing gives ",
          absl::StrJoin(f.unpredictable_because, ", "),
          ", which its step reads (counted in none of the figures above)."));
    } else if (!f.reads_own_row.empty()) {
      doc.Note(absl::StrCat(
          f.step,
          ": no prediction; without its cells, its own run (a figure "
          "measured there) or a choice made on it still reaches ",
          absl::StrJoin(f.reads_own_row, ", "),
          ", which its step reads (counted in none of the figures above)."));
    }
  }
  doc.Note(absl::StrCat(
      "Each predicted row's calibration reads nothing of that row: no cell, "
      "no figure from its run, no choice made on it (its fields' provenance "
      "names other rows only); a field that read it is derived from other "
      "figures or rows, listed per row, with its source in the JSON. The "
      "factor is the row against the row before it, both with the "
      "row's calibration; within ",
      100 * kFlatBand, " % of 1 counts as flat."));
  SetRecord(doc, v);
  return doc;
}

}  // namespace perflab::capstone
