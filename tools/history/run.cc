#include "tools/history/run.h"

#include <signal.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <ostream>
#include <sstream>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "core/env.h"
#include "core/json.h"
#include "core/subprocess.h"
#include "rapidjson/document.h"
#include "rapidjson/stringbuffer.h"
#include "rapidjson/writer.h"
#include "tools/history/git.h"

namespace perflab::history {
namespace {

// Fields of a Google Benchmark row that are not user counters.
bool IsBuiltinField(absl::string_view k) {
  for (absl::string_view b :
       {"name", "family_index", "per_family_instance_index", "run_name",
        "run_type", "repetitions", "repetition_index", "threads", "iterations",
        "real_time", "cpu_time", "time_unit", "instructions", "aggregate_name",
        "aggregate_unit", "label", "error_occurred", "error_message"}) {
    if (k == b) return true;
  }
  return false;
}

std::string Seconds(int64_t nanos) {
  return absl::StrCat(nanos / 1'000'000'000, " s");
}

class GitEnv : public Env {
 public:
  GitEnv(std::string repo, std::string tool)
      : repo_(std::move(repo)), tool_(std::move(tool)) {}

  absl::StatusOr<std::vector<Commit>> ListCommits(
      absl::string_view range) override {
    const std::string bad = absl::StrCat(
        "REV_RANGE '", range, "': git cannot resolve it in ", repo_,
        "; accepted: A..B (the commits after A up to B) or a commit");
    if (range.empty() || range.front() == '-') {
      return absl::InvalidArgumentError(bad);
    }
    std::vector<std::string> args = {"log",
                                     "--first-parent",
                                     "--reverse",
                                     "--format=%H%x1f%P%x1f%ct%x1f%s",
                                     std::string(range),
                                     "--"};
    if (range.find("..") == absl::string_view::npos) {
      args.insert(args.end() - 2, "--max-count=1");
      // --reverse applies after --max-count: one commit either way.
    }
    absl::StatusOr<GitOutput> git = RunGit(repo_, args);
    if (!git.ok()) return git.status();
    if (!git->status.ok()) return absl::InvalidArgumentError(bad);
    std::vector<Commit> out;
    for (absl::string_view line :
         absl::StrSplit(git->out, '\n', absl::SkipEmpty())) {
      std::vector<std::string> f = absl::StrSplit(line, '\x1f');
      if (f.size() != 4) continue;
      Commit c;
      c.sha = f[0];
      const std::vector<std::string> parents = absl::StrSplit(f[1], ' ');
      c.parent = parents.empty() ? "" : parents[0];
      (void)absl::SimpleAtoi(f[2], &c.time);
      c.subject = f[3];
      out.push_back(std::move(c));
    }
    if (out.empty()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "REV_RANGE '", range,
          "': holds no commit; accepted: A..B with B a descendant of A"));
    }
    return out;
  }

  absl::StatusOr<Measured> Measure(const Commit& commit,
                                   const RunOptions& opt) override {
    std::vector<std::string> argv = {tool_,
                                     "--one",
                                     commit.sha,
                                     "--repo",
                                     repo_,
                                     "--reps",
                                     absl::StrCat(opt.reps),
                                     "--targets",
                                     opt.targets,
                                     "--min-time",
                                     absl::StrCat(opt.min_time)};
    if (!opt.filter.empty()) argv.push_back("--filter=" + opt.filter);
    if (opt.instructions) argv.emplace_back("--instructions");
    core::SpawnOptions o;
    o.stdout_to = core::Output::kCapture;
    o.stderr_to = core::Output::kInherit;
    // Killed, this process can remove nothing: SIGTERM lets bench-commits
    // stop its build and remove its worktree itself.
    o.death_signal = SIGTERM;
    auto p = core::Subprocess::Spawn(argv, o);
    if (!p.ok()) return p.status();
    auto st = p->Wait();
    if (!st.ok()) return st.status();
    Measured m;
    if (st->ok()) {
      m.json = p->output();
    } else if (st->code == 4) {
      m.outcome = Measured::Outcome::kBuildFailed;
    } else if (st->code == 5) {
      m.outcome = Measured::Outcome::kNoMatch;
    } else if (st->code == 3 || st->signal != 0 || st->code == 130 ||
               st->code == 143) {
      // Exit 3 is a failure outside the build (the worktree, a run); a
      // signal or 130/143 says it was stopped. Neither blames the commit.
      m.outcome = Measured::Outcome::kOutside;
      m.why = absl::StrCat("tools/bench-commits --one ", st->ToString());
    } else {
      return absl::InternalError(absl::StrCat("tools/bench-commits --one ",
                                              commit.sha.substr(0, 12), ": ",
                                              st->ToString()));
    }
    return m;
  }

  Machine ThisMachine() override { return DetectMachine(); }
  int64_t NowNanos() override { return core::Env::Default().NowNanos(); }

 private:
  std::string repo_, tool_;
};

}  // namespace

Machine DetectMachine() {
  Machine m;
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line)) {
    if (absl::StartsWith(line, "model name")) {
      m.cpu = std::string(absl::StripAsciiWhitespace(line.substr(
          line.find(':') == std::string::npos ? line.size()
                                              : line.find(':') + 1)));
      break;
    }
  }
  if (m.cpu.empty()) m.cpu = "unknown";
  m.cores = static_cast<int>(::sysconf(_SC_NPROCESSORS_ONLN));
  utsname u{};
  m.kernel = ::uname(&u) == 0 ? u.release : "unknown";
  std::ifstream gov("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor");
  if (!(gov >> m.governor)) m.governor = "none";
  return m;
}

absl::StatusOr<std::vector<Sample>> ParseSamples(absl::string_view json,
                                                 bool instructions) {
  rapidjson::Document d;
  constexpr unsigned kFlags =
      rapidjson::kParseFullPrecisionFlag | rapidjson::kParseNanAndInfFlag;
  if (core::ParseJson<kFlags>(d, std::string_view(json.data(), json.size()))
          .IsError() ||
      !d.IsObject() || !d.HasMember("benchmarks") ||
      !d["benchmarks"].IsArray()) {
    return absl::InvalidArgumentError(
        "benchmark output: not Google Benchmark JSON with a \"benchmarks\" "
        "array");
  }
  std::vector<Sample> out;
  for (const auto& row : d["benchmarks"].GetArray()) {
    if (!row.IsObject()) continue;
    auto str = [&](const char* k) -> std::string {
      auto it = row.FindMember(k);
      return it != row.MemberEnd() && it->value.IsString()
                 ? it->value.GetString()
                 : "";
    };
    auto num = [&](const char* k) -> std::optional<double> {
      auto it = row.FindMember(k);
      if (it == row.MemberEnd() || !it->value.IsNumber()) return std::nullopt;
      return it->value.GetDouble();
    };
    if (str("run_type") == "aggregate") continue;
    Sample s;
    s.benchmark = str("run_name").empty() ? str("name") : str("run_name");
    if (s.benchmark.empty()) {
      return absl::InvalidArgumentError("benchmark output: a row has no name");
    }
    s.repetition = static_cast<int>(num("repetition_index").value_or(0));
    s.real_time = num("real_time").value_or(0);
    s.cpu_time = num("cpu_time").value_or(0);
    s.unit = str("time_unit");
    if (instructions) {
      s.instructions = num("instructions");
      if (!s.instructions) {
        return absl::InvalidArgumentError(absl::StrCat(
            "benchmark output: ", s.benchmark, " has no instructions"));
      }
    }
    rapidjson::StringBuffer buf;
    rapidjson::Writer<rapidjson::StringBuffer> w(buf);
    w.StartObject();
    for (const auto& m : row.GetObject()) {
      if (IsBuiltinField(m.name.GetString()) || !m.value.IsNumber()) continue;
      w.Key(m.name.GetString());
      w.Double(m.value.GetDouble());
    }
    w.EndObject();
    s.counters = buf.GetString();
    out.push_back(std::move(s));
  }
  return out;
}

absl::StatusOr<RunSummary> RunHistory(Store& store, Env& env,
                                      absl::string_view range,
                                      const RunOptions& options,
                                      std::ostream& progress) {
  absl::StatusOr<std::vector<Commit>> all = env.ListCommits(range);
  if (!all.ok()) return all.status();
  std::vector<Commit> commits;
  const size_t k = static_cast<size_t>(std::max(options.every, 1));
  for (size_t i = 0; i < all->size(); ++i) {
    if ((all->size() - 1 - i) % k == 0) commits.push_back((*all)[i]);
  }
  absl::StatusOr<int64_t> machine = store.MachineId(env.ThisMachine());
  if (!machine.ok()) return machine.status();
  const RunKey key{*machine, options.filter, options.instructions};
  RunSummary sum;
  sum.commits = commits.size();
  const int64_t start = env.NowNanos();
  size_t worked = 0;  // commits built or tried, for the estimate
  for (size_t i = 0; i < commits.size(); ++i) {
    const Commit& c = commits[i];
    const std::string head =
        absl::StrCat("history: commit ", i + 1, " of ", commits.size(), " ",
                     c.sha.substr(0, 10), " ", c.subject.substr(0, 50));
    absl::StatusOr<bool> has = store.HasRun(c.sha, key);
    if (!has.ok()) return has.status();
    if (*has) {
      ++sum.skipped;
      progress << head << ": stored already, skipped\n";
      continue;
    }
    const int64_t elapsed = env.NowNanos() - start;
    std::string estimate = "estimate after the first commit";
    if (worked > 0) {
      const auto left = static_cast<int64_t>(commits.size() - i);
      estimate = absl::StrCat(
          "about ", Seconds(elapsed / static_cast<int64_t>(worked) * left),
          " left");
    }
    progress << head << ", elapsed " << Seconds(elapsed) << ", " << estimate
             << "\n"
             << std::flush;
    absl::StatusOr<Measured> m = env.Measure(c, options);
    if (!m.ok()) return m.status();
    ++worked;
    if (m->outcome == Measured::Outcome::kOutside) {
      if (absl::Status st = store.AddOutsideFailure(c, key); !st.ok()) {
        return st;
      }
      ++sum.failed_outside;
      progress << head << ": failed outside the commit (" << m->why
               << "), recorded; the next run tries it again\n";
      continue;
    }
    if (m->outcome == Measured::Outcome::kNoMatch) {
      ++sum.no_match;
      progress << head << ": the filter matches no benchmark, not stored\n";
      continue;
    }
    std::vector<Sample> samples;
    if (m->outcome == Measured::Outcome::kOk) {
      absl::StatusOr<std::vector<Sample>> s =
          ParseSamples(m->json, options.instructions);
      if (!s.ok()) {
        return absl::InternalError(
            absl::StrCat(c.sha.substr(0, 12), ": ", s.status().message()));
      }
      samples = *std::move(s);
    } else {
      ++sum.build_failed;
      progress << head << ": does not build, recorded and skipped\n";
    }
    const bool built = m->outcome == Measured::Outcome::kOk;
    if (absl::Status st = store.AddRun(c, key, built, samples); !st.ok()) {
      return st;
    }
    if (built) ++sum.measured;
    sum.samples += samples.size();
  }
  if (sum.no_match == sum.commits && sum.commits > 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--filter '", options.filter, "': matches no benchmark of ",
        options.targets, " in any commit of ", range,
        "; accepted: a regex matching names --benchmark_list_tests prints"));
  }
  return sum;
}

std::unique_ptr<Env> RealEnv(std::string repo, std::string bench_commits) {
  return std::make_unique<GitEnv>(std::move(repo), std::move(bench_commits));
}

}  // namespace perflab::history
