// The head against a fork point: the noise (MAD) and its 3x rule, the
// comparison of stored series, the confirming re-run, and the Markdown
// verdict. Expected values are worked out by hand in the comments.
#include "tools/history/against.h"

#include <gtest/gtest.h>

#include <iterator>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"

namespace perflab::history {
namespace {

Series MakeSeries(std::string name, std::vector<size_t> commits,
                  std::vector<std::vector<double>> values) {
  Series s;
  s.benchmark = std::move(name);
  s.unit = "ns";
  s.commits = std::move(commits);
  s.values = std::move(values);
  return s;
}

TEST(SeriesNoise, PoolsEachCommitsDeviationsFromItsOwnMedian) {
  // Medians 11 and 20; deviations {1, 1, 0} and {0, 0, 6}; pooled sorted
  // {0, 0, 0, 1, 1, 6}: median (0 + 1) / 2. The step from 11 to 20 between
  // the commits is not noise.
  EXPECT_DOUBLE_EQ(
      SeriesNoise(MakeSeries("BM", {0, 1}, {{10, 12, 11}, {20, 20, 26}})), 0.5);
  EXPECT_DOUBLE_EQ(SeriesNoise(MakeSeries("BM", {0, 1}, {{5}, {9}})), 0);
}

TEST(SmallestPValue, IsTwoOverTheWaysToSplit) {
  // C(2, 1) = 2, C(6, 3) = 20, C(8, 4) = 70, C(10, 5) = 252.
  EXPECT_DOUBLE_EQ(SmallestPValue(1), 1);
  EXPECT_DOUBLE_EQ(SmallestPValue(3), 0.1);
  EXPECT_DOUBLE_EQ(SmallestPValue(4), 2.0 / 70);
  EXPECT_DOUBLE_EQ(SmallestPValue(5), 2.0 / 252);
}

TEST(Judge, AChangeUnderThreeTimesTheNoiseIsNeverARegression) {
  AgainstOptions o;  // alpha 0.05, threshold 5 %
  // +10 %: 3 x 3 = 9 < 10, slower; 3 x 4 = 12 > 10, within noise.
  EXPECT_EQ(Judge(100, 110, 0.01, 3, o), Call::kSlower);
  EXPECT_EQ(Judge(100, 110, 0.01, 4, o), Call::kWithinNoise);
  EXPECT_EQ(Judge(100, 110, 0.01, 3.3, o), Call::kSlower);        // 9.9 < 10
  EXPECT_EQ(Judge(100, 110, 0.01, 3.34, o), Call::kWithinNoise);  // 10.02
  EXPECT_EQ(Judge(100, 90, 0.01, 3, o), Call::kFaster);
  EXPECT_EQ(Judge(100, 90, 0.01, 4, o), Call::kWithinNoise);
  // Not significant, or not past the threshold: same whatever the noise.
  EXPECT_EQ(Judge(100, 110, 0.2, 0, o), Call::kSame);
  EXPECT_EQ(Judge(100, 104, 0.01, 0, o), Call::kSame);
}

// Commits: 0 the fork point, 1 to 3 between, 4 the head.
History FiveCommits() {
  History h;
  for (int i = 0; i < 5; ++i) {
    h.commits.push_back({absl::StrCat(std::string(9, 'a' + i), i), "", i,
                         absl::StrCat("commit ", i)});
  }
  // BM_A: medians 100 and 130, fully separated without ties (exact
  // two-sided p of 5 vs 5 = 2 / C(10, 5) = 2 / 252); deviations
  // {0, 1, 1, 2, 2} twice, pooled median 1.
  h.series.push_back(MakeSeries(
      "BM_A", {0, 4}, {{100, 101, 99, 98, 102}, {130, 131, 129, 128, 132}}));
  // BM_B: medians 101 and 108 (+6.9 %), separated, but three noisy commits
  // between: deviations {1, .5, 0, .5, 1} twice and {30, 10, 10, 30} three
  // times; pooled sorted, the 11th and 12th of 22 are both 10: noise 10,
  // and 3 x 10 > 7.
  h.series.push_back(MakeSeries("BM_B", {0, 1, 2, 3, 4},
                                {{100, 100.5, 101, 101.5, 102},
                                 {70, 90, 110, 130},
                                 {70, 90, 110, 130},
                                 {70, 90, 110, 130},
                                 {107, 107.5, 108, 108.5, 109}}));
  // BM_C: only at the fork point.
  h.series.push_back(MakeSeries("BM_C", {0}, {{5, 5, 5}}));
  return h;
}

TEST(CompareStored, CallsTheSeparatedStepAndHoldsTheNoisyOne) {
  const History h = FiveCommits();
  AgainstOptions o;
  absl::StatusOr<Against> a =
      CompareStored(h, h.commits[0].sha, h.commits[4].sha, o);
  ASSERT_TRUE(a.ok()) << a.status();
  ASSERT_EQ(a->rows.size(), 2u);  // BM_C has no head
  const AgainstRow& x = a->rows[0];
  EXPECT_EQ(x.benchmark, "BM_A");
  EXPECT_DOUBLE_EQ(x.change_pct, 30);
  EXPECT_NEAR(x.p_value, 2.0 / 252, 1e-12);
  EXPECT_DOUBLE_EQ(x.noise, 1);
  EXPECT_EQ(x.call, Call::kSlower);
  const AgainstRow& y = a->rows[1];
  EXPECT_DOUBLE_EQ(y.noise, 10);
  EXPECT_NEAR(y.change_pct, 700.0 / 101, 1e-9);
  EXPECT_EQ(y.call, Call::kWithinNoise);
  EXPECT_TRUE(a->regression);

  absl::StatusOr<Against> missing =
      CompareStored(h, "ffff", h.commits[4].sha, o);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("commit ffff (the fork point"),
            std::string::npos)
      << missing.status();
}

std::vector<compare::BenchmarkSamples> Samples(std::string name,
                                               std::vector<double> v) {
  return {{std::move(name), "ns", std::move(v)}};
}

TEST(ApplyRerun, KeepsARegressionOnlyWhenTheRerunSaysSlower) {
  const History h = FiveCommits();
  AgainstOptions o;
  o.confirm = 5;
  Against a = *CompareStored(h, h.commits[0].sha, h.commits[4].sha, o);
  // The re-run sees no difference: not confirmed, no regression.
  ASSERT_TRUE(ApplyRerun(a, Samples("BM_A", {100, 101, 99, 100, 102}),
                         Samples("BM_A", {101, 100, 102, 99, 100}), o)
                  .ok());
  EXPECT_EQ(a.rows[0].call, Call::kNotConfirmed);
  EXPECT_TRUE(a.rows[0].rerun);
  EXPECT_EQ(a.rows[1].call, Call::kWithinNoise);  // not a candidate
  EXPECT_FALSE(a.rows[1].rerun);
  EXPECT_FALSE(a.regression);

  a = *CompareStored(h, h.commits[0].sha, h.commits[4].sha, o);
  // 100 -> 120 (+20 %), separated: confirmed.
  ASSERT_TRUE(ApplyRerun(a, Samples("BM_A", {100, 101, 99, 100, 102}),
                         Samples("BM_A", {120, 121, 119, 120, 122}), o)
                  .ok());
  EXPECT_EQ(a.rows[0].call, Call::kSlower);
  EXPECT_DOUBLE_EQ(a.rows[0].rerun_change_pct, 20);
  EXPECT_TRUE(a.regression);
  EXPECT_EQ(a.confirm, 5);

  // A re-run whose change hides in the stored noise (3 x 1 > 2) is refuted.
  a = *CompareStored(h, h.commits[0].sha, h.commits[4].sha, o);
  o.threshold_pct = 1;
  ASSERT_TRUE(ApplyRerun(a, Samples("BM_A", {100, 100, 100, 100, 100}),
                         Samples("BM_A", {102, 102, 102, 102, 102}), o)
                  .ok());
  EXPECT_EQ(a.rows[0].call, Call::kNotConfirmed);

  a = *CompareStored(h, h.commits[0].sha, h.commits[4].sha, o);
  EXPECT_FALSE(
      ApplyRerun(a, Samples("BM_Z", {1}), Samples("BM_Z", {1}), o).ok());
}

class ScriptedAgainstEnv : public AgainstEnv {
 public:
  absl::StatusOr<std::string> Resolve(std::string_view ref) override {
    auto it = refs.find(std::string(ref));
    if (it == refs.end()) {
      return absl::InvalidArgumentError("git cannot resolve it");
    }
    return it->second;
  }
  absl::StatusOr<std::string> MergeBase(std::string_view a,
                                        std::string_view b) override {
    merge_base_of = {std::string(a), std::string(b)};
    return fork;
  }
  absl::StatusOr<RerunSamples> Rerun(const std::string& base,
                                     const std::string& head,
                                     const std::vector<std::string>& names,
                                     const AgainstOptions& o) override {
    rerun_calls.push_back({base, head});
    rerun_names = names;
    rerun_reps = o.confirm;
    return RerunSamples{Samples("BM_A", {100, 101, 99, 100, 102}),
                        Samples("BM_A", {130, 131, 129, 130, 132})};
  }
  std::map<std::string, std::string> refs;
  std::string fork;
  std::vector<std::string> merge_base_of;
  std::vector<std::vector<std::string>> rerun_calls;
  std::vector<std::string> rerun_names;
  int rerun_reps = 0;
};

TEST(RunAgainst, ComparesWithTheForkPointAndRerunsOnlyCandidates) {
  const History h = FiveCommits();
  ScriptedAgainstEnv env;
  for (const Commit& c : h.commits) env.refs[c.sha] = c.sha;
  env.refs["main"] = "main-tip";  // not stored: only its fork point is
  env.refs["HEAD"] = h.commits[4].sha;
  env.fork = h.commits[0].sha;
  AgainstOptions o;
  o.ref = "main";
  absl::StatusOr<Against> a = RunAgainst(h, env, o);
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_EQ(env.merge_base_of,
            (std::vector<std::string>{"main-tip", h.commits[4].sha}));
  EXPECT_EQ(a->base.sha, h.commits[0].sha);
  EXPECT_TRUE(env.rerun_calls.empty());  // no --confirm, no re-run
  o.confirm = 7;
  a = RunAgainst(h, env, o);
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_EQ(env.rerun_names, std::vector<std::string>{"BM_A"});
  EXPECT_EQ(env.rerun_reps, 7);
  EXPECT_TRUE(a->regression);
  EXPECT_EQ(a->rows[0].call, Call::kSlower);
}

TEST(RunAgainst, BadRefsAndAnotherProjectsDatabaseAreInvalidArgument) {
  const History h = FiveCommits();
  ScriptedAgainstEnv env;
  env.refs["HEAD"] = "x-head";
  env.fork = "x-fork";
  AgainstOptions o;
  o.ref = "nope";
  absl::StatusOr<Against> a = RunAgainst(h, env, o);
  EXPECT_EQ(a.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(a.status().message().find("--against 'nope': git cannot"),
            std::string::npos)
      << a.status();
  env.refs["main"] = "x-main";  // resolves, but no stored commit does
  o.ref = "main";
  a = RunAgainst(h, env, o);
  EXPECT_EQ(a.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(a.status().message().find("another project"), std::string::npos)
      << a.status();
  o.metric = "instructions";
  o.confirm = 3;
  a = RunAgainst(h, env, o);
  EXPECT_NE(a.status().message().find("--confirm with --metric instructions"),
            std::string::npos)
      << a.status();
}

TEST(AgainstMarkdown, HeadlineTableOfChangedBenchmarksAndExplanation) {
  Against a;
  a.base = {"aaaaaaaaaa11", "", 0, "base subject"};
  a.head = {"bbbbbbbbbb22", "", 1, "head | subject"};
  a.confirm = 5;
  AgainstRow slow{"BM_A", "ns",          5,    5,    100,    130, 30, 2.0 / 252,
                  1,      Call::kSlower, true, 28.5, 0.00018};
  AgainstRow same{"BM_B", "us", 5, 5, 2, 2, 0, 1, 0, Call::kSame, false, 0, 1};
  AgainstRow fast{"BM_C", "ms",          5,     5, 8, 6, -25, 0.0079,
                  0.25,   Call::kFaster, false, 0, 1};
  // Rows: regressions first, then by the size of the change (BM_D, BM_C).
  AgainstRow big{"BM_D",        "ns",  5, 5, 10640.2, 99.532, -99.06, 0.0079, 0,
                 Call::kFaster, false, 0, 1};
  a.rows = {same, fast, slow, big};
  a.regression = true;
  AgainstOptions o;
  o.ref = "main";
  const std::string md = AgainstMarkdown(a, o);
  const std::string want =
      "### perflab: 1 regression against `main`\n\n"
      "Head `bbbbbbbbbb` (head \\| subject) against `aaaaaaaaaa` (base "
      "subject), the fork point: 4 benchmarks, 1 slower, 2 faster, 1 same."
      "\n\n"
      "| benchmark | fork point | head | change | noise (MAD) | p | verdict "
      "|\n"
      "| :--- | ---: | ---: | ---: | ---: | ---: | :--- |\n"
      "| BM_A | 100 ns | 130 ns | +30.0 % | 1.0 % | 0.0079 | slower (re-run "
      "+28.5 %, p 0.00018) |\n"
      "| BM_D | 10640 ns | 99.53 ns | -99.1 % | 0.0 % | 0.0079 | faster |\n"
      "| BM_C | 8 ms | 6 ms | -25.0 % | 3.1 % | 0.0079 | faster |\n\n"
      "How this was decided: each benchmark's stored repetitions "
      "(real_time) of the head and of the fork point were compared with a "
      "two-sided Mann-Whitney U test. A change is called when p < 0.05, it "
      "exceeds 5 % and it is at least 3 times the benchmark's noise, the "
      "median absolute deviation of its stored repetitions (shown as a "
      "percentage of the fork point's median). Each candidate regression "
      "was measured again, 5 repetitions a side interleaved with the fork "
      "point, and is reported only if the re-run gives the same verdict.\n";
  EXPECT_EQ(md, want);
  EXPECT_EQ(md.find("http"), std::string::npos);
  EXPECT_EQ(md.find("]("), std::string::npos);
}

TEST(AgainstMarkdown, NoRegressionAndALongListCut) {
  Against a;
  a.base = {"aaaaaaaaaa11", "", 0, "b"};
  // 59 letters and an e-acute (bytes 60 and 61 of 1-based), then more: the
  // cut at 60 bytes backs off to before the e-acute.
  a.head = {"bbbbbbbbbb22", "", 1,
            std::string(59, 'h') + "\xc3\xa9" + " and the rest"};
  for (int i = 0; i < 25; ++i) {
    a.rows.push_back({absl::StrCat("BM_", i), "ns", 5, 5, 100, 90, -10, 0.01, 0,
                      Call::kFaster, false, 0, 1});
  }
  AgainstOptions o;
  o.ref = "main";
  const std::string md = AgainstMarkdown(a, o);
  EXPECT_EQ(md.rfind("### perflab: no regression against `main`\n", 0), 0u)
      << md;
  size_t rows = 0;
  for (size_t at = md.find("\n| BM_"); at != std::string::npos;
       at = md.find("\n| BM_", at + 1)) {
    ++rows;
  }
  EXPECT_EQ(rows, 20u);
  EXPECT_NE(md.find("(5 more;"), std::string::npos);
  EXPECT_NE(md.find("No confirming re-run"), std::string::npos);
  EXPECT_EQ(md.find('\xc3'), std::string::npos) << md;
  EXPECT_NE(md.find(" (" + std::string(59, 'h') + "...)"), std::string::npos)
      << md;
  // With --confirm but no candidate: says so, and no table when nothing
  // changed.
  for (AgainstRow& r : a.rows) r.call = Call::kSame;
  a.rows.resize(1);
  a.confirm = 5;
  const std::string quiet = AgainstMarkdown(a, o);
  EXPECT_NE(quiet.find(": 1 benchmark, 0 slower, 0 faster, 1 same.\n\n"
                       "No benchmark changed.\n\nHow this"),
            std::string::npos)
      << quiet;
  EXPECT_NE(quiet.find("No candidate regression needed the confirming re-run "
                       "(--confirm 5)."),
            std::string::npos)
      << quiet;
  // A re-run of 3 a side can never reach p < 0.05 (smallest p 0.1): said.
  a.rows[0].call = Call::kNotConfirmed;
  a.rows[0].rerun = true;
  a.confirm = 3;
  EXPECT_NE(AgainstMarkdown(a, o).find(
                "With 3 repetitions a side the U test cannot reach p < 0.05 "
                "(its smallest two-sided p is 0.1), so no candidate can be "
                "confirmed; --confirm 4 or more can."),
            std::string::npos)
      << AgainstMarkdown(a, o);
}

// cpu_time (ns) of BM_ErlangC/8, 5 repetitions of 5 commits that did not
// change it, stored by `perflab history run` on the shared 2-vCPU VM (the
// 37-42 ns values are a busy neighbour's).
constexpr double kUnchanged[] = {
    26.420, 26.698, 26.571, 42.043, 41.714, 25.720, 25.919, 25.443, 25.743,
    37.718, 29.457, 34.442, 37.850, 39.196, 40.397, 30.354, 28.869, 25.833,
    25.609, 25.618, 25.301, 25.199, 25.260, 25.099, 39.154};

// Draws from kUnchanged with replacement, the index from mt19937's raw
// output (std:: distributions differ between standard libraries).
class Reshuffle {
 public:
  explicit Reshuffle(uint32_t seed) : rng_(seed) {}
  std::vector<double> Draw(size_t n) {
    std::vector<double> v;
    for (size_t i = 0; i < n; ++i) {
      v.push_back(kUnchanged[rng_() % std::size(kUnchanged)]);
    }
    return v;
  }

 private:
  std::mt19937 rng_;
};

class NoChangeEnv : public AgainstEnv {
 public:
  explicit NoChangeEnv(Reshuffle& r) : r_(r) {}
  absl::StatusOr<std::string> Resolve(std::string_view ref) override {
    return std::string(ref);
  }
  absl::StatusOr<std::string> MergeBase(std::string_view a,
                                        std::string_view) override {
    return std::string(a);
  }
  absl::StatusOr<RerunSamples> Rerun(const std::string&, const std::string&,
                                     const std::vector<std::string>& names,
                                     const AgainstOptions& o) override {
    ++reruns;
    const size_t n = static_cast<size_t>(o.confirm);
    return RerunSamples{Samples(names[0], r_.Draw(n)),
                        Samples(names[0], r_.Draw(n))};
  }
  int reruns = 0;

 private:
  Reshuffle& r_;
};

TEST(RunAgainst, TheRerunKeepsFalseAlarmsOutOfReshuffledUnchangedRuns) {
  // 20 trials of 100 commits x 5 repetitions drawn from one unchanged
  // benchmark; in each, every commit is a head against its parent: 1980
  // pull requests, none of which changed anything.
  int alarms = 0, alarms_unconfirmed = 0, candidates = 0;
  for (uint32_t trial = 0; trial < 20; ++trial) {
    Reshuffle r(1000 + trial);
    History h;
    Series s;
    s.benchmark = "BM_ErlangC/8";
    s.unit = "ns";
    for (size_t i = 0; i < 100; ++i) {
      h.commits.push_back(
          {absl::StrCat("c", i), "", static_cast<int64_t>(i), "unchanged"});
      s.commits.push_back(i);
      s.values.push_back(r.Draw(5));
    }
    h.series.push_back(s);
    NoChangeEnv env(r);
    for (size_t i = 1; i < 100; ++i) {
      AgainstOptions o;
      o.ref = absl::StrCat("c", i - 1);
      o.head = absl::StrCat("c", i);
      absl::StatusOr<Against> stored = RunAgainst(h, env, o);
      ASSERT_TRUE(stored.ok()) << stored.status();
      alarms_unconfirmed += stored->regression ? 1 : 0;
      o.confirm = 5;
      const int before = env.reruns;
      absl::StatusOr<Against> a = RunAgainst(h, env, o);
      ASSERT_TRUE(a.ok()) << a.status();
      alarms += a->regression ? 1 : 0;
      candidates += env.reruns - before;
    }
  }
  EXPECT_EQ(candidates, alarms_unconfirmed);  // exactly those are re-run
  // Under no change a 5 vs 5 re-run says slower at 0.05 only when U <= 2:
  // (1 + 1 + 2) / 252 of its null distribution. Unless the stored comparison
  // raises more than 63 candidates, fewer than one is expected to pass, so
  // more than one false alarm means the re-run is not doing its work.
  EXPECT_LE(candidates, 63);
  EXPECT_LE(alarms, 1) << candidates << " candidates re-run";
  EXPECT_LT(alarms, alarms_unconfirmed);
}

TEST(ExactFilter, EscapesRegexCharacters) {
  EXPECT_EQ(ExactFilter({"BM_A/8", "BM_x.y(2)"}), "^(BM_A/8|BM_x\\.y\\(2\\))$");
}

}  // namespace
}  // namespace perflab::history
