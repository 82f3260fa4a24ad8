// tools/compare/compare.h: pairing, medians, the U test's verdict and the
// geometric mean, on samples whose answer is worked out by hand.
#include "tools/compare/compare.h"

#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace perflab::compare {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

BenchmarkSamples Samples(std::string name, std::vector<double> values,
                         std::string unit = "ns") {
  return BenchmarkSamples{std::move(name), std::move(unit), std::move(values)};
}

// 1..9 and 1..9 shifted by `add`: with add > 8 the samples separate fully.
std::vector<double> Nine(double add) {
  std::vector<double> v;
  for (int i = 1; i <= 9; ++i) v.push_back(i + add);
  return v;
}

TEST(VerdictName, NamesEachVerdict) {
  EXPECT_EQ(VerdictName(Verdict::kSame), "same");
  EXPECT_EQ(VerdictName(Verdict::kFaster), "faster");
  EXPECT_EQ(VerdictName(Verdict::kSlower), "slower");
}

TEST(HigherIsBetter, RatesYesTimesNo) {
  EXPECT_TRUE(HigherIsBetter("items_per_second"));
  EXPECT_TRUE(HigherIsBetter("bytes_per_second"));
  EXPECT_TRUE(HigherIsBetter("requests_per_s"));
  EXPECT_FALSE(HigherIsBetter("real_time"));
  EXPECT_FALSE(HigherIsBetter("cpu_time"));
  EXPECT_FALSE(HigherIsBetter("per_second_total"));
}

// 9 vs 9 fully separated: U = 0 and the exact two-sided p is
// 2 / C(18, 9) = 2 / 48620 = 4.1135e-5 < 0.05. Medians 5 and 105: the
// change is (105 / 5 - 1) * 100 = 2000 %.
TEST(Compare, FullySeparatedNineAndNineIsSlowerForATime) {
  auto c = Compare({Samples("BM_A", Nine(0))}, {Samples("BM_A", Nine(100))},
                   Options{});
  ASSERT_TRUE(c.ok()) << c.status();
  ASSERT_EQ(c->rows.size(), 1u);
  const Row& r = c->rows[0];
  EXPECT_EQ(r.base_n, 9u);
  EXPECT_EQ(r.contender_n, 9u);
  EXPECT_DOUBLE_EQ(r.base_median, 5);
  EXPECT_DOUBLE_EQ(r.contender_median, 105);
  EXPECT_NEAR(r.change_pct, 2000, 1e-9);
  EXPECT_NEAR(r.p_value, 2.0 / 48620, 1e-9);
  EXPECT_EQ(r.verdict, Verdict::kSlower);
  EXPECT_TRUE(c->any_slower);
  EXPECT_FALSE(c->unreliable);
  EXPECT_NEAR(c->geomean_ratio, 21, 1e-12);
}

// The same samples read as a rate: more per second is better.
TEST(Compare, FullySeparatedIsFasterForARate) {
  Options o;
  o.metric = "items_per_second";
  auto c = Compare({Samples("BM_A", Nine(0), "")},
                   {Samples("BM_A", Nine(100), "")}, o);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->rows[0].verdict, Verdict::kFaster);
  EXPECT_FALSE(c->any_slower);
}

// 3 vs 3 fully separated: the smallest exact two-sided p is
// 2 / C(6, 3) = 0.1, never below alpha 0.05: `same` however large the
// change, and the result is flagged unreliable (3 < 9 repetitions).
TEST(Compare, ThreeAndThreeCanNeverBeSignificant) {
  auto c = Compare({Samples("BM_A", {10, 11, 12})},
                   {Samples("BM_A", {20, 21, 22})}, Options{});
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_NEAR(c->rows[0].p_value, 0.1, 1e-12);
  EXPECT_NEAR(c->rows[0].change_pct, (21.0 / 11 - 1) * 100, 1e-9);
  EXPECT_EQ(c->rows[0].verdict, Verdict::kSame);
  EXPECT_TRUE(c->unreliable);
  EXPECT_FALSE(c->any_slower);
}

// Separated (p = 4.1e-5) but the medians 100 and 103 differ by 3 %: under
// the 5 % threshold `same`; with a 2 % threshold `slower`.
TEST(Compare, ChangeUnderTheThresholdIsSame) {
  const std::vector<double> base = {96,    97,    98,    99,   100,
                                    100.1, 100.2, 100.3, 100.4};
  const std::vector<double> cont = {101,   102, 102.5, 102.9, 103,
                                    103.1, 104, 105,   106};
  auto c = Compare({Samples("BM_A", base)}, {Samples("BM_A", cont)}, Options{});
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_NEAR(c->rows[0].change_pct, 3, 1e-9);
  EXPECT_NEAR(c->rows[0].p_value, 2.0 / 48620, 1e-9);
  EXPECT_EQ(c->rows[0].verdict, Verdict::kSame);
  Options tight;
  tight.threshold_pct = 2;
  auto t = Compare({Samples("BM_A", base)}, {Samples("BM_A", cont)}, tight);
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->rows[0].verdict, Verdict::kSlower);
}

// The threshold must be exceeded: medians 8 and 10 (ratio 1.25, exact in
// binary) change by exactly 25 %, separated (p = 2 / 48620); at a 25 %
// threshold `same`, at 24 % `slower`.
TEST(Compare, ChangeOfExactlyTheThresholdIsSame) {
  const std::vector<double> base = {4, 5, 6, 7, 8, 8.1, 8.2, 8.3, 8.4};
  const std::vector<double> cont = {9, 9.5, 9.6, 9.7, 10, 11, 12, 13, 14};
  Options at;
  at.threshold_pct = 25;
  auto c = Compare({Samples("BM_A", base)}, {Samples("BM_A", cont)}, at);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->rows[0].change_pct, 25);
  EXPECT_NEAR(c->rows[0].p_value, 2.0 / 48620, 1e-9);
  EXPECT_EQ(c->rows[0].verdict, Verdict::kSame);
  Options below;
  below.threshold_pct = 24;
  auto b = Compare({Samples("BM_A", base)}, {Samples("BM_A", cont)}, below);
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(b->rows[0].verdict, Verdict::kSlower);
}

// Ratios 2 and 8: geometric mean sqrt(16) = 4. Names only on one side are
// listed in their file's order; rows keep the base's order.
TEST(Compare, GeomeanAndNamesOnOneSide) {
  auto c = Compare(
      {Samples("BM_Z", {1}), Samples("BM_Gone", {1}), Samples("BM_A", {3})},
      {Samples("BM_New2", {5}), Samples("BM_A", {24}), Samples("BM_Z", {2}),
       Samples("BM_New1", {5})},
      Options{});
  ASSERT_TRUE(c.ok()) << c.status();
  ASSERT_EQ(c->rows.size(), 2u);
  EXPECT_EQ(c->rows[0].name, "BM_Z");
  EXPECT_EQ(c->rows[1].name, "BM_A");
  EXPECT_NEAR(c->geomean_ratio, 4, 1e-12);
  EXPECT_THAT(c->only_in_base, ElementsAre("BM_Gone"));
  EXPECT_THAT(c->only_in_contender, ElementsAre("BM_New2", "BM_New1"));
}

TEST(Compare, RefusesWhatHasNoRatio) {
  auto units = Compare({Samples("BM_A", {1}, "ns")},
                       {Samples("BM_A", {1}, "us")}, Options{});
  ASSERT_FALSE(units.ok());
  EXPECT_THAT(units.status().message(),
              HasSubstr("BM_A: time_unit 'ns' in BASE but 'us' in CONTENDER"));
  auto none =
      Compare({Samples("BM_A", {1})}, {Samples("BM_B", {1})}, Options{});
  ASSERT_FALSE(none.ok());
  EXPECT_THAT(none.status().message(), HasSubstr("share no benchmark"));
  auto zero =
      Compare({Samples("BM_A", {0, 0, 1})}, {Samples("BM_A", {1})}, Options{});
  ASSERT_FALSE(zero.ok());
  EXPECT_THAT(zero.status().message(), HasSubstr("accepted: medians > 0"));
}

// Values near the largest double (about 1.798e308): the even-sized median
// of {1.6e308, 1.7e308} is 1.65e308, whose naive (a + b) / 2 would be inf;
// against a base of the same, the ratio is 1 and the change 0 %.
TEST(Compare, MediansOfValuesNearTheLargestDoubleAreFinite) {
  auto c = Compare({Samples("BM_Huge", {1.6e308, 1.7e308})},
                   {Samples("BM_Huge", {1.7e308, 1.6e308})}, Options{});
  ASSERT_TRUE(c.ok()) << c.status();
  ASSERT_EQ(c->rows.size(), 1u);
  EXPECT_DOUBLE_EQ(c->rows[0].base_median, 1.65e308);
  EXPECT_DOUBLE_EQ(c->rows[0].contender_median, 1.65e308);
  EXPECT_EQ(c->rows[0].change_pct, 0);
  EXPECT_EQ(c->geomean_ratio, 1);
  // Halved (0.825e308 against 1.65e308): ratio 0.5, -50 %, geomean 0.5.
  auto half = Compare({Samples("BM_Huge", {1.6e308, 1.7e308})},
                      {Samples("BM_Huge", {0.8e308, 0.85e308})}, Options{});
  ASSERT_TRUE(half.ok()) << half.status();
  EXPECT_NEAR(half->rows[0].change_pct, -50, 1e-12);
  EXPECT_NEAR(half->geomean_ratio, 0.5, 1e-15);
}

// 1e-10 against 1e300 is a ratio of 1e310, past the largest double (and a
// change of 1e312 %); 1 against 1e301 is a finite 1e301, but past kMaxRatio
// (1e300). Each is refused either way round, saying why.
TEST(Compare, RatiosPastADoublesRangeAreRefused) {
  for (const auto& [base, contender] :
       {std::pair{1e-10, 1e300}, std::pair{1e300, 1e-10}, std::pair{1.0, 1e301},
        std::pair{1e301, 1.0}}) {
    auto c = Compare({Samples("BM_Far", {base})},
                     {Samples("BM_Far", {contender})}, Options{});
    ASSERT_FALSE(c.ok()) << base << " " << contender;
    EXPECT_EQ(c.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(c.status().message(),
                HasSubstr("accepted: medians within a factor of 1e+300"));
  }
  // At the bound itself: 1 against 1e300 is compared, +1e302 %.
  auto edge = Compare({Samples("BM_Far", {1})}, {Samples("BM_Far", {1e300})},
                      Options{});
  ASSERT_TRUE(edge.ok()) << edge.status();
  EXPECT_DOUBLE_EQ(edge->rows[0].change_pct, 1e302);
}

TEST(ToDocument, CountsVerdictsAndNamesTheUnit) {
  auto c = Compare({Samples("BM_Slow", Nine(0)), Samples("BM_Fast", Nine(100)),
                    Samples("BM_Same", Nine(0))},
                   {Samples("BM_Slow", Nine(100)), Samples("BM_Fast", Nine(0)),
                    Samples("BM_Same", Nine(0))},
                   Options{});
  ASSERT_TRUE(c.ok()) << c.status();
  const core::Document d = ToDocument(*c, Options{});
  EXPECT_EQ(std::get<int64_t>(d.FindField("slower")->value), 1);
  EXPECT_EQ(std::get<int64_t>(d.FindField("faster")->value), 1);
  // Ratios 21, 1/21 and 1: geometric mean 1.
  EXPECT_NEAR(std::get<double>(d.FindField("geomean_ratio")->value), 1, 1e-12);
  const core::Table* t = d.FindTable("benchmarks");
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->columns[1].header, "base (ns)");
  ASSERT_EQ(t->rows.size(), 3u);
  EXPECT_EQ(std::get<std::string>(t->rows[0][5]), "slower");
  EXPECT_EQ(std::get<std::string>(t->rows[1][5]), "faster");
  EXPECT_EQ(std::get<std::string>(t->rows[2][5]), "same");
  EXPECT_EQ(std::get<std::string>(t->rows[0][6]), "9/9");
  ASSERT_NE(d.FindTable("only_in_base"), nullptr);
  EXPECT_EQ(d.FindTable("only_in_base")->title, "only in BASE: none");
  EXPECT_TRUE(d.FindTable("only_in_contender")->rows.empty());
}

}  // namespace
}  // namespace perflab::compare
