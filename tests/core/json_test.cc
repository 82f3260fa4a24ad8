// FirstNumberTooBig and ParseJson: the numbers that overflow a double are
// found at their offsets (worked by hand against DBL_MAX = 1.7976931348623157
// e308), strings are skipped, and the input that aborted RapidJSON 1.1.0's
// full-precision strtod (found by the gbench_json fuzzer) is a clean error.
#include "core/json.h"

#include <cmath>
#include <string>

#include "gtest/gtest.h"

namespace perflab::core {
namespace {

TEST(JsonTest, FindsTheFirstNumberPastTheLargestDouble) {
  EXPECT_EQ(FirstNumberTooBig("[1, 2.5, -3e10, 0e999]"), std::nullopt);
  EXPECT_EQ(FirstNumberTooBig("[1.7976931348623157e308]"), std::nullopt);
  EXPECT_EQ(FirstNumberTooBig("[1e308, 123456789012345678901e280]"),
            std::nullopt);
  EXPECT_EQ(FirstNumberTooBig("[1.8e308]"), 1u);
  EXPECT_EQ(FirstNumberTooBig("[0, -1.8E+308]"), 4u);
  EXPECT_EQ(FirstNumberTooBig("{\"a\": 0.5e400}"), 6u);
  // 21 integer digits then e308: 1.27e328.
  EXPECT_EQ(FirstNumberTooBig("[-126600000000059706501e308]"), 1u);
  EXPECT_EQ(FirstNumberTooBig("[1e-400, 0.000001e310]"), std::nullopt);
}

TEST(JsonTest, SkipsStringsAndLiterals) {
  EXPECT_EQ(FirstNumberTooBig(R"({"1e999": "2e999", "x\"3e999": -Infinity})"),
            std::nullopt);
  EXPECT_EQ(FirstNumberTooBig(R"(["\\", 9e999])"), 7u);
  EXPECT_EQ(FirstNumberTooBig("-"), std::nullopt);
  EXPECT_EQ(FirstNumberTooBig("\"unterminated 9e999"), std::nullopt);
}

TEST(JsonTest, ParseJsonReportsTooBigOrParses) {
  constexpr unsigned kFlags = rapidjson::kParseFullPrecisionFlag;
  rapidjson::Document doc;
  const std::string crash = "{\"benchmarks\": [-126600000000059706501e308]}";
  rapidjson::ParseResult r = ParseJson<kFlags>(doc, crash);
  EXPECT_EQ(r.Code(), rapidjson::kParseErrorNumberTooBig);
  EXPECT_EQ(r.Offset(), 16u);
  EXPECT_TRUE(doc.IsNull());
  r = ParseJson<kFlags>(doc, "{\"x\": 0.1}");
  ASSERT_FALSE(r.IsError());
  EXPECT_EQ(doc["x"].GetDouble(), 0.1);
  r = ParseJson<kFlags>(doc, "{\"x\": }");
  EXPECT_EQ(r.Code(), rapidjson::kParseErrorValueInvalid);
}

// The fuzzer's input: with NaN and Infinity allowed, RapidJSON 1.1.0 reads
// "NaNe9" on into an exponent and asserts in its strtod (or, without
// assertions, makes a number of nothing).
TEST(JsonTest, NanOrInfinityRunningIntoAnExponentIsInvalid) {
  EXPECT_EQ(FirstNanOrInfWithExponent("[NaNe9]"), 1u);
  EXPECT_EQ(FirstNanOrInfWithExponent("{\"x\": -Infinity.5}"), 7u);
  EXPECT_EQ(FirstNanOrInfWithExponent("[1, InfE1]"), 4u);
  EXPECT_EQ(FirstNanOrInfWithExponent("[NaN, -Infinity, Inf]"), std::nullopt);
  EXPECT_EQ(FirstNanOrInfWithExponent("[\"NaNe9\", \"\\\"Inf.1\"]"),
            std::nullopt);
  constexpr unsigned kFlags =
      rapidjson::kParseFullPrecisionFlag | rapidjson::kParseNanAndInfFlag;
  rapidjson::Document doc;
  rapidjson::ParseResult r = ParseJson<kFlags>(doc, "{\"x\": NaNe9}");
  EXPECT_EQ(r.Code(), rapidjson::kParseErrorValueInvalid);
  EXPECT_EQ(r.Offset(), 6u);
  EXPECT_TRUE(doc.IsNull());
  r = ParseJson<kFlags>(doc, "{\"x\": NaN, \"y\": -Infinity}");
  ASSERT_FALSE(r.IsError());
  EXPECT_TRUE(std::isnan(doc["x"].GetDouble()));
  EXPECT_TRUE(std::isinf(doc["y"].GetDouble()));
}

TEST(JsonTest, FindsTheFirstBracketPastTheDepthLimit) {
  EXPECT_EQ(FirstTooDeep("[[[]]]", 3), std::nullopt);
  EXPECT_EQ(FirstTooDeep("[[[]]]", 2), 2u);
  EXPECT_EQ(FirstTooDeep("{\"a\": [{}]}", 2), 7u);  // the inner {
  // Brackets inside strings, escaped quotes included, do not count.
  EXPECT_EQ(FirstTooDeep(R"(["[[[[", "\"[[[[", {}])", 2), std::nullopt);
  EXPECT_EQ(FirstTooDeep("[] [] [] []", 1), std::nullopt);  // siblings
}

TEST(JsonTest, ParseJsonRefusesNestingPastTheLimitAndKeepsTheLimitItself) {
  constexpr unsigned kFlags = rapidjson::kParseFullPrecisionFlag;
  rapidjson::Document doc;
  const std::string ok =
      std::string(kMaxJsonDepth, '[') + std::string(kMaxJsonDepth, ']');
  EXPECT_FALSE(ParseJson<kFlags>(doc, ok).IsError());
  const std::string deep = "[" + ok + "]";
  rapidjson::ParseResult r = ParseJson<kFlags>(doc, deep);
  ASSERT_TRUE(r.IsError());
  EXPECT_EQ(r.Offset(), static_cast<size_t>(kMaxJsonDepth));  // the 65th '['
  EXPECT_STREQ(JsonErrorText(r), "nested deeper than 64 levels");
  // A million levels, which overflowed the stack of a recursive parse.
  r = ParseJson<kFlags>(doc, std::string(1'000'000, '['));
  EXPECT_TRUE(r.IsError());
  EXPECT_STREQ(JsonErrorText(ParseJson<kFlags>(doc, "{\"x\": }")),
               "Invalid value.");
}

}  // namespace
}  // namespace perflab::core
