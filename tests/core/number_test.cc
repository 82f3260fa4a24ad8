// core::ParseDecimal: the one reader of numbers a user types. Expected values
// are the decimal literals themselves (the compiler's reading of the same
// text); the refusals are the spellings strtod and absl::SimpleAtod take.
#include "core/number.h"

#include <cstdint>
#include <optional>
#include <string_view>

#include "gtest/gtest.h"

namespace perflab::core {
namespace {

TEST(ParseDecimal, DecimalForms) {
  EXPECT_EQ(ParseDecimal("12"), 12.0);
  EXPECT_EQ(ParseDecimal("-12"), -12.0);
  EXPECT_EQ(ParseDecimal("0"), 0.0);
  EXPECT_EQ(ParseDecimal("-0.5"), -0.5);
  EXPECT_EQ(ParseDecimal(".5"), 0.5);
  EXPECT_EQ(ParseDecimal("5."), 5.0);
  EXPECT_EQ(ParseDecimal("2.5e-3"), 2.5e-3);
  EXPECT_EQ(ParseDecimal("1E6"), 1e6);
  EXPECT_EQ(ParseDecimal("1e+6"), 1e6);  // the exponent's own sign
  EXPECT_EQ(ParseDecimal("0.1"), 0.1);   // correctly rounded, as the literal
  // The largest double, written out, is still a number.
  EXPECT_EQ(ParseDecimal("1.7976931348623157e308"), 1.7976931348623157e308);
}

TEST(ParseDecimal, RefusesHexadecimal) {
  // strtod reads these as 16, 8 and 26; from_chars with general format stops
  // after the "0", which leaves the rest unread.
  EXPECT_EQ(ParseDecimal("0x10"), std::nullopt);
  EXPECT_EQ(ParseDecimal("0x1p3"), std::nullopt);
  EXPECT_EQ(ParseDecimal("0X1A"), std::nullopt);
  EXPECT_EQ(ParseDecimal("-0x10"), std::nullopt);
}

TEST(ParseDecimal, RefusesNonFiniteSpellings) {
  for (const char* t : {"inf", "-inf", "INF", "infinity", "Infinity", "nan",
                        "NaN", "-nan", "nan(1)"}) {
    EXPECT_EQ(ParseDecimal(t), std::nullopt) << t;
  }
}

TEST(ParseDecimal, RefusesSignsSpacesAndTrailingText) {
  for (const char* t :
       {"", "+5", " 5", "5 ", "\t5", "5\n", "-", ".", "e5", "5e", "5e+", "1,5",
        "1_000", "5ms", "--5", "5-", "1e5.5", "0b11"}) {
    EXPECT_EQ(ParseDecimal(t), std::nullopt) << "'" << t << "'";
  }
}

TEST(ParseDecimal, RefusesMagnitudesPastADoublesRange) {
  // 2^1024 is about 1.8e308: 1.8e308 is past the largest double; 1e-400 is
  // below the smallest subnormal (about 4.9e-324), so it would read as 0.
  EXPECT_EQ(ParseDecimal("1.8e308"), std::nullopt);
  EXPECT_EQ(ParseDecimal("1e400"), std::nullopt);
  EXPECT_EQ(ParseDecimal("-1e400"), std::nullopt);
  EXPECT_EQ(ParseDecimal("1e-400"), std::nullopt);
}

TEST(ParseDecimal, ReadsOnlyTheGivenView) {
  // A view into a longer buffer: the characters past its end are not read.
  constexpr std::string_view kBuffer = "12345";
  EXPECT_EQ(ParseDecimal(kBuffer.substr(0, 2)), 12.0);
}

TEST(ParseDecimalInteger, DigitsWithAnOptionalMinus) {
  EXPECT_EQ(ParseDecimalInteger("0"), 0);
  EXPECT_EQ(ParseDecimalInteger("42"), 42);
  EXPECT_EQ(ParseDecimalInteger("-7"), -7);
  EXPECT_EQ(ParseDecimalInteger("007"), 7);
  // int64's ends: 2^63 - 1 and -2^63, and one past each.
  EXPECT_EQ(ParseDecimalInteger("9223372036854775807"), INT64_MAX);
  EXPECT_EQ(ParseDecimalInteger("-9223372036854775808"), INT64_MIN);
  EXPECT_EQ(ParseDecimalInteger("9223372036854775808"), std::nullopt);
  EXPECT_EQ(ParseDecimalInteger("-9223372036854775809"), std::nullopt);
}

TEST(ParseDecimalInteger, RefusesEverythingElse) {
  for (const char* t : {"", "+5", " 5", "5 ", "0x10", "1e3", "1.0", "5.", "-",
                        "--5", "five", "1,000"}) {
    EXPECT_EQ(ParseDecimalInteger(t), std::nullopt) << "'" << t << "'";
  }
}

TEST(ParseDecimalUnsigned, DigitsUpToTwoToTheSixtyFourMinusOne) {
  EXPECT_EQ(ParseDecimalUnsigned("0"), 0u);
  EXPECT_EQ(ParseDecimalUnsigned("16"), 16u);
  // 2^64 - 1 = 18446744073709551615, and one past it.
  EXPECT_EQ(ParseDecimalUnsigned("18446744073709551615"), UINT64_MAX);
  EXPECT_EQ(ParseDecimalUnsigned("18446744073709551616"), std::nullopt);
}

TEST(ParseDecimalUnsigned, RefusesSignsSpacesHexAndExponents) {
  for (const char* t : {"", "-1", "-0", "+16", " 16", "16 ", "0x10", "1e3",
                        "1e400", "16.0", "sixteen"}) {
    EXPECT_EQ(ParseDecimalUnsigned(t), std::nullopt) << "'" << t << "'";
  }
}

}  // namespace
}  // namespace perflab::core
