#include "tools/history/changes.h"

#include <gtest/gtest.h>

#include "core/json.h"
#include "core/random.h"
#include "rapidjson/document.h"

namespace perflab::history {
namespace {

// 24 commits; BM_Step rises 10 % at commit 16 (noise +-0.5 %), BM_Flat
// stays; BM_Late exists from commit 4 on only.
History MakeHistory() {
  History h;
  core::SplitMix64 rng(3);
  for (int i = 0; i < 24; ++i) {
    h.commits.push_back({absl::StrCat("sha", i, "xxxxxxxx"), "", 100 + i,
                         absl::StrCat("commit ", i)});
  }
  for (const char* name : {"BM_Flat", "BM_Step"}) {
    Series s{name, "ns", {}, {}};
    for (size_t i = 0; i < 24; ++i) {
      const double level = name[3] == 'S' && i >= 16 ? 110 : 100;
      s.commits.push_back(i);
      s.values.emplace_back();
      for (int r = 0; r < 3; ++r) {
        s.values.back().push_back(level * (1 + 0.01 * (rng.Uniform01() - 0.5)));
      }
    }
    h.series.push_back(s);
  }
  return h;
}

// The window of the newest N commits includes its oldest one: with 8 of 24
// it starts at commit 16, the commit of the rise, which is flagged; with 7
// it starts after it.
TEST(FindChanges, TheWindowsOldestCommitCounts) {
  const History h = MakeHistory();
  ChangesOptions o;
  o.since = 8;
  absl::StatusOr<Changes> c = FindChanges(h, o);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_TRUE(c->regression);
  o.since = 7;
  EXPECT_FALSE(FindChanges(h, o)->regression);
}

TEST(FindChanges, MapsTheChangeToItsCommitAndFlagsTheRegression) {
  const History h = MakeHistory();
  ChangesOptions o;
  o.since = 10;  // commits 14..23 hold commit 16
  absl::StatusOr<Changes> c = FindChanges(h, o);
  ASSERT_TRUE(c.ok()) << c.status();
  ASSERT_EQ(c->per_series.size(), 2u);
  EXPECT_TRUE(c->per_series[0].changes.empty());
  ASSERT_EQ(c->per_series[1].changes.size(), 1u);
  EXPECT_EQ(c->per_series[1].changes[0].index, 16u);
  EXPECT_NEAR(c->per_series[1].changes[0].change_pct, 10, 1);
  EXPECT_TRUE(c->regression);

  o.since = 7;  // 17..23: the change is older
  EXPECT_FALSE(FindChanges(h, o)->regression);
  o.since = 10;
  o.threshold_pct = 12;  // beyond the 10 % rise
  EXPECT_FALSE(FindChanges(h, o)->regression);

  o.threshold_pct = 5;
  const core::Document doc = ChangesDocument(h, *c, o, "1: test");
  const core::Table* t = doc.FindTable("changes");
  ASSERT_NE(t, nullptr);
  ASSERT_EQ(t->rows.size(), 1u);
  EXPECT_EQ(std::get<std::string>(t->rows[0][0]), "BM_Step");
  EXPECT_EQ(std::get<std::string>(t->rows[0][1]), "sha16xxxxx");
  EXPECT_EQ(std::get<bool>(t->rows[0][8]), true);
}

TEST(PlotDocument, HoldsEveryPointAndChange) {
  const History h = MakeHistory();
  const Changes c = *FindChanges(h, {});
  rapidjson::Document d;
  const std::string json = core::ToJson(PlotDocument(h, c, {}));
  ASSERT_FALSE(d.Parse(json.c_str()).HasParseError());
  EXPECT_EQ(d["commits"].Size(), 24u);
  const auto& step = d["series"][1];
  EXPECT_STREQ(step["benchmark"].GetString(), "BM_Step");
  EXPECT_EQ(step["points"].Size(), 24u);
  const auto& p = step["points"][16];
  EXPECT_LE(p["min"].GetDouble(), p["median"].GetDouble());
  EXPECT_LE(p["median"].GetDouble(), p["max"].GetDouble());
  EXPECT_EQ(step["changes"][0]["commit"].GetUint64(), 16u);
  EXPECT_EQ(core::ToJson(PlotDocument(h, c, {})),
            json);  // same input, same bytes
}

// Every key of the plot data, for a history small enough to write the
// expected record by hand: medians of {3, 1, 2} and {5, 4, 6.5} are 2 and
// 5, their extremes 1, 3 and 4, 6.5; a point and a change name the commit
// by its index.
TEST(PlotDocument, OneSeriesByHand) {
  History h;
  h.commits = {{"aaa", "", 1, "first"}, {"bbb", "", 2, "second \"one\""}};
  h.series.push_back({"BM_A", "ns", {0, 1}, {{3, 1, 2}, {5, 4, 6.5}}});
  Changes c;
  models::ChangePoint cp;
  cp.index = 1;
  cp.change_pct = 150;
  c.per_series.push_back({&h.series[0], {cp}});
  ChangesOptions o;
  o.metric = "cpu_time";
  const char* expected = R"({"metric": "cpu_time",
    "commits": [{"sha": "aaa", "subject": "first"},
                {"sha": "bbb", "subject": "second \"one\""}],
    "series": [{"benchmark": "BM_A", "unit": "ns",
                "points": [{"commit": 0, "median": 2, "min": 1, "max": 3},
                           {"commit": 1, "median": 5, "min": 4, "max": 6.5}],
                "changes": [{"commit": 1, "change_pct": 150}]}]})";
  rapidjson::Document want, got;
  ASSERT_FALSE(want.Parse(expected).HasParseError());
  const std::string json = core::ToJson(PlotDocument(h, c, o));
  ASSERT_FALSE(got.Parse(json.c_str()).HasParseError()) << json;
  EXPECT_TRUE(got == want) << json;
}

}  // namespace
}  // namespace perflab::history
