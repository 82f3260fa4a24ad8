// The calibration reader: a valid file round-trips, and every kind of bad
// input is InvalidArgument with one line naming the field and what is
// accepted. Files are built from CalibrationFields() so a new field needs no
// test change.
#include "tools/capstone/calibration_io.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace perflab::capstone {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// A valid file where field i has value i + 0.5 (distinct, non-zero), written
// by hand (not by WriteCalibration) so the reader is tested on its own.
std::string ValidJson(const std::string& skip = "",
                      const std::string& extra = "") {
  std::string fields;
  const auto& all = sim::CalibrationFields();
  for (size_t i = 0; i < all.size(); ++i) {
    if (all[i].name == skip) continue;
    if (!fields.empty()) fields += ",\n";
    absl::StrAppend(&fields, "\"", std::string(all[i].name),
                    "\": {\"value\": ", i, ".5, ", "\"unit\": \"",
                    std::string(all[i].unit), "\", \"source\": \"test ", i,
                    "\"}");
  }
  if (!extra.empty()) absl::StrAppend(&fields, ",\n", extra);
  return absl::StrCat(
      "{\"format\": \"perflab-calibration-1\", \"name\": \"t\", "
      "\"description\": \"d\", \"fields\": {",
      fields, "}}");
}

std::string FirstName() {
  return std::string(sim::CalibrationFields()[0].name);
}
std::string FirstUnit() {
  return std::string(sim::CalibrationFields()[0].unit);
}

// Replaces field 0's entry with `entry`.
std::string WithFirst(const std::string& entry) {
  std::string json = ValidJson(FirstName());
  return absl::StrReplaceAll(
      json, {{"\"fields\": {", absl::StrCat("\"fields\": {\"", FirstName(),
                                            "\": ", entry, ",\n")}});
}

void ExpectBad(const std::string& json, const std::string& mentions) {
  absl::StatusOr<CalibrationFile> f = ParseCalibration(json);
  ASSERT_FALSE(f.ok()) << json;
  EXPECT_EQ(f.status().code(), absl::StatusCode::kInvalidArgument);
  const std::string msg(f.status().message());
  EXPECT_THAT(msg, HasSubstr(mentions));
  EXPECT_THAT(msg, HasSubstr("accepted"));
  EXPECT_THAT(msg, Not(HasSubstr("\n")));
}

TEST(CalibrationIo, ReadsEveryFieldWithItsValueAndSource) {
  absl::StatusOr<CalibrationFile> f = ParseCalibration(ValidJson());
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_EQ(f->name, "t");
  EXPECT_EQ(f->description, "d");
  const auto& all = sim::CalibrationFields();
  ASSERT_EQ(f->sources.size(), all.size());
  for (size_t i = 0; i < all.size(); ++i) {
    EXPECT_EQ(f->values.*all[i].member, static_cast<double>(i) + 0.5)
        << all[i].name;
    EXPECT_EQ(f->sources[i], absl::StrCat("test ", i));
  }
}

TEST(CalibrationIo, WriteThenReadIsIdentity) {
  absl::StatusOr<CalibrationFile> f = ParseCalibration(ValidJson());
  ASSERT_TRUE(f.ok());
  f->values.*sim::CalibrationFields()[0].member = 0.1 + 0.2;  // not short
  const std::string text = WriteCalibration(*f);
  absl::StatusOr<CalibrationFile> g = ParseCalibration(text);
  ASSERT_TRUE(g.ok()) << g.status() << "\n" << text;
  for (const auto& field : sim::CalibrationFields()) {
    EXPECT_EQ(f->values.*field.member, g->values.*field.member) << field.name;
  }
  EXPECT_EQ(f->sources, g->sources);
  EXPECT_EQ(WriteCalibration(*g), text);
}

TEST(CalibrationIo, MissingField) {
  ExpectBad(ValidJson(FirstName()),
            absl::StrCat("'", FirstName(), "' is missing"));
}

TEST(CalibrationIo, UnknownField) {
  ExpectBad(
      ValidJson("",
                R"("warp_drive_us": {"value": 1, "unit": "us", "source": ""})"),
      "'warp_drive_us' is unknown");
}

// The fuzzer found this: a key with an escaped newline put a line break in
// the error. Errors quote it escaped and stay one line.
TEST(CalibrationIo, UnknownFieldWithANewlineIsStillOneLine) {
  ExpectBad(
      ValidJson(
          "", R"("warp\ndrive_us": {"value": 1, "unit": "us", "source": ""})"),
      "'warp\\ndrive_us' is unknown");
}

TEST(CalibrationIo, RepeatedField) {
  ExpectBad(ValidJson("", absl::StrCat("\"", FirstName(),
                                       "\": {\"value\": 1, \"unit\": \"",
                                       FirstUnit(), "\", \"source\": \"\"}")),
            "appears twice");
}

TEST(CalibrationIo, WrongUnit) {
  ExpectBad(WithFirst(R"({"value": 1, "unit": "furlongs", "source": ""})"),
            absl::StrCat("'", FirstName(), "': unit 'furlongs' is wrong"));
  ExpectBad(WithFirst(R"({"value": 1, "source": ""})"), "unit none is wrong");
}

TEST(CalibrationIo, NegativeValue) {
  ExpectBad(WithFirst(absl::StrCat(R"({"value": -0.5, "unit": ")", FirstUnit(),
                                   R"(", "source": ""})")),
            "value -0.5 is out of range");
}

TEST(CalibrationIo, NonFiniteValue) {
  // JSON has no NaN or Infinity: they are malformed; a huge exponent too.
  ExpectBad(WithFirst(absl::StrCat(R"({"value": NaN, "unit": ")", FirstUnit(),
                                   R"(", "source": ""})")),
            "malformed JSON");
  ExpectBad(WithFirst(absl::StrCat(R"({"value": 1e999, "unit": ")", FirstUnit(),
                                   R"(", "source": ""})")),
            "malformed JSON");
  // Past the largest double in a way RapidJSON 1.1.0's full-precision
  // strtod asserted on (21 integer digits, then e308), and just past it.
  for (const char* big : {"126600000000059706501e308", "1.8e308"}) {
    ExpectBad(WithFirst(absl::StrCat(R"({"value": )", big, R"(, "unit": ")",
                                     FirstUnit(), R"(", "source": ""})")),
              "Number too big");
  }
  ExpectBad(WithFirst(absl::StrCat(R"({"value": "3", "unit": ")", FirstUnit(),
                                   R"(", "source": ""})")),
            "non-numeric");
}

TEST(CalibrationIo, MalformedJson) {
  std::string json = ValidJson();
  ExpectBad(json.substr(0, json.size() / 2), "malformed JSON");
  ExpectBad("", "malformed JSON");
  ExpectBad("[1, 2]", "not a JSON object");
}

TEST(CalibrationIo, WrongFormatAndTopLevelKeys) {
  ExpectBad(absl::StrReplaceAll(ValidJson(), {{"perflab-calibration-1",
                                               "perflab-calibration-9"}}),
            "format 'perflab-calibration-9'");
  ExpectBad(absl::StrReplaceAll(ValidJson(), {{"\"name\": \"t\", ", ""}}),
            "missing \"name\"");
  ExpectBad(absl::StrReplaceAll(ValidJson(),
                                {{"\"name\"", "\"colour\": 1, \"name\""}}),
            "unknown key 'colour'");
  ExpectBad(WithFirst(absl::StrCat(R"({"value": 1, "unit": ")", FirstUnit(),
                                   R"(", "source": "", "extra": 2})")),
            "unknown key 'extra'");
  ExpectBad(WithFirst(absl::StrCat(R"({"value": 1, "unit": ")", FirstUnit(),
                                   R"("})")),
            "missing \"source\"");
}

TEST(CalibrationIo, MissingFileNamesThePath) {
  absl::StatusOr<CalibrationFile> f =
      ReadCalibrationFile("/nonexistent/calibration.json");
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(f.status().message(), HasSubstr("/nonexistent/calibration.json"));
}

TEST(CalibrationIo, HashIsSha256OfTheBytes) {
  // SHA-256("abc") from FIPS 180-2, appendix B.1.
  EXPECT_EQ(ContentHash("abc"),
            "sha256:"
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

}  // namespace
}  // namespace perflab::capstone
