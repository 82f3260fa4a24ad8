// perflab history run|changes|plot: benchmark history across commits in an
// SQLite database (tools/history/store.h). `run` measures a range of commits
// through tools/bench-commits --one, `changes` finds the change points of
// every series (or, with --against, the head against a fork point), `plot`
// draws one SVG per benchmark (tools/plots/history.py).
// Bad input (a range git cannot resolve, a database of another schema, a
// corrupt or read-only one, a filter matching nothing): one line, exit 2.
#include <limits.h>
#include <regex.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <limits>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "core/atomic_file.h"
#include "core/data_paths.h"
#include "core/env.h"
#include "core/interrupt.h"
#include "core/subprocess.h"
#include "tools/compare/markdown.h"
#include "tools/history/against.h"
#include "tools/history/changes.h"
#include "tools/history/run.h"
#include "tools/history/store.h"
#include "tools/perflab/commands.h"

namespace perflab::cli {
namespace {

constexpr char kDefaultDb[] = "reports/history.sqlite";

// The checkout's scripts, found at run time (core/data_paths.h).
std::string DataFile(std::string_view relative) {
  return core::FindDataPaths(core::Env::Default()).Data(relative);
}

// The repository measured by default: the checkout this binary was built
// in, else the current directory.
std::string DefaultRepo() {
  return core::FindDataPaths(core::Env::Default()).repo;
}

struct Common {
  std::string db = kDefaultDb;
  int64_t machine = 0;  // 0: this machine
  history::ChangesOptions changes;
  std::string format = kDefaultFormat;
  std::string out_dir;
  int exit_code = 0;
  // --against: the options, and the result the md verdict renders.
  history::AgainstOptions against;
  std::string repo = DefaultRepo();
  std::shared_ptr<history::Against> against_result;
};

// The series of the chosen machine, or one line naming the stored ones.
absl::StatusOr<history::History> LoadSeries(history::Store& store,
                                            const Common& c,
                                            std::string* machine_text) {
  int64_t id = c.machine;
  absl::StatusOr<std::vector<std::string>> machines = store.Machines();
  if (!machines.ok()) return machines.status();
  const std::string stored =
      machines->empty() ? "none" : absl::StrJoin(*machines, "; ");
  if (id == 0) {
    absl::StatusOr<int64_t> mine = store.MachineId(history::DetectMachine());
    if (!mine.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("--db '", c.db,
                       "' holds no run of this machine; accepted: --machine "
                       "ID of a stored one (",
                       stored, ")"));
    }
    id = *mine;
  }
  for (const std::string& m : *machines) {
    if (absl::StartsWith(m, absl::StrCat(id, ": "))) *machine_text = m;
  }
  if (machine_text->empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--machine ", id, ": not in --db '", c.db, "'; accepted: ", stored));
  }
  absl::StatusOr<history::History> h = store.Load(id, c.changes.metric);
  if (!h.ok()) return h.status();
  if (h->series.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--db '", c.db, "': no ", c.changes.metric, " samples of machine ", id,
        "; accepted: a database `perflab history run` filled",
        c.changes.metric == "instructions" ? " with --instructions" : ""));
  }
  return h;
}

void AddDetectorFlags(CLI::App* cmd, Common& c) {
  cmd->add_option("--db", c.db,
                  WithDefault("the history database", DefaultText(c.db)));
  cmd->add_option("--metric", c.changes.metric,
                  WithDefault("real_time, cpu_time or instructions",
                              DefaultText(c.changes.metric)))
      ->check(CLI::IsMember({"real_time", "cpu_time", "instructions"}));
  cmd->add_option("--machine", c.machine,
                  "stored machine id (default: this machine)")
      ->check(IntIn(1, std::numeric_limits<int64_t>::max()));
  cmd->add_option("--alpha", c.changes.detector.alpha,
                  WithDefault("false-alarm level of each test",
                              DefaultText(c.changes.detector.alpha)))
      ->check(OpenFraction());
  cmd->add_option("--threshold", c.changes.threshold_pct,
                  WithDefault("a rise beyond this percent is a regression",
                              DefaultText(c.changes.threshold_pct)))
      ->check(NonNegative());
}

// The head against the fork point of --against, re-run through
// tools/bench-commits with this binary as its perflab.
absl::StatusOr<core::Document> Against(Common& c, const history::History& h,
                                       const std::string& machine) {
  history::AgainstOptions& o = c.against;
  o.metric = c.changes.metric;
  o.alpha = c.changes.detector.alpha;
  o.threshold_pct = c.changes.threshold_pct;
  // An interrupt during the re-run stops bench-commits (which removes its
  // worktrees) and removes the re-run's temporary folder.
  if (o.confirm > 0) core::InstallInterruptCleanup();
  std::error_code ec;
  const std::string self =
      std::filesystem::read_symlink("/proc/self/exe", ec).string();
  std::unique_ptr<history::AgainstEnv> env =
      history::RealAgainstEnv(c.repo, DataFile("tools/bench-commits"), self);
  absl::StatusOr<history::Against> a = history::RunAgainst(h, *env, o);
  if (!a.ok()) return a.status();
  c.exit_code = a->regression ? 1 : 0;
  c.against_result = std::make_shared<history::Against>(*std::move(a));
  return history::AgainstDocument(*c.against_result, o, machine);
}

absl::StatusOr<core::Document> Changes(Common& c) {
  absl::StatusOr<history::Store> store = history::Store::Open(c.db, false);
  if (!store.ok()) return store.status();
  std::string machine;
  absl::StatusOr<history::History> h = LoadSeries(*store, c, &machine);
  if (!h.ok()) return h.status();
  if (!c.against.ref.empty()) return Against(c, *h, machine);
  absl::StatusOr<history::Changes> ch = history::FindChanges(*h, c.changes);
  if (!ch.ok()) return ch.status();
  c.exit_code = ch->regression ? 1 : 0;
  return history::ChangesDocument(*h, *ch, c.changes, machine);
}

// Longest file name base: with ".svg", a "_N" to tell apart two names cut
// alike, and the plot writer's temporary name ("." NAME ".XXXXXXXX.tmp"),
// it stays well within NAME_MAX (255).
constexpr size_t kMaxBaseName = 200;

// A file name for a benchmark: [A-Za-z0-9_.-] kept, the rest '_', cut to
// kMaxBaseName; never hidden and never "." or "..".
std::string FileName(const std::string& benchmark,
                     std::set<std::string>& used) {
  std::string base;
  for (char ch : benchmark) {
    const bool ok = std::isalnum(static_cast<unsigned char>(ch)) != 0 ||
                    ch == '_' || ch == '.' || ch == '-';
    base += ok ? ch : '_';
    if (base.size() == kMaxBaseName) break;
  }
  if (base.empty() || base.front() == '.') base.insert(0, "_");
  std::string name = base + ".svg";
  for (int i = 2; !used.insert(name).second; ++i) {
    name = absl::StrCat(base, "_", i, ".svg");
  }
  return name;
}

// Runs tools/plots/history.py into `stage`, then moves its SVGs into
// `out_dir` as one set: an interrupt or a failure leaves the previous set.
absl::Status DrawPlots(const std::string& data, const std::string& stage,
                       const std::string& out_dir,
                       const std::vector<std::string>& files) {
  const std::string data_path = stage + "/history-plot-data.json";
  if (absl::Status s = core::WriteFileAtomic(data_path, data); !s.ok()) {
    return s;
  }
  std::vector<std::string> argv = {
      "/usr/bin/python3", DataFile("tools/plots/history.py"), data_path, stage};
  argv.insert(argv.end(), files.begin(), files.end());
  core::SpawnOptions o;
  o.stdout_to = core::Output::kDiscard;  // it names the staging folder
  auto p = core::Subprocess::Spawn(argv, o);
  absl::StatusOr<core::ExitStatus> st =
      p.ok() ? p->Wait() : absl::StatusOr<core::ExitStatus>(p.status());
  if (!st.ok()) return st.status();
  if (!st->ok()) {
    return absl::InternalError(
        absl::StrCat("tools/plots/history.py: ", st->ToString()));
  }
  std::vector<core::FileContent> set;
  for (const std::string& f : files) {
    std::ifstream in(absl::StrCat(stage, "/", f), std::ios::binary);
    std::string svg((std::istreambuf_iterator<char>(in)),
                    std::istreambuf_iterator<char>());
    if (!in.good() && !in.eof()) {
      return absl::InternalError(absl::StrCat("cannot read the plot ", f));
    }
    set.push_back({absl::StrCat(out_dir, "/", f), std::move(svg)});
  }
  return core::WriteFilesAtomic(set);
}

absl::StatusOr<core::Document> Plot(Common& c) {
  absl::StatusOr<history::Store> store = history::Store::Open(c.db, false);
  if (!store.ok()) return store.status();
  std::string machine;
  absl::StatusOr<history::History> h = LoadSeries(*store, c, &machine);
  if (!h.ok()) return h.status();
  absl::StatusOr<history::Changes> ch = history::FindChanges(*h, c.changes);
  if (!ch.ok()) return ch.status();
  core::Document doc("Benchmark history plots");
  core::Table& t = doc.AddTable("plots", "One SVG per benchmark",
                                {{"benchmark", "benchmark"},
                                 {"file", "file"},
                                 {"changes", "change points"}});
  std::set<std::string> used;
  std::vector<std::string> files;
  for (const history::SeriesChanges& sc : ch->per_series) {
    files.push_back(FileName(sc.series->benchmark, used));
    t.Add({sc.series->benchmark, absl::StrCat(c.out_dir, "/", files.back()),
           static_cast<int64_t>(sc.changes.size())});
  }
  const std::string data =
      core::ToJson(history::PlotDocument(*h, *ch, c.changes));
  for (const auto& part : std::filesystem::path(c.out_dir)) {
    if (part.native().size() > NAME_MAX) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--out-dir: a folder name of ", part.native().size(), " bytes ('",
          part.native().substr(0, 40), "...'); accepted: names of at most ",
          NAME_MAX, " bytes each"));
    }
  }
  for (const std::string& f : files) {
    if (absl::Status s = core::CheckWritable(c.out_dir + "/" + f); !s.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("--out-dir '", c.out_dir, "': ", s.message()));
    }
  }
  // The data and the drawn plots wait in a registered temporary folder
  // beside the output (same file system), which an interrupt removes.
  core::InstallInterruptCleanup();
  std::error_code ec;
  std::filesystem::create_directories(c.out_dir, ec);
  absl::StatusOr<std::string> stage =
      core::MakeTempDir(c.out_dir + "/.history-plot.");
  if (!stage.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--out-dir '", c.out_dir, "': ", stage.status().message()));
  }
  absl::Status s = DrawPlots(data, *stage, c.out_dir, files);
  core::RemoveTempPath(*stage);
  if (!s.ok()) return s;
  return doc;
}

// Every option is checked before git runs or the database is made.
absl::Status CheckRunOptions(const history::RunOptions& r) {
  regex_t re;
  // Google Benchmark compiles --benchmark_filter as a POSIX extended regex.
  const int rc = ::regcomp(&re, r.filter.c_str(), REG_EXTENDED | REG_NOSUB);
  if (rc != 0) {
    char why[128];
    ::regerror(rc, nullptr, why, sizeof why);
    return absl::InvalidArgumentError(absl::StrCat(
        "--filter '", r.filter, "': not a regular expression (", why,
        "); accepted: a POSIX extended regex of benchmark names"));
  }
  ::regfree(&re);
  const std::vector<std::string> targets =
      absl::StrSplit(r.targets, ',', absl::SkipEmpty());
  bool ok = !targets.empty();
  for (const std::string& t : targets) {
    ok = ok && absl::StartsWith(t, "bench_") && t.size() > 6 &&
         std::all_of(t.begin() + 6, t.end(), [](char ch) {
           return absl::ascii_islower(ch) || ch == '_';
         });
  }
  if (!ok) {
    return absl::InvalidArgumentError(
        absl::StrCat("--targets '", r.targets,
                     "': accepted bench_* target names (bench_ and [a-z_]), "
                     "comma-separated"));
  }
  return absl::OkStatus();
}

// `history run`: the options, then the range (a bad one leaves no database
// behind), then the store. A database this run created and stored nothing
// in is removed, on an error, an interrupt or a filter matching nothing.
absl::StatusOr<history::RunSummary> RunCommand(const history::RunOptions& r,
                                               const std::string& range,
                                               const std::string& db,
                                               const std::string& repo) {
  if (absl::Status s = CheckRunOptions(r); !s.ok()) return s;
  // tools/bench-commits removes its git worktree on SIGTERM after stopping
  // the build in it: it gets that long before the SIGKILL.
  core::InstallInterruptCleanup();
  core::SetInterruptGrace(std::chrono::seconds(60));
  std::unique_ptr<history::Env> env =
      history::RealEnv(repo, DataFile("tools/bench-commits"));
  if (auto commits = env->ListCommits(range); !commits.ok()) {
    return commits.status();
  }
  bool fresh = false;
  absl::StatusOr<history::RunSummary> s;
  {
    absl::StatusOr<history::Store> store = history::Store::Open(db, true);
    if (!store.ok()) return store.status();
    s = history::RunHistory(*store, *env, range, r, std::cerr);
    fresh = store->fresh();
  }
  if (fresh) {
    core::RemoveTempPath(db);
    core::RemoveTempPath(db + "-journal");
  }
  return s;
}

core::Document RunDocument(const history::RunSummary& s,
                           const std::string& db) {
  core::Document doc("Benchmark history: run");
  doc.Set("db", "database", db);
  doc.Set("commits", "commits in the range", static_cast<int64_t>(s.commits));
  doc.Set("measured", "measured now", static_cast<int64_t>(s.measured));
  doc.Set("skipped", "stored already", static_cast<int64_t>(s.skipped));
  doc.Set("build_failed", "did not build",
          static_cast<int64_t>(s.build_failed));
  doc.Set("no_match", "filter matched nothing",
          static_cast<int64_t>(s.no_match));
  doc.Set("failed_outside", "failed outside the commit (tried again)",
          static_cast<int64_t>(s.failed_outside));
  doc.Set("samples", "samples stored now", static_cast<int64_t>(s.samples));
  return doc;
}

// --against and the flags that go with it; returns --against.
CLI::Option* AddAgainstFlags(CLI::App* cmd, Common& c) {
  history::AgainstOptions& o = c.against;
  CLI::Option* against = cmd->add_option(
      "--against", o.ref,
      "compare the head with the fork point of REF (git merge-base); exit 1 "
      "on a regression");
  cmd->add_option("--head", o.head,
                  WithDefault("the commit under test", DefaultText(o.head)))
      ->needs(against);
  cmd->add_option("--confirm", o.confirm,
                  "re-run each candidate regression N times a side, "
                  "interleaved with the fork point (tools/bench-commits), and "
                  "report it only if the verdict holds")
      ->check(IntIn(1, history::kMaxConfirmReps))
      ->needs(against);
  cmd->add_option("--targets", o.targets,
                  WithDefault("benchmark targets the re-run builds",
                              DefaultText(o.targets)))
      ->needs(against);
  cmd->add_option("--min-time", o.min_time,
                  WithDefault("--benchmark_min_time of the re-run, seconds",
                              DefaultText(o.min_time)))
      ->check(PositiveAtMost(3600))
      ->needs(against);
  cmd->add_option("--repo", c.repo,
                  WithDefault("the git repository", DefaultText(c.repo)))
      ->needs(against);
  return against;
}

}  // namespace

void AddHistoryCommands(CLI::App& root, Registry& registry) {
  CLI::App* group = root.add_subcommand(
      "history",
      "benchmark history across commits: run (measure a range into an SQLite "
      "database), changes (change points), plot (one SVG per benchmark)");
  group->require_subcommand(1);

  // run
  CLI::App* run = group->add_subcommand(
      "run",
      "build and benchmark each commit of REV_RANGE, store every "
      "repetition (commits already stored are skipped)");
  auto r = std::make_shared<history::RunOptions>();
  auto range = std::make_shared<std::string>();
  auto db = std::make_shared<std::string>(kDefaultDb);
  auto repo = std::make_shared<std::string>(DefaultRepo());
  run->add_option("REV_RANGE", *range, "commits to measure: A..B or one ref")
      ->required();
  run->add_option("--filter", r->filter,
                  "--benchmark_filter regex (stored with the runs)")
      ->required();
  run->add_option("--reps", r->reps,
                  WithDefault("repetitions per commit", DefaultText(r->reps)))
      ->check(IntIn(1, 1000));
  run->add_option("--every", r->every,
                  WithDefault("every K-th commit (the newest always)",
                              DefaultText(r->every)))
      ->check(IntIn(1, 1'000'000));
  run->add_flag("--instructions", r->instructions,
                "count instructions under callgrind instead of timing");
  run->add_option("--targets", r->targets,
                  WithDefault("benchmark targets, comma-separated",
                              DefaultText(r->targets)));
  run->add_option("--min-time", r->min_time,
                  WithDefault("--benchmark_min_time per run, seconds",
                              DefaultText(r->min_time)))
      ->check(PositiveAtMost(3600));
  run->add_option("--db", *db,
                  WithDefault("the history database", DefaultText(*db)));
  run->add_option("--repo", *repo,
                  WithDefault("the git repository", DefaultText(*repo)));
  registry.Produces(run,
                    [r, range, db, repo]() -> absl::StatusOr<core::Document> {
                      absl::StatusOr<history::RunSummary> s =
                          RunCommand(*r, *range, *db, *repo);
                      if (!s.ok()) return s.status();
                      return RunDocument(*s, *db);
                    });

  // changes
  CLI::App* changes = group->add_subcommand(
      "changes",
      "change points of every benchmark's series (E-divisive "
      "means, permutation test, confirmed by the U test)");
  changes->footer(
      "Exit code: 0 no regression in the newest --since commits, or none "
      "against the fork point of --against (or neither flag), 1 a "
      "regression, 2 bad input.");
  auto c = std::make_shared<Common>();
  AddDetectorFlags(changes, *c);
  CLI::Option* since =
      changes
          ->add_option("--since", c->changes.since,
                       "exit 1 when the newest N commits hold a regression")
          ->check(IntIn(1, 1'000'000));
  AddAgainstFlags(changes, *c)->excludes(since);
  changes
      ->add_option(
          "--format", c->format,
          WithDefault("output: table, json, csv, md", DefaultText(c->format)))
      ->check(CLI::IsMember({"table", "json", "csv", "md"}));
  changes->callback([&registry, c] {
    registry.chosen() =
        Registry::Choice{[c]() { return Changes(*c); }, &c->format};
    Registry::Extras& extras = registry.extras();
    extras.render = [c](const core::Document& doc, const std::string& format) {
      if (format == "md" && c->against_result) {
        return history::AgainstMarkdown(*c->against_result, c->against);
      }
      return compare::RenderAs(doc, format);
    };
    extras.exit_code = [c] { return c->exit_code; };
  });

  // plot
  CLI::App* plot = group->add_subcommand(
      "plot",
      "one SVG per benchmark: median and spread per commit, change "
      "points marked with their size");
  auto pc = std::make_shared<Common>();
  AddDetectorFlags(plot, *pc);
  plot->add_option("--out-dir", pc->out_dir, "folder for the SVG files")
      ->required();
  registry.Produces(plot, [pc]() { return Plot(*pc); });
}

}  // namespace perflab::cli
