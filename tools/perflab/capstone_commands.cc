// perflab capstone: the case study's ten-step table composed from a
// calibration and the simulated order service; perflab calibrate: the
// calibration measured on this machine. Both validate every input before
// running or writing anything: bad input is one line, exit 2, no file.
#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>
#include <memory>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/algorithm/container.h"
#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "core/atomic_file.h"
#include "core/input_file.h"
#include "core/interrupt.h"
#include "sim/cpu.h"
#include "tools/calibration/calibrate.h"
#include "tools/calibration/calibration_io.h"
#include "tools/calibration/canary.h"
#include "tools/capstone/composer.h"
#include "tools/capstone/real_run.h"
#include "tools/capstone/steps.h"
#include "tools/capstone/validate.h"
#include "tools/compare/markdown.h"
#include "tools/perflab/commands.h"
#include "tools/perflab/orders_postgres.h"

namespace perflab::cli {
namespace {

using capstone::kDefaultCalibrationPath;
// Where capstone.{md,csv,json} go when no --out-dir is given.
constexpr char kDefaultOutDir[] = "reports";

// The largest --seed: repeat r runs with seed + r, and the JSON record holds
// each seed as a signed 64-bit integer.
int64_t MaxSeed() {
  const int repeats = std::max(capstone::ComposeOptions().repeats,
                               capstone::ValidateOptions().repeats);
  return std::numeric_limits<int64_t>::max() - (repeats - 1);
}

// The longest --sensitivity-warmup (s): a bound on a typo's cost, far past
// the rig's 8 s.
constexpr double kMaxSensitivityWarmupS = 60;

// The flags --validate honours besides itself and --steps (which must name
// the ten steps); it refuses every other one given.
constexpr std::array<const char*, 4> kValidateAlsoTakes = {
    "--jobs", "--seed", "--format", "--out-dir"};
// The composed table's flags --real honours too; it excludes the others.
constexpr std::array<const char*, 3> kRealTakes = {"--calibration", "--steps",
                                                   "--format"};

struct CapstoneArgs {
  std::string calibration;
  std::string steps;
  double db_round_trip_ms = -1;  // < 0: the calibration's own
  std::string cpu_discipline;    // "": the calibration's own
  bool sensitivity = false;
  int sensitivity_seeds = capstone::ComposeOptions().sensitivity_seeds;
  double sensitivity_warmup_s = capstone::ComposeOptions().sensitivity_warmup_s;
  bool list_steps = false;
  bool validate = false;
  // Flags given on the command line that --validate cannot honour.
  std::vector<std::string> not_for_validate;
  int jobs = capstone::ComposeOptions().jobs;
  int64_t seed = static_cast<int64_t>(capstone::ComposeOptions().seed);
  std::string format = kDefaultFormat;
  std::string out_dir = kDefaultOutDir;
  models::CostOptions cost;
};

core::Document StepList() {
  core::Document doc("capstone steps: each changes one setting of the model");
  core::Table& t = doc.AddTable(
      "steps", "Steps",
      {{"name", "step"}, {"change", "key=value"}, {"meaning", "meaning"}});
  for (const capstone::Step& s : capstone::AllSteps()) {
    t.Add(
        {std::string(s.name), capstone::StepChange(s), std::string(s.change)});
  }
  doc.Note(
      "--steps NAME,NAME,... applies a subset in any order after the "
      "baseline.");
  return doc;
}

absl::StatusOr<std::string> Slurp(const std::string& path) {
  return core::ReadInputFile("--calibration", path);
}

// --validate: the seed-h2 derivation left one row out at a time, so it reads
// no --calibration and runs exactly the case study's ten steps.
absl::StatusOr<core::Document> RunValidate(CapstoneArgs& a) {
  if (!a.not_for_validate.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--validate: cannot be combined with ", a.not_for_validate.front(),
        "; accepted with it: --steps (the ten in the case study's order), ",
        absl::StrJoin(kValidateAlsoTakes, ", ")));
  }
  absl::StatusOr<std::vector<const capstone::Step*>> steps =
      capstone::ParseSteps(a.steps);
  if (!steps.ok()) return steps.status();
  const std::vector<capstone::Step>& all = capstone::AllSteps();
  bool ten = steps->size() == all.size();
  for (size_t i = 0; ten && i < all.size(); ++i) ten = (*steps)[i] == &all[i];
  if (!ten) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--validate: --steps '", a.steps,
        "' is not the case study's ten steps in its order; accepted: no "
        "--steps, or ",
        absl::StrJoin(all, ",", [](std::string* out, const capstone::Step& s) {
          out->append(s.name);
        })));
  }
  if (a.out_dir.empty()) {
    return absl::InvalidArgumentError(
        "--out-dir: empty; accepted: a directory path");
  }
  const std::string base = absl::StrCat(a.out_dir, "/capstone-validate");
  for (const char* ext : {".md", ".csv", ".json"}) {
    absl::Status s = core::CheckWritable(absl::StrCat(base, ext));
    if (!s.ok()) return s;
  }
  capstone::ValidateOptions options;
  options.jobs = a.jobs;
  options.seed = static_cast<uint64_t>(a.seed);
  absl::StatusOr<capstone::Validation> v =
      capstone::Validate(options, capstone::OrderServiceRunner());
  if (!v.ok()) return v.status();
  core::Document doc = capstone::ToDocument(*v);
  absl::Status s = core::WriteFilesAtomic(
      {{absl::StrCat(base, ".md"), compare::ToMarkdown(doc)},
       {absl::StrCat(base, ".csv"), core::ToCsv(doc)},
       {absl::StrCat(base, ".json"), core::ToJson(doc)}});
  if (!s.ok()) return s;
  return doc;
}

// --db-round-trip-ms and --cpu-discipline replace a calibration field; the
// identity, the provenance and a note say so.
void Override(double sim::Calibration::*member, double value, std::string why,
              capstone::CalibrationIdentity& id) {
  const std::vector<sim::CalibrationField>& fields = sim::CalibrationFields();
  for (size_t i = 0; i < fields.size(); ++i) {
    if (fields[i].member != member) continue;
    id.provenance[i] = sim::Provenance{};
    id.provenance[i].why = std::move(why);
    id.overrides.push_back({std::string(fields[i].name), value});
    return;
  }
}

// --cpu-discipline: ps composes under processor sharing (the quantum 0);
// sliced needs the calibration's measured scheduling, which it cannot invent.
absl::Status ApplyCpuDiscipline(const std::string& name,
                                const std::string& path,
                                sim::Calibration& calibration) {
  if (name.empty()) return absl::OkStatus();
  absl::StatusOr<sim::CpuDiscipline> d = sim::ParseCpuDiscipline(name);
  if (!d.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--cpu-discipline: unknown value '", name, "'; accepted: ps, sliced"));
  }
  if (*d == sim::CpuDiscipline::kProcessorSharing) {
    calibration.sched_quantum_us = 0;
  } else if (!(calibration.sched_quantum_us > 0)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--cpu-discipline sliced: ", path,
        " has sched_quantum_us 0 (no scheduling measured); accepted: ps, or a "
        "calibration with the sched_* fields (perflab calibrate)"));
  }
  return absl::OkStatus();
}

absl::StatusOr<core::Document> RunCapstone(CapstoneArgs& a) {
  if (a.validate) return RunValidate(a);
  if (a.list_steps) return StepList();
  core::InstallInterruptCleanup();
  // Every input is checked before the first run and the first write.
  absl::StatusOr<std::vector<const capstone::Step*>> steps =
      capstone::ParseSteps(a.steps);
  if (!steps.ok()) return steps.status();
  std::string path = a.calibration;
  if (path.empty()) {
    if (!std::filesystem::exists(kDefaultCalibrationPath)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--calibration: none given and ", kDefaultCalibrationPath,
          " is missing; accepted: a calibration file (try "
          "fixtures/calibration/reference-xeon-2vcpu-2026-12.json, or run "
          "perflab calibrate "
          "--quick first)"));
    }
    path = kDefaultCalibrationPath;
  }
  absl::StatusOr<std::string> bytes = Slurp(path);
  if (!bytes.ok()) return bytes.status();
  absl::StatusOr<capstone::CalibrationFile> file =
      capstone::ParseCalibration(*bytes);
  if (!file.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": ", file.status().message()));
  }

  // The output place is checked before the runs, not after them.
  if (a.out_dir.empty()) {
    return absl::InvalidArgumentError(
        "--out-dir: empty; accepted: a directory path");
  }
  for (const char* name : {"capstone.md", "capstone.csv", "capstone.json"}) {
    absl::Status s = core::CheckWritable(absl::StrCat(a.out_dir, "/", name));
    if (!s.ok()) return s;
  }

  capstone::ComposeOptions options;
  options.steps = *steps;
  options.calibration = file->values;
  if (a.db_round_trip_ms >= 0) {
    options.calibration.db_round_trip_ms = a.db_round_trip_ms;
  }
  if (absl::Status s =
          ApplyCpuDiscipline(a.cpu_discipline, path, options.calibration);
      !s.ok()) {
    return s;
  }
  options.cost = a.cost;
  options.jobs = a.jobs;
  options.seed = static_cast<uint64_t>(a.seed);
  options.sensitivity = a.sensitivity;
  options.sensitivity_seeds = a.sensitivity_seeds;
  options.sensitivity_warmup_s = a.sensitivity_warmup_s;
  const auto start = std::chrono::steady_clock::now();
  // Progress only when the composition takes more than a second (stderr:
  // never part of the output).
  capstone::Progress progress = [start](size_t done, size_t total) {
    const auto elapsed = std::chrono::steady_clock::now() - start;
    if (elapsed > std::chrono::seconds(1) &&
        (done == total || done % 10 == 0)) {
      std::cerr << "perflab capstone: " << done << "/" << total << " runs\n";
    }
  };
  absl::StatusOr<capstone::Composition> c =
      capstone::Compose(options, capstone::OrderServiceRunner(), progress);
  if (!c.ok()) return c.status();

  capstone::CalibrationIdentity id{file->name, path, "", file->provenance};
  if (a.db_round_trip_ms >= 0) {
    Override(&sim::Calibration::db_round_trip_ms, a.db_round_trip_ms,
             "--db-round-trip-ms", id);
  }
  if (a.cpu_discipline == "ps") {
    Override(&sim::Calibration::sched_quantum_us, 0, "--cpu-discipline ps", id);
  }
  id.hash = capstone::IdentityHash(*bytes, id.overrides);
  core::Document doc = capstone::ToDocument(*c, id, a.cost);
  if (a.db_round_trip_ms >= 0) {
    doc.Note(absl::StrCat("--db-round-trip-ms ", a.db_round_trip_ms,
                          " replaces the calibration's database round trip."));
  }
  if (a.cpu_discipline == "ps") {
    doc.Note(
        "--cpu-discipline ps: the CPU is processor sharing (no time slices, "
        "no switches), the ideal limit of the calibration's scheduling.");
  }
  const std::string dir = a.out_dir;
  // One set: a failure leaves all three files of the previous run.
  absl::Status s = core::WriteFilesAtomic(
      {{absl::StrCat(dir, "/capstone.md"), compare::ToMarkdown(doc)},
       {absl::StrCat(dir, "/capstone.csv"), core::ToCsv(doc)},
       {absl::StrCat(dir, "/capstone.json"), core::ToJson(doc)}});
  if (!s.ok()) return s;
  return doc;
}

struct CalibrateArgs {
  capstone::CalibrateOptions options;
  std::string out = kDefaultCalibrationPath;
  bool schema = false;
  std::string format = kDefaultFormat;
};

// The schema of fixtures/calibration/README.md: every field, its unit and
// meaning, and the benchmark the map measures it with (or seed-h2).
absl::StatusOr<core::Document> Schema(const CalibrateArgs& a) {
  absl::StatusOr<std::string> text =
      core::ReadInputFile("--map", a.options.map_path);
  if (!text.ok()) return text.status();
  absl::StatusOr<std::vector<capstone::FieldSource>> map =
      capstone::ParseCalibrationMap(*text);
  if (!map.ok()) return map.status();
  core::Document doc("calibration fields (perflab-calibration-1)");
  core::Table& t = doc.AddTable("fields", "Fields",
                                {{"field", "field"},
                                 {"unit", "unit"},
                                 {"meaning", "meaning"},
                                 {"measured_by", "perflab calibrate reads"}});
  for (const sim::CalibrationField& f : sim::CalibrationFields()) {
    std::string by = "not measured: seed-h2 value";
    for (const capstone::FieldSource& s : *map) {
      if (s.field != f.name) continue;
      by = absl::StrCat(
          "bench_", s.family, " `", s.benchmark, "` ", s.metric,
          s.minus.empty() ? "" : absl::StrCat(" - `", s.minus, "`"),
          s.multiply == 1 ? "" : absl::StrCat(" x ", s.multiply));
    }
    t.Add({absl::StrCat("`", std::string(f.name), "`"), std::string(f.unit),
           std::string(f.meaning), by});
  }
  return doc;
}

absl::StatusOr<core::Document> RunCalibrate(const CalibrateArgs& a) {
  core::InstallInterruptCleanup();
  if (absl::Status s = core::CheckWritable(a.out); !s.ok()) return s;
  absl::StatusOr<capstone::CalibrationFile> file = capstone::Calibrate(
      a.options, [](std::string_view line) { std::cerr << line << "\n"; });
  if (!file.ok()) return file.status();
  // Measured now, so the canary of a later capstone --real has a baseline
  // taken the way it measures; results read from a directory have none.
  if (a.options.from_dir.empty() && a.options.only_fields.empty()) {
    std::cerr << "calibrate: canary reference (quick reruns)\n";
    absl::Status r = capstone::AddCanaryReference(a.options, *file);
    if (!r.ok()) return r;
  }
  const std::string text = capstone::WriteCalibration(*file);
  absl::Status s = core::WriteFileAtomic(a.out, text);
  if (!s.ok()) return s;
  core::Document doc(absl::StrCat("calibration written to ", a.out));
  doc.Set("name", "name", file->name);
  doc.Set("description", "description", file->description);
  doc.Set("hash", "identity", capstone::ContentHash(text));
  core::Table& t = doc.AddTable("fields", "Fields",
                                {{"field", "field"},
                                 {"value", "value", 4},
                                 {"unit", "unit"},
                                 {"source", "source"}});
  const auto& fields = sim::CalibrationFields();
  for (size_t i = 0; i < fields.size(); ++i) {
    t.Add({std::string(fields[i].name), file->values.*fields[i].member,
           std::string(fields[i].unit), file->sources[i]});
  }
  // PostgreSQL's, when this run measured them or says why not.
  const auto& pg = sim::PostgresFields();
  for (size_t i = 0; i < pg.size() && (file->postgres_measured ||
                                       !file->postgres_absent.empty());
       ++i) {
    t.Add({std::string(pg[i].name), file->values.*pg[i].member,
           std::string(pg[i].unit),
           file->postgres_measured ? file->postgres_sources[i]
                                   : file->postgres_absent});
  }
  // The whole C++ service (BM_OrdersService) beside the sum of the parts
  // capstone --real composes it from.
  const capstone::CppWholeAndParts w = capstone::CompareCppParts(file->values);
  capstone::AddWholeAndParts(doc, w);
  for (const capstone::CppWholeAndParts::Row& r : w.rows) {
    std::cerr << absl::StrFormat(
        "calibrate: %s: whole %.1f us vs parts %.1f us\n", r.what, r.whole_us,
        r.parts_us);
  }
  return doc;
}

}  // namespace

namespace {

// Flags of --real only: given without it they would do nothing.
void AddRealOnlyFlags(CLI::App& cmd, capstone::RealCliArgs& real,
                      CLI::Option* real_flag) {
  cmd.add_flag("--quick", real.quick, "with --real: shorter runs")
      ->needs(real_flag);
  cmd.add_flag("--no-wrk", real.no_wrk, "with --real: skip the wrk witness")
      ->needs(real_flag);
  cmd.add_option("--db", real.db,
                 "with --real: the service's database, sqlite (default) or "
                 "postgres (a throwaway local cluster; the calibration "
                 "needs PostgreSQL's costs)")
      ->check(CLI::IsMember({"sqlite", "postgres"}))
      ->needs(real_flag);
  cmd.add_flag("--no-canary", real.no_canary,
               "with --real: skip the drift canary (a quick rerun of each "
               "step's cost benchmarks, scaling its composed costs)")
      ->needs(real_flag);
}

}  // namespace

namespace {

// The composed table's flags (the --real ones are apart).
void AddComposedFlags(CLI::App* cmd, CapstoneArgs* a) {
  cmd->add_option(
      "--calibration", a->calibration,
      WithDefault("calibration file", DefaultText(kDefaultCalibrationPath)));
  cmd->add_option("--steps", a->steps,
                  "NAME,NAME,... subset in any order (see --list-steps)");
  cmd->add_option("--db-round-trip-ms", a->db_round_trip_ms,
                  "network round trip per statement, replaces the "
                  "calibration's (0: embedded database)")
      ->check(Millis());
  cmd->add_option("--cpu-discipline", a->cpu_discipline,
                  "ps (processor sharing: the ideal limit) or sliced (the "
                  "kernel's time slices, switches and refills as calibrated); "
                  "default: the calibration's (sliced when sched_quantum_us > "
                  "0)");
  // The +-delta as the composer's note prints it, from its default.
  const std::string delta = absl::StrCat(
      "+-", capstone::ComposeOptions().sensitivity_delta * 100, " %");
  CLI::Option* sensitivity = cmd->add_flag(
      "--sensitivity", a->sensitivity,
      absl::StrCat("also the elasticity of RPS to every cost (", delta,
                   ", one closed run each with the first seed: common random "
                   "numbers)"));
  cmd->add_option(
         "--sensitivity-seeds", a->sensitivity_seeds,
         absl::StrCat("with --sensitivity: run each ", delta,
                      " pair with the first N seeds (default ",
                      DefaultText(a->sensitivity_seeds),
                      "), report the mean elasticity, its lowest and highest "
                      "and which ranks stay apart (N times the pairs' time)"))
      ->check(IntIn(1, capstone::ComposeOptions().repeats))
      ->needs(sensitivity);
  cmd->add_option(
         "--sensitivity-warmup", a->sensitivity_warmup_s,
         absl::StrCat("with --sensitivity: seconds the ", delta,
                      " runs of a step without the cache warm up "
                      "before their window (default ",
                      DefaultText(a->sensitivity_warmup_s),
                      ", the rig's, as every closed run has; 2 takes about "
                      "0.7 of the time and moves the elasticities by about "
                      "their noise); a step with the cache always keeps the "
                      "rig's, as its cache is still filling"))
      ->check(PositiveAtMost(kMaxSensitivityWarmupS))
      ->needs(sensitivity);
  cmd->add_flag("--list-steps", a->list_steps,
                "print the steps as the key=value each changes");
  cmd->add_option("--jobs", a->jobs,
                  absl::StrCat("worker threads (default ", DefaultText(a->jobs),
                               ": every core); the output is the same for any "
                               "number"))
      ->check(IntIn(0, kMaxJobs));
  cmd->add_option("--seed", a->seed,
                  absl::StrCat("the first repeat's seed, repeat r runs with "
                               "seed + r (default ",
                               DefaultText(a->seed),
                               "); another seed shows which differences are "
                               "noise"))
      ->check(IntIn(0, MaxSeed()));
  cmd->add_option(
      "--out-dir", a->out_dir,
      WithDefault("where capstone.{md,csv,json} go", DefaultText(a->out_dir)));
  cmd->add_option("--usd-per-vcpu-hour", a->cost.usd_per_vcpu_hour,
                  WithDefault("EXAMPLE price of a vCPU-hour",
                              DefaultText(a->cost.usd_per_vcpu_hour, 3)))
      ->check(Positive());
  cmd->add_option("--usd-per-gib-hour", a->cost.usd_per_gib_hour,
                  WithDefault("EXAMPLE price of a GiB-hour",
                              DefaultText(a->cost.usd_per_gib_hour)))
      ->check(NonNegative());
  cmd->add_option("--target-utilisation", a->cost.target_utilisation,
                  WithDefault("share of the measured RPS planned for",
                              DefaultText(a->cost.target_utilisation)))
      ->check(PositiveAtMost(1));
  cmd->add_option("--format", a->format,
                  WithDefault("output: " + absl::StrJoin(TableFormats(), ", "),
                              DefaultText(a->format)))
      ->check(CLI::IsMember(TableFormats()));
}

// TableFormats() rendered: md by compare::ToMarkdown, the others by core.
std::string RenderWithMarkdown(const core::Document& doc,
                               const std::string& f) {
  if (f == "md") return compare::ToMarkdown(doc);
  return core::Render(doc, f == "json"  ? core::Format::kJson
                           : f == "csv" ? core::Format::kCsv
                                        : core::Format::kTable);
}

// Which run a capstone command line chooses: leave-one-row-out, --real or
// the composed table, with its renderer.
void ChooseCapstoneRun(Registry& registry,
                       const std::shared_ptr<CapstoneArgs>& a,
                       const std::shared_ptr<capstone::RealCliArgs>& real,
                       CLI::App* cmd) {
  if (a->validate) {
    // Every other flag, so that a new one is refused until it is honoured.
    for (const CLI::Option* o : cmd->get_options()) {
      const std::string name = o->get_name();
      if (o->count() > 0 && name != "--validate" && name != "--steps" &&
          !absl::c_linear_search(kValidateAlsoTakes, name)) {
        a->not_for_validate.push_back(name);
      }
    }
    real->real = false;
  }
  if (real->real) {
    real->calibration = a->calibration;
    real->steps = a->steps;
    registry.chosen() =
        Registry::Choice{[real]() -> absl::StatusOr<core::Document> {
                           // A missing server is one line before the
                           // calibration or the dataset is read.
                           if (real->db == "postgres") {
                             absl::Status s = OrdersPostgres::CheckInstalled();
                             if (!s.ok()) return s;
                           }
                           core::InstallInterruptCleanup();
                           return capstone::RunRealCapstone(*real);
                         },
                         &a->format};
    // Every format --help lists, md included: a 13-minute run must not
    // end in a refusal of its output.
    registry.extras().render = RenderWithMarkdown;
    return;
  }
  registry.chosen() =
      Registry::Choice{[a]() { return RunCapstone(*a); }, &a->format};
  registry.extras().render = RenderWithMarkdown;
}

void AddCalibrateCommand(CLI::App& root, Registry& registry) {
  CLI::App* cal = root.add_subcommand(
      "calibrate",
      absl::StrCat("measure the model's costs on this machine (benchmarks) "
                   "into ",
                   kDefaultCalibrationPath));
  auto c = std::make_shared<CalibrateArgs>();
  c->options.map_path = capstone::DefaultMapPath();
  c->options.bench_dir = capstone::DefaultBenchDir();
  c->options.seed_path = capstone::DefaultSeedPath();
  cal->add_flag("--quick", c->options.quick,
                "3 repetitions of 0.05 s (at most 2 minutes)");
  cal->add_option("--from", c->options.from_dir,
                  "read <DIR>/<family>.json (tools/lab bench output) instead "
                  "of running the benchmarks");
  cal->add_option("--out", c->out,
                  WithDefault("where to write", DefaultText(c->out)));
  cal->add_option("--bench-dir", c->options.bench_dir,
                  "directory of the bench_<family> binaries");
  cal->add_option(
      "--map", c->options.map_path,
      WithDefault("benchmark map", DefaultText(capstone::kMapPath)));
  cal->add_flag("--schema", c->schema,
                "print the fields (unit, meaning, benchmark) instead");
  cal->add_option("--format", c->format,
                  WithDefault("output: " + absl::StrJoin(TableFormats(), ", "),
                              DefaultText(c->format)))
      ->check(CLI::IsMember(TableFormats()));
  cal->callback([&registry, c] {
    registry.chosen() = Registry::Choice{
        [c]() { return c->schema ? Schema(*c) : RunCalibrate(*c); },
        &c->format};
    registry.extras().render = RenderWithMarkdown;
  });
}

}  // namespace

void AddCapstoneCommands(CLI::App& root, Registry& registry) {
  CLI::App* cmd = root.add_subcommand(
      "capstone",
      absl::StrCat("the case study's ten-step table composed from a "
                   "calibration and the simulated order service (writes ",
                   kDefaultOutDir, "/capstone.{md,csv,json})"));
  auto a = std::make_shared<CapstoneArgs>();
  const size_t before_composed = cmd->get_options().size();
  AddComposedFlags(cmd, a.get());
  std::vector<CLI::Option*> composed = cmd->get_options();
  composed.erase(composed.begin(),
                 composed.begin() + static_cast<ptrdiff_t>(before_composed));
  auto real = std::make_shared<capstone::RealCliArgs>();
  CLI::Option* real_flag = cmd->add_flag(
      "--real", real->real,
      "run every step for real (perflab orders-service) beside the "
      "composed table, about 13 minutes; for like with like, "
      "calibrate just before: perflab calibrate && perflab "
      "capstone --real (tools/capstone/real_run.h)");
  // Flags of one mode only: given in the other they would do nothing.
  AddRealOnlyFlags(*cmd, *real, real_flag);
  for (CLI::Option* o : composed) {
    if (!absl::c_linear_search(kRealTakes, o->get_name())) {
      real_flag->excludes(o);
    }
  }
  cmd->add_flag("--validate", a->validate,
                "leave-one-row-out: each of the ten rows predicted by the "
                "seed-h2 calibration derived without it (writes "
                "capstone-validate.{md,csv,json} in --out-dir)");
  cmd->callback(
      [&registry, a, real, cmd] { ChooseCapstoneRun(registry, a, real, cmd); });
  AddCalibrateCommand(root, registry);
}

}  // namespace perflab::cli
