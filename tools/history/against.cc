#include "tools/history/against.h"

#include <signal.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/strip.h"
#include "core/input_file.h"
#include "core/interrupt.h"
#include "core/subprocess.h"
#include "models/mann_whitney.h"
#include "models/median.h"
#include "tools/history/git.h"

namespace perflab::history {
namespace {

constexpr size_t kMaxMarkdownRows = 20;

// The position of commit `index` in a series, or -1.
int PositionOf(const Series& s, size_t index) {
  auto it = std::find(s.commits.begin(), s.commits.end(), index);
  return it == s.commits.end() ? -1 : static_cast<int>(it - s.commits.begin());
}

int IndexOf(const History& h, const std::string& sha) {
  for (size_t i = 0; i < h.commits.size(); ++i) {
    if (h.commits[i].sha == sha) return static_cast<int>(i);
  }
  return -1;
}

const compare::BenchmarkSamples* Find(
    const std::vector<compare::BenchmarkSamples>& v, const std::string& name) {
  for (const compare::BenchmarkSamples& s : v) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

std::string Short(const std::string& sha) { return sha.substr(0, 10); }

std::string Cell(const std::string& s) {
  return absl::StrReplaceAll(s, {{"|", "\\|"}, {"\n", " "}});
}

// A commit subject cut to fit a comment's line: its first 60 bytes (backed
// off to a UTF-8 character boundary) and "...".
std::string Subject(const std::string& s) {
  constexpr size_t kMax = 60;
  if (s.size() <= kMax) return Cell(s);
  size_t end = kMax;
  while (end > 0 && (static_cast<unsigned char>(s[end]) & 0xC0) == 0x80) --end;
  return Cell(s.substr(0, end)) + "...";
}

}  // namespace

double SeriesNoise(const Series& series) {
  std::vector<double> deviations;
  for (const std::vector<double>& reps : series.values) {
    if (reps.empty()) continue;
    const double median = models::Median(reps);
    for (double v : reps) deviations.push_back(std::abs(v - median));
  }
  return deviations.empty() ? 0 : models::Median(std::move(deviations));
}

double SmallestPValue(int reps) {
  // C(2n, n) as the product of (n + i) / i for i = 1..n.
  double ways = 1;
  for (int i = 1; i <= reps; ++i) ways = ways * (reps + i) / i;
  return std::min(1.0, 2 / ways);
}

// The sentence that says a re-run this short can confirm nothing, or "".
std::string TooFewRepsSentence(int reps, double alpha) {
  if (reps <= 0 || SmallestPValue(reps) < alpha) return "";
  int enough = reps;
  while (SmallestPValue(enough) >= alpha) ++enough;
  return absl::StrFormat(
      "With %d repetitions a side the U test cannot reach p < %g (its "
      "smallest two-sided p is %.2g), so no candidate can be confirmed; "
      "--confirm %d or more can.",
      reps, alpha, SmallestPValue(reps), enough);
}

std::string_view CallName(Call call) {
  switch (call) {
    case Call::kSame:
      return "same";
    case Call::kFaster:
      return "faster";
    case Call::kSlower:
      return "slower";
    case Call::kWithinNoise:
      return "within noise";
    case Call::kNotConfirmed:
      return "not confirmed";
  }
  return "same";  // unreachable: the switch covers every enumerator
}

Call Judge(double base_median, double head_median, double p_value, double noise,
           const AgainstOptions& options) {
  const double change_pct = (head_median / base_median - 1) * 100;
  if (!(p_value < options.alpha) ||
      !(std::abs(change_pct) > options.threshold_pct)) {
    return Call::kSame;
  }
  if (std::abs(head_median - base_median) < kNoiseFactor * noise) {
    return Call::kWithinNoise;
  }
  return head_median > base_median ? Call::kSlower : Call::kFaster;
}

absl::StatusOr<Against> CompareStored(const History& h,
                                      const std::string& base_sha,
                                      const std::string& head_sha,
                                      const AgainstOptions& options) {
  const int base = IndexOf(h, base_sha), head = IndexOf(h, head_sha);
  for (const auto& [i, what, sha] :
       {std::tuple{base, "the fork point of --against", base_sha},
        std::tuple{head, "--head", head_sha}}) {
    if (i < 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "commit ", Short(sha), " (", what, ") has no stored ", options.metric,
          " run on this machine; accepted: a commit `perflab ",
          "history run` measured (run it on ", Short(sha), " first)"));
    }
  }
  Against a;
  a.base = h.commits[static_cast<size_t>(base)];
  a.head = h.commits[static_cast<size_t>(head)];
  for (const Series& s : h.series) {
    const int pb = PositionOf(s, static_cast<size_t>(base));
    const int ph = PositionOf(s, static_cast<size_t>(head));
    if (pb < 0 || ph < 0) continue;
    const std::vector<double>& b = s.values[static_cast<size_t>(pb)];
    const std::vector<double>& k = s.values[static_cast<size_t>(ph)];
    AgainstRow r;
    r.benchmark = s.benchmark;
    r.unit = s.unit;
    r.base_n = b.size();
    r.head_n = k.size();
    r.base_median = models::Median(b);
    r.head_median = models::Median(k);
    if (!(r.base_median > 0) || !(r.head_median > 0)) {
      return absl::InvalidArgumentError(
          absl::StrCat(s.benchmark, ": median ", options.metric, " is ",
                       r.base_median, " (fork point) and ", r.head_median,
                       " (head); accepted: medians > 0"));
    }
    r.change_pct = (r.head_median / r.base_median - 1) * 100;
    absl::StatusOr<models::MannWhitneyResult> u = models::MannWhitneyU(b, k);
    if (!u.ok()) return u.status();
    r.p_value = u->p_value;
    r.noise = SeriesNoise(s);
    r.call = Judge(r.base_median, r.head_median, r.p_value, r.noise, options);
    a.rows.push_back(std::move(r));
  }
  if (a.rows.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "commits ", Short(base_sha), " (fork point) and ", Short(head_sha),
        " (head) share no stored benchmark; accepted: two commits `perflab "
        "history run` measured with the same --filter"));
  }
  for (const AgainstRow& r : a.rows) a.regression |= r.call == Call::kSlower;
  return a;
}

absl::Status ApplyRerun(Against& a,
                        const std::vector<compare::BenchmarkSamples>& base,
                        const std::vector<compare::BenchmarkSamples>& head,
                        const AgainstOptions& options) {
  a.regression = false;
  for (AgainstRow& r : a.rows) {
    if (r.call != Call::kSlower) continue;
    const compare::BenchmarkSamples* b = Find(base, r.benchmark);
    const compare::BenchmarkSamples* k = Find(head, r.benchmark);
    if (b == nullptr || k == nullptr || b->values.empty() ||
        k->values.empty()) {
      return absl::InternalError(absl::StrCat(
          "the confirming re-run has no samples of ", r.benchmark));
    }
    if (b->unit != r.unit || k->unit != r.unit) {
      return absl::InternalError(
          absl::StrCat("the confirming re-run of ", r.benchmark, " is in '",
                       b->unit, "', the history in '", r.unit, "'"));
    }
    const double bm = models::Median(b->values);
    const double km = models::Median(k->values);
    absl::StatusOr<models::MannWhitneyResult> u =
        models::MannWhitneyU(b->values, k->values);
    if (!u.ok()) return u.status();
    r.rerun = true;
    r.rerun_p_value = u->p_value;
    r.rerun_change_pct = bm > 0 ? (km / bm - 1) * 100 : 0;
    const Call again =
        bm > 0 ? Judge(bm, km, u->p_value, r.noise, options) : Call::kSame;
    if (again != Call::kSlower) r.call = Call::kNotConfirmed;
    a.regression |= r.call == Call::kSlower;
  }
  a.confirm = options.confirm;
  return absl::OkStatus();
}

absl::StatusOr<Against> RunAgainst(const History& h, AgainstEnv& env,
                                   const AgainstOptions& options) {
  if (options.confirm > 0 && options.metric == "instructions") {
    return absl::InvalidArgumentError(
        "--confirm with --metric instructions: a count does not vary between "
        "runs, there is nothing to confirm; accepted: --confirm with "
        "real_time or cpu_time");
  }
  absl::StatusOr<std::string> head = env.Resolve(options.head);
  if (!head.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("--head '", options.head, "': ", head.status().message(),
                     "; accepted: a branch, tag or commit of the repository"));
  }
  absl::StatusOr<std::string> ref = env.Resolve(options.ref);
  if (!ref.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("--against '", options.ref, "': ", ref.status().message(),
                     "; accepted: a branch, tag or commit of the repository"));
  }
  absl::StatusOr<std::string> base = env.MergeBase(*ref, *head);
  if (!base.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("--against '", options.ref, "': ", base.status().message(),
                     "; accepted: a ref that shares history with --head"));
  }
  absl::StatusOr<Against> a = CompareStored(h, *base, *head, options);
  if (!a.ok()) {
    // Neither commit stored: say so when the database is another project's.
    if (!h.commits.empty() && !env.Resolve(h.commits.back().sha).ok()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--db: its newest commit ", Short(h.commits.back().sha),
          " is not in the repository, a history of another project; "
          "accepted: a database `perflab history run` filled from this "
          "repository (--repo)"));
    }
    return a.status();
  }
  if (options.confirm > 0) {
    std::vector<std::string> names;
    for (const AgainstRow& r : a->rows) {
      if (r.call == Call::kSlower) names.push_back(r.benchmark);
    }
    if (!names.empty()) {
      absl::StatusOr<AgainstEnv::RerunSamples> rerun =
          env.Rerun(*base, *head, names, options);
      if (!rerun.ok()) return rerun.status();
      if (absl::Status s = ApplyRerun(*a, rerun->base, rerun->head, options);
          !s.ok()) {
        return s;
      }
    }
    a->confirm = options.confirm;
  }
  return a;
}

core::Document AgainstDocument(const Against& a, const AgainstOptions& options,
                               const std::string& machine) {
  core::Document doc(absl::StrCat(
      "Benchmark history: head against the fork point of ", options.ref));
  doc.Set("against", "against", options.ref);
  doc.Set("base", "fork point", a.base.sha);
  doc.Set("base_subject", "fork point subject", a.base.subject);
  doc.Set("head", "head", a.head.sha);
  doc.Set("head_subject", "head subject", a.head.subject);
  doc.Set("machine", "machine", machine);
  doc.Set("metric", "metric", options.metric);
  doc.Set("confirm", "re-runs a side per candidate",
          static_cast<int64_t>(a.confirm));
  doc.Set("regressions", "regressions",
          static_cast<int64_t>(std::count_if(
              a.rows.begin(), a.rows.end(),
              [](const AgainstRow& r) { return r.call == Call::kSlower; })));
  core::Table& t = doc.AddTable("benchmarks", "Head against the fork point",
                                {{"benchmark", "benchmark"},
                                 {"base_median", "fork point", 3},
                                 {"head_median", "head", 3},
                                 {"unit", "unit"},
                                 {"change_pct", "change (%)", 2},
                                 {"p_value", "p (U test)", 4},
                                 {"noise", "noise (MAD)", 3},
                                 {"noise_pct", "noise (%)", 2},
                                 {"verdict", "verdict"},
                                 {"rerun_change_pct", "re-run change (%)", 2},
                                 {"rerun_p_value", "re-run p", 4}});
  for (const AgainstRow& r : a.rows) {
    t.Add({r.benchmark, r.base_median, r.head_median, r.unit, r.change_pct,
           r.p_value, r.noise, r.noise / r.base_median * 100,
           std::string(CallName(r.call)),
           r.rerun ? core::Value(r.rerun_change_pct) : core::Value(),
           r.rerun ? core::Value(r.rerun_p_value) : core::Value()});
  }
  doc.Note(absl::StrFormat(
      "slower/faster: p < %g (two-sided Mann-Whitney U on the stored "
      "repetitions), |change| > %g %% and at least %g times the noise (the "
      "median absolute deviation of the benchmark's stored repetitions); "
      "'within noise' fails only the last",
      options.alpha, options.threshold_pct, kNoiseFactor));
  if (a.confirm > 0) {
    doc.Note(absl::StrCat(
        "each candidate regression was re-run ", a.confirm,
        " times a side, interleaved with the fork point; 'not confirmed' "
        "when the re-run did not say slower"));
    if (std::string s = TooFewRepsSentence(a.confirm, options.alpha);
        !s.empty()) {
      doc.Note(s);
    }
  }
  return doc;
}

namespace {

std::string Explanation(const Against& a, const AgainstOptions& options) {
  std::string out = absl::StrFormat(
      "How this was decided: each benchmark's stored repetitions (%s) of the "
      "head and of the fork point were compared with a two-sided "
      "Mann-Whitney U test. A change is called when p < %g, it exceeds "
      "%g %% and it is at least %g times the benchmark's noise, the median "
      "absolute deviation of its stored repetitions (shown as a percentage "
      "of the fork point's median).",
      options.metric, options.alpha, options.threshold_pct, kNoiseFactor);
  const bool rerun = std::any_of(a.rows.begin(), a.rows.end(),
                                 [](const AgainstRow& r) { return r.rerun; });
  if (a.confirm > 0 && !rerun) {
    absl::StrAppend(&out,
                    " No candidate regression needed the confirming "
                    "re-run (--confirm ",
                    a.confirm, ").");
  } else if (a.confirm > 0) {
    absl::StrAppend(&out, " Each candidate regression was measured again, ",
                    a.confirm,
                    " repetitions a side interleaved with the fork point, "
                    "and is reported only if the re-run gives the same "
                    "verdict.");
    if (std::string s = TooFewRepsSentence(a.confirm, options.alpha);
        !s.empty()) {
      absl::StrAppend(&out, " ", s);
    }
  } else {
    absl::StrAppend(&out,
                    " No confirming re-run was made (--confirm N adds one).");
  }
  return out + "\n";
}

// Four significant digits, but never an exponent for a large median.
std::string Median(double v) {
  return std::abs(v) >= 1e4 ? absl::StrFormat("%.0f", v)
                            : absl::StrFormat("%.4g", v);
}

std::string MarkdownRow(const AgainstRow& r) {
  std::string verdict(CallName(r.call));
  if (r.rerun) {
    absl::StrAppend(&verdict,
                    absl::StrFormat(" (re-run %+.1f %%, p %.2g)",
                                    r.rerun_change_pct, r.rerun_p_value));
  }
  return absl::StrFormat(
      "| %s | %s %s | %s %s | %+.1f %% | %.1f %% | "
      "%.2g | %s |\n",
      Cell(r.benchmark), Median(r.base_median), Cell(r.unit),
      Median(r.head_median), Cell(r.unit), r.change_pct,
      r.noise / r.base_median * 100, r.p_value, verdict);
}

}  // namespace

std::string AgainstMarkdown(const Against& a, const AgainstOptions& options) {
  std::map<Call, size_t> count;
  std::vector<const AgainstRow*> changed;
  for (const AgainstRow& r : a.rows) {
    ++count[r.call];
    if (r.call != Call::kSame) changed.push_back(&r);
  }
  const size_t slower = count[Call::kSlower];
  std::string out = slower == 0
                        ? absl::StrCat("### perflab: no regression against `",
                                       Cell(options.ref), "`\n\n")
                        : absl::StrCat("### perflab: ", slower, " regression",
                                       slower == 1 ? "" : "s", " against `",
                                       Cell(options.ref), "`\n\n");
  absl::StrAppend(
      &out, "Head `", Short(a.head.sha), "` (", Subject(a.head.subject),
      ") against `", Short(a.base.sha), "` (", Subject(a.base.subject),
      "), the fork point: ", a.rows.size(), " benchmark",
      a.rows.size() == 1 ? "" : "s", ", ", slower, " slower, ",
      count[Call::kFaster], " faster, ", count[Call::kSame], " same");
  for (Call c : {Call::kWithinNoise, Call::kNotConfirmed}) {
    if (count[c] > 0)
      absl::StrAppend(&out, ", ", count[c], " ", std::string(CallName(c)));
  }
  out += ".\n\n";
  if (!changed.empty()) {
    out +=
        "| benchmark | fork point | head | change | noise (MAD) | p | verdict "
        "|\n| :--- | ---: | ---: | ---: | ---: | ---: | :--- |\n";
    // Regressions first, then by the size of the change.
    std::stable_sort(changed.begin(), changed.end(), [](auto* x, auto* y) {
      if ((x->call == Call::kSlower) != (y->call == Call::kSlower)) {
        return x->call == Call::kSlower;
      }
      return std::abs(x->change_pct) > std::abs(y->change_pct);
    });
    for (size_t i = 0; i < changed.size() && i < kMaxMarkdownRows; ++i) {
      out += MarkdownRow(*changed[i]);
    }
    if (changed.size() > kMaxMarkdownRows) {
      absl::StrAppend(&out, "\n(", changed.size() - kMaxMarkdownRows,
                      " more; `--format table` lists every benchmark.)\n");
    }
    out += "\n";
  } else {
    out += "No benchmark changed.\n\n";
  }
  return out + Explanation(a, options);
}

std::string ExactFilter(const std::vector<std::string>& names) {
  std::vector<std::string> escaped;
  for (const std::string& n : names) {
    std::string e;
    for (char c : n) {
      if (std::string_view("\\^$.|?*+()[]{}").find(c) !=
          std::string_view::npos) {
        e += '\\';
      }
      e += c;
    }
    escaped.push_back(std::move(e));
  }
  return absl::StrCat("^(", absl::StrJoin(escaped, "|"), ")$");
}

namespace {

class GitAgainstEnv : public AgainstEnv {
 public:
  GitAgainstEnv(std::string repo, std::string tool, std::string perflab)
      : repo_(std::move(repo)),
        tool_(std::move(tool)),
        perflab_(std::move(perflab)) {}

  absl::StatusOr<std::string> Resolve(std::string_view ref) override {
    if (ref.empty() || ref.front() == '-') return Unresolved();
    absl::StatusOr<std::string> out =
        Git({"rev-parse", "--verify", "--quiet",
             absl::StrCat(std::string(ref), "^{commit}")});
    if (!out.ok()) return Unresolved();
    return out;
  }

  absl::StatusOr<std::string> MergeBase(std::string_view a,
                                        std::string_view b) override {
    absl::StatusOr<std::string> out =
        Git({"merge-base", std::string(a), std::string(b)});
    if (!out.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("no common ancestor with ", Short(std::string(b))));
    }
    return out;
  }

  absl::StatusOr<RerunSamples> Rerun(const std::string& base_sha,
                                     const std::string& head_sha,
                                     const std::vector<std::string>& names,
                                     const AgainstOptions& o) override {
    absl::StatusOr<std::string> dir =
        core::MakeTempDir(core::TempDirBase() + "/perflab-confirm-");
    if (!dir.ok()) return dir.status();
    absl::StatusOr<RerunSamples> out =
        RerunIn(*dir, base_sha, head_sha, names, o);
    core::RemoveTempPath(*dir);
    return out;
  }

 private:
  absl::Status Unresolved() const {
    return absl::InvalidArgumentError(
        absl::StrCat("git cannot resolve it in ", repo_));
  }

  // git's first output line; an error when git fails.
  absl::StatusOr<std::string> Git(const std::vector<std::string>& args) {
    absl::StatusOr<GitOutput> git = RunGit(repo_, args);
    if (!git.ok()) return git.status();
    if (!git->status.ok()) return absl::InvalidArgumentError("git failed");
    std::string line(absl::StripAsciiWhitespace(git->out));
    if (line.empty()) return absl::InvalidArgumentError("git printed nothing");
    return line;
  }

  absl::StatusOr<RerunSamples> RerunIn(const std::string& dir,
                                       const std::string& base_sha,
                                       const std::string& head_sha,
                                       const std::vector<std::string>& names,
                                       const AgainstOptions& o) {
    std::vector<std::string> argv = {
        tool_,        base_sha,
        head_sha,     "--repo",
        repo_,        "--filter=" + ExactFilter(names),
        "--reps",     absl::StrCat(o.confirm),
        "--targets",  o.targets,
        "--min-time", absl::StrCat(o.min_time),
        "--out",      dir,
        "--perflab",  perflab_};
    core::SpawnOptions so;
    so.stdout_to = core::Output::kToStderr;  // its compare table: a log
    so.stderr_to = core::Output::kInherit;
    so.death_signal = SIGTERM;  // it removes its worktrees, this process can't
    auto p = core::Subprocess::Spawn(argv, so);
    if (!p.ok()) return p.status();
    auto st = p->Wait();
    if (!st.ok()) return st.status();
    if (!st->ok() && st->code != 1) {
      return absl::InternalError(absl::StrCat(
          "tools/bench-commits ", Short(base_sha), " ", Short(head_sha),
          " (the confirming re-run): ", st->ToString()));
    }
    RerunSamples out;
    for (auto& [file, side] : {std::pair{"base.json", &out.base},
                               std::pair{"contender.json", &out.head}}) {
      absl::StatusOr<std::string> text =
          core::ReadInputFile("re-run", dir + "/" + file);
      if (!text.ok()) return absl::InternalError(text.status().message());
      auto samples = compare::ParseGbenchJson(*text, o.metric);
      if (!samples.ok()) return absl::InternalError(samples.status().message());
      *side = *std::move(samples);
    }
    return out;
  }

  std::string repo_, tool_, perflab_;
};

}  // namespace

std::unique_ptr<AgainstEnv> RealAgainstEnv(std::string repo,
                                           std::string bench_commits,
                                           std::string perflab) {
  return std::make_unique<GitAgainstEnv>(
      std::move(repo), std::move(bench_commits), std::move(perflab));
}

}  // namespace perflab::history
