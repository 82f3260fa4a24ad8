// tools/compare/doc_diff.h: the field-by-field diff of two deterministic
// results, on small JSON documents whose differences are listed by hand.
#include "tools/compare/doc_diff.h"

#include <string>
#include <utility>
#include <variant>

#include "absl/status/statusor.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "rapidjson/document.h"

namespace perflab::compare {
namespace {

rapidjson::Document Json(const char* text) {
  rapidjson::Document d;
  d.Parse(text);
  EXPECT_FALSE(d.HasParseError()) << text;
  return d;
}

DocDiff Diff(const char* base, const char* contender) {
  rapidjson::Document b = Json(base), c = Json(contender);
  absl::StatusOr<DocDiff> d = DiffResults(b, c);
  EXPECT_TRUE(d.ok()) << d.status();
  return d.ok() ? *std::move(d) : DocDiff{};
}

// The refusal for two documents read as perflab compare reads them (full
// precision, NaN and Infinity literals taken), or "" when they were compared.
std::string Refusal(const char* base, const char* contender) {
  constexpr unsigned kFlags =
      rapidjson::kParseFullPrecisionFlag | rapidjson::kParseNanAndInfFlag;
  rapidjson::Document b, c;
  b.Parse<kFlags>(base);
  c.Parse<kFlags>(contender);
  EXPECT_FALSE(b.HasParseError() || c.HasParseError());
  absl::StatusOr<DocDiff> d = DiffResults(b, c);
  if (d.ok()) return "";
  EXPECT_EQ(d.status().code(), absl::StatusCode::kInvalidArgument);
  return std::string(d.status().message());
}

int64_t IntField(const DocDiff& d, const char* key) {
  return std::get<int64_t>(d.doc.FindField(key)->value);
}

std::string Cell(const core::Table& t, size_t row, size_t column) {
  return std::get<std::string>(t.rows[row][column]);
}

// Leaves: a, b.c, b.d[0], b.d[1], e: five values compared.
TEST(DiffResults, IdenticalDocumentsCountTheirLeaves) {
  const char* doc = R"({"a": 1, "b": {"c": "x", "d": [2.5, true]}, "e": null})";
  DocDiff d = Diff(doc, doc);
  EXPECT_FALSE(d.differs);
  EXPECT_TRUE(std::get<bool>(d.doc.FindField("identical")->value));
  EXPECT_EQ(IntField(d, "fields_compared"), 5);
  EXPECT_EQ(IntField(d, "fields_differing"), 0);
}

// 10 -> 12: change 2, 20 % of |10|; "a" -> "b": a text difference; d[1] is
// only in the base, f only in the contender.
TEST(DiffResults, ListsEachDifferenceWithItsPath) {
  DocDiff d = Diff(R"({"n": 10, "s": "a", "o": {"d": [1, 2]}})",
                   R"({"n": 12, "s": "b", "o": {"d": [1]}, "f": 0})");
  EXPECT_TRUE(d.differs);
  const core::Table& t = d.doc.tables().front();
  ASSERT_EQ(t.rows.size(), 4u);
  EXPECT_EQ(Cell(t, 0, 0), "n");
  EXPECT_EQ(Cell(t, 0, 1), "10");
  EXPECT_EQ(Cell(t, 0, 2), "12");
  EXPECT_DOUBLE_EQ(std::get<double>(t.rows[0][3]), 2);
  EXPECT_DOUBLE_EQ(std::get<double>(t.rows[0][4]), 20);
  EXPECT_EQ(Cell(t, 0, 5), "differs");
  EXPECT_EQ(Cell(t, 1, 0), "s");
  EXPECT_EQ(Cell(t, 1, 1), "\"a\"");
  EXPECT_EQ(Cell(t, 1, 5), "differs");
  EXPECT_EQ(Cell(t, 2, 0), "o.d[1]");
  EXPECT_EQ(Cell(t, 2, 5), "only in base");
  EXPECT_EQ(Cell(t, 3, 0), "f");
  EXPECT_EQ(Cell(t, 3, 5), "only in contender");
  // n, s, o.d[0], o.d[1], f.
  EXPECT_EQ(IntField(d, "fields_compared"), 5);
  EXPECT_EQ(IntField(d, "fields_differing"), 4);
}

// A change from 0 has no percentage.
TEST(DiffResults, ChangeFromZeroHasNoPercentage) {
  DocDiff d = Diff(R"({"n": 0})", R"({"n": 3})");
  const core::Table& t = d.doc.tables().front();
  ASSERT_EQ(t.rows.size(), 1u);
  EXPECT_DOUBLE_EQ(std::get<double>(t.rows[0][3]), 3);
  EXPECT_TRUE(std::holds_alternative<std::monostate>(t.rows[0][4]));
}

// |12 - 10| = 2 is inside both half-widths (3): `same`, and the document
// does not differ; 2 is outside a half-width of 1.5: it differs.
TEST(DiffResults, DifferenceInsideBothIntervalsIsSame) {
  DocDiff inside =
      Diff(R"({"x": 10, "x_ci95": 3})", R"({"x": 12, "x_ci95": 3})");
  EXPECT_FALSE(inside.differs);
  ASSERT_EQ(inside.doc.tables().front().rows.size(), 1u);
  EXPECT_EQ(Cell(inside.doc.tables().front(), 0, 5), "same");
  DocDiff outside = Diff(R"({"x": 10, "x_half_width": 1.5})",
                         R"({"x": 12, "x_half_width": 1.5})");
  EXPECT_TRUE(outside.differs);
}

// |12 - 10| = 2 is inside the base's half-width (3) but not the
// contender's (1): not inside both, so x differs (and so does x_ci95).
TEST(DiffResults, InsideOnlyOneIntervalDiffers) {
  DocDiff d = Diff(R"({"x": 10, "x_ci95": 3})", R"({"x": 12, "x_ci95": 1})");
  EXPECT_TRUE(d.differs);
  const core::Table& t = d.doc.tables().front();
  ASSERT_EQ(t.rows.size(), 2u);
  EXPECT_EQ(Cell(t, 0, 0), "x");
  EXPECT_EQ(Cell(t, 0, 5), "differs");
  EXPECT_EQ(Cell(t, 1, 0), "x_ci95");
}

// The stem_ci95_unit spelling: wait_s has its half-width in wait_ci95_s.
// Another field's half-width is not x's: x differs.
TEST(DiffResults, StemUnitHalfWidthAndOneSidedInterval) {
  DocDiff stem = Diff(R"({"wait_s": 1.0, "wait_ci95_s": 0.5})",
                      R"({"wait_s": 1.4, "wait_ci95_s": 0.5})");
  EXPECT_FALSE(stem.differs);
  DocDiff other =
      Diff(R"({"x": 10, "y_ci95": 3})", R"({"x": 12, "y_ci95": 3})");
  EXPECT_TRUE(other.differs);
}

// NaN and Infinity are refused wherever they are, with the field's path,
// even where both sides hold the same literal (NaN == NaN is false, an
// Infinity minus itself is NaN).
TEST(DiffResults, NanAndInfinityAreRefusedWithTheirPath) {
  EXPECT_THAT(Refusal(R"({"a": 1, "b": {"c": [2, NaN]}})",
                      R"({"a": 1, "b": {"c": [2, 3]}})"),
              ::testing::HasSubstr("BASE holds NaN or Infinity at b.c[1]"));
  EXPECT_THAT(Refusal(R"({"x": 1})", R"({"x": -Infinity})"),
              ::testing::HasSubstr("CONTENDER holds NaN or Infinity at x"));
  EXPECT_THAT(Refusal(R"({"x": Infinity})", R"({"x": Infinity})"),
              ::testing::HasSubstr("at x; accepted: finite numbers"));
  EXPECT_THAT(Refusal(R"({"only": NaN})", R"({})"),
              ::testing::HasSubstr("at only"));
}

// -1.7e308 to 1.7e308 is a change of 3.4e308, past the largest double
// (about 1.798e308); 1e-300 to 1 is a change of about 1e302 %, inside, but
// 1e-307 to 1e3 is about 1e312 %, past it. Each is refused, never inf.
TEST(DiffResults, ChangesPastADoublesRangeAreRefused) {
  EXPECT_THAT(Refusal(R"({"m": -1.7e308})", R"({"m": 1.7e308})"),
              ::testing::HasSubstr("m: -1.7e+308 (BASE) to 1.7e+308 "
                                   "(CONTENDER): the change or its "
                                   "percentage is past"));
  EXPECT_THAT(Refusal(R"({"m": 1e-307})", R"({"m": 1e3})"),
              ::testing::HasSubstr("m: 1e-307 (BASE)"));
  EXPECT_EQ(Refusal(R"({"m": 1e-300})", R"({"m": 1})"), "");
  // 1.7e308 to 0.85e308 halves it: a finite change of -0.85e308, -50 %.
  DocDiff d = Diff(R"({"m": 1.7e308})", R"({"m": 0.85e308})");
  const core::Table& t = d.doc.tables().front();
  ASSERT_EQ(t.rows.size(), 1u);
  EXPECT_DOUBLE_EQ(std::get<double>(t.rows[0][3]), -0.85e308);
  EXPECT_DOUBLE_EQ(std::get<double>(t.rows[0][4]), -50);
}

}  // namespace
}  // namespace perflab::compare
