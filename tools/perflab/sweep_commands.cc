// perflab sweep SCENARIO [--set key=v1,v2,...]... [--replications R]
//   [--jobs J] [--seed S] [--shard I/N] [--out FILE] [--force] [--format ...]
// perflab sweep-merge PARTS... [--out FILE] [--format ...]
//
// A sweep runs every grid point R times on J threads and prints statistics
// over replications (tools/sweep/). With --shard it runs only its share of
// the runs and writes a partial file instead; sweep-merge turns all N parts
// into exactly the output of the unsharded sweep. Everything is validated
// before the first run; files are written atomically at the end.
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/atomic_file.h"
#include "core/input_file.h"
#include "core/interrupt.h"
#include "core/number.h"
#include "tools/perflab/commands.h"
#include "tools/sweep/aggregate.h"
#include "tools/sweep/experiment.h"
#include "tools/sweep/partial.h"
#include "tools/sweep/runner.h"

namespace perflab::cli {
namespace {

struct SweepArgs {
  std::string scenario;
  std::vector<std::string> sets;
  std::string replications = absl::StrCat(sweep::Experiment().replications);
  std::string jobs;  // empty: every core
  std::string seed = absl::StrCat(sweep::Experiment().seed);
  std::string shard;
  bool force = false;
  std::string partial;  // set by a shard run: what --out receives
  std::string out;      // --out FILE; empty: stdout
};

// The range of --replications and --jobs, one text for the help and the
// check.
std::string IntegerIn(int64_t min, int64_t max) {
  return absl::StrCat("an integer in [", min, ", ", max, "]");
}

absl::Status IntFlag(const std::string& flag, const std::string& text,
                     int64_t min, int64_t max, int64_t* value) {
  const std::optional<int64_t> parsed = core::ParseDecimalInteger(text);
  if (parsed) *value = *parsed;
  if (!parsed || *value < min || *value > max) {
    return absl::InvalidArgumentError(
        absl::StrCat(flag, " = '", text, "': accepted ", IntegerIn(min, max)));
  }
  return absl::OkStatus();
}

absl::StatusOr<core::Document> RunSweep(SweepArgs& a) {
  int64_t replications = 0, jobs = 0;
  uint64_t seed = 0;
  if (absl::Status s = IntFlag("--replications", a.replications, 1,
                               sweep::kMaxReplications, &replications);
      !s.ok()) {
    return s;
  }
  if (!a.jobs.empty()) {
    if (absl::Status s = IntFlag("--jobs", a.jobs, 1, kMaxJobs, &jobs);
        !s.ok()) {
      return s;
    }
  }
  if (absl::StatusOr<uint64_t> s = ParseSeed("--seed", a.seed); s.ok()) {
    seed = *s;
  } else {
    return s.status();
  }
  sweep::Shard shard;
  if (!a.shard.empty()) {
    absl::StatusOr<sweep::Shard> s = sweep::ParseShard(a.shard);
    if (!s.ok()) return s.status();
    shard = *s;
  }
  sweep::Limits limits;
  limits.force = a.force;
  absl::StatusOr<sweep::Experiment> e =
      sweep::MakeExperiment(a.scenario, a.sets, replications, seed, limits);
  if (!e.ok()) return e.status();
  if (!a.out.empty()) {  // checked before the runs, not after them
    if (absl::Status s = core::CheckWritable(a.out); !s.ok()) return s;
  }

  sweep::RunnerOptions options;
  options.jobs = static_cast<int>(jobs);
  options.progress = &std::cerr;
  std::vector<int64_t> runs = sweep::ShardRuns(*e, shard);
  absl::StatusOr<std::vector<sweep::RunResult>> results =
      sweep::RunRuns(*e, runs, sweep::ScenarioRunFn(), options);
  if (!results.ok()) return results.status();
  if (!a.shard.empty()) {
    a.partial = sweep::PartialToJson({*e, shard, std::move(*results)});
    core::Document doc("sweep shard");
    doc.Set("shard", "shard", a.shard);
    doc.Set("runs", "runs in this shard", std::ssize(runs));
    doc.Set("fingerprint", "experiment fingerprint", sweep::Fingerprint(*e));
    return doc;
  }
  return sweep::Aggregate(*e, *results);
}

absl::StatusOr<core::Document> RunMerge(const std::vector<std::string>& files) {
  std::vector<sweep::Partial> parts;
  for (const std::string& f : files) {
    absl::StatusOr<std::string> text = core::ReadInputFile(
        "part", f, {.max_bytes = core::kMaxPartialInputBytes});
    if (!text.ok()) return text.status();
    absl::StatusOr<sweep::Partial> p = sweep::ParsePartial(*text, f);
    if (!p.ok()) return p.status();
    parts.push_back(std::move(*p));
  }
  absl::StatusOr<sweep::Merged> m = sweep::MergeParts(parts, files);
  if (!m.ok()) return m.status();
  return sweep::Aggregate(m->experiment, m->runs);
}

// Writes the rendered Document to --out (atomically) or stdout.
Emit ToOutOrStdout(const std::shared_ptr<std::string>& out,
                   const std::shared_ptr<std::string>& partial) {
  return [out, partial](const core::Document& doc, core::Format format,
                        std::ostream& stdout_stream) -> absl::Status {
    std::string text =
        partial && !partial->empty() ? *partial : core::Render(doc, format);
    if (out->empty()) {
      stdout_stream << text;
      return absl::OkStatus();
    }
    absl::Status s = core::WriteFileAtomic(*out, text);
    if (!s.ok()) return absl::InvalidArgumentError(s.message());
    return absl::OkStatus();
  };
}

}  // namespace

void AddSweepCommands(CLI::App& root, Registry& registry) {
  auto a = std::make_shared<SweepArgs>();
  CLI::App* cmd = root.add_subcommand(
      "sweep",
      "replications of a scenario over a grid of settings, on every core, "
      "with 95 % confidence intervals (--shard I/N: one part for sweep-merge)");
  cmd->footer(
      "Run k = point x R + replication uses seed S + k (points in nested-loop "
      "order, the first --set key slowest); reproduce it with perflab sim "
      "SCENARIO --set ... --seed S+k. A list-typed key separates its "
      "alternatives with ';'.");
  cmd->add_option("scenario", a->scenario, "scenario name (perflab sim lists)")
      ->required();
  cmd->add_option("--set", a->sets,
                  "key=v1,v2,... (repeatable): the grid is the product");
  cmd->add_option(
      "--replications", a->replications,
      WithDefault(absl::StrCat("runs per grid point, ",
                               IntegerIn(1, sweep::kMaxReplications)),
                  DefaultText(a->replications)));
  cmd->add_option("--jobs", a->jobs,
                  absl::StrCat("worker threads, ", IntegerIn(1, kMaxJobs),
                               " (default: every core)"));
  cmd->add_option("--seed", a->seed,
                  WithDefault("base seed S", DefaultText(a->seed)))
      ->check(Seed());
  cmd->add_option("--shard", a->shard,
                  "I/N: run only runs k with k mod N = I - 1, write a partial");
  cmd->add_flag(
      "--force", a->force,
      absl::StrCat("allow more than ", sweep::Limits().max_runs,
                   " runs, and runs whose estimated work adds up to more "
                   "than ",
                   DefaultText(sweep::kMaxSweepWork),
                   " times one run at the scenario's work bound (perflab sim "
                   "SCENARIO --help)"));
  auto out = std::shared_ptr<std::string>(a, &a->out);
  auto partial = std::make_shared<std::string>();
  cmd->add_option_function<std::string>(
      "--out", [out](const std::string& v) { *out = v; },
      "write to FILE (atomically), not stdout");
  registry.Produces(
      cmd,
      [a, partial]() -> absl::StatusOr<core::Document> {
        core::InstallInterruptCleanup();
        absl::StatusOr<core::Document> doc = RunSweep(*a);
        *partial = a->partial;
        return doc;
      },
      true, ToOutOrStdout(out, partial));

  auto files = std::make_shared<std::vector<std::string>>();
  auto merge_out = std::make_shared<std::string>();
  CLI::App* merge = root.add_subcommand(
      "sweep-merge",
      "combine the partial files of perflab sweep --shard 1/N..N/N into the "
      "output of the unsharded sweep");
  merge->add_option("parts", *files, "partial files")->required();
  merge->add_option_function<std::string>(
      "--out", [merge_out](const std::string& v) { *merge_out = v; },
      "write to FILE (atomically), not stdout");
  registry.Produces(
      merge,
      [files]() -> absl::StatusOr<core::Document> { return RunMerge(*files); },
      true, ToOutOrStdout(merge_out, nullptr));
}

}  // namespace perflab::cli
