// The calibration reader: a valid file round-trips, and every kind of bad
// input is InvalidArgument with one line naming the field and what is
// accepted. Files are built from CalibrationFields() so a new field needs no
// test change.
#include "tools/calibration/calibration_io.h"

#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace perflab::capstone {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

constexpr char kAssumed[] =
    R"("provenance": {"kind": "assumed", "why": "stated"})";

// Field i's provenance: the four kinds in turn (table: row "index" read by
// field 2, rows "baseline" and "cache" by field 6).
std::string ProvenanceJson(size_t i) {
  switch (i % 4) {
    case 0:
      return absl::StrCat(
          R"({"kind": "measured", "benchmarks": ["bench_db BM_A", )",
          R"("bench_db BM_B"], "formula": "median cpu_time of BM_A - BM_B"})");
    case 1:
      return R"({"kind": "published", "figures": ["kHeapMib", "kLiveSetMib"]})";
    case 2:
      return i == 2 ? R"({"kind": "table", "rows": {"index": ["rps", )"
                      R"("cpu_cores"]}, "figures": ["kGcPauses256"], )"
                      R"("fields": ["live_set_mib"]})"
                    : R"({"kind": "table", "from": "seed-h2", "rows": )"
                      R"({"baseline": ["rps"], "cache": ["cpu_cores"]}, )"
                      R"("why": "copied"})";
    default:
      return R"({"kind": "assumed", "why": "a stated value"})";
  }
}

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
                    "\", \"provenance\": ", ProvenanceJson(i), "}");
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
  ASSERT_EQ(f->provenance.size(), all.size());
  EXPECT_EQ(f->provenance[0].kind, sim::SourceKind::kMeasured);
  EXPECT_EQ(f->provenance[0].benchmarks,
            (std::vector<std::string>{"bench_db BM_A", "bench_db BM_B"}));
  EXPECT_EQ(f->provenance[0].formula, "median cpu_time of BM_A - BM_B");
  EXPECT_EQ(f->provenance[1].kind, sim::SourceKind::kPublished);
  EXPECT_EQ(f->provenance[1].figures,
            (std::vector<std::string>{"kHeapMib", "kLiveSetMib"}));
  EXPECT_EQ(f->provenance[2].kind, sim::SourceKind::kTable);
  EXPECT_EQ(f->provenance[2].rows,
            (std::vector<sim::TableCells>{{"index", {"rps", "cpu_cores"}}}));
  EXPECT_EQ(f->provenance[2].fields,
            (std::vector<std::string>{"live_set_mib"}));
  EXPECT_EQ(f->provenance[6].from, "seed-h2");
  EXPECT_EQ(f->provenance[6].why, "copied");
  EXPECT_EQ(f->provenance[3].kind, sim::SourceKind::kAssumed);
  EXPECT_EQ(f->provenance[3].why, "a stated value");
  // The rows any field reads, in the table's order.
  EXPECT_EQ(sim::InputRows(f->provenance),
            (std::vector<std::string>{"baseline", "index", "cache"}));
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
  EXPECT_EQ(f->provenance, g->provenance);
  EXPECT_EQ(WriteCalibration(*g), text);
}

// The canary's baseline: read in file order, written back the same, and
// absent from a file that has none (so such files keep their bytes).
TEST(CalibrationIo, CanaryReferenceRoundTrips) {
  std::string json = ValidJson();
  json.pop_back();  // the closing brace of the root
  json +=
      ", \"canary_reference\": {\"serialize_us\": 2.5, "
      "\"join_index_us\": 40}}";
  absl::StatusOr<CalibrationFile> f = ParseCalibration(json);
  ASSERT_TRUE(f.ok()) << f.status();
  ASSERT_EQ(f->canary_reference.size(), 2u);
  EXPECT_EQ(f->canary_reference[0].first, "serialize_us");
  EXPECT_EQ(f->canary_reference[0].second, 2.5);
  EXPECT_EQ(f->canary_reference[1].first, "join_index_us");
  EXPECT_EQ(f->canary_reference[1].second, 40);
  absl::StatusOr<CalibrationFile> g = ParseCalibration(WriteCalibration(*f));
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ(g->canary_reference, f->canary_reference);
  f->canary_reference.clear();
  EXPECT_THAT(WriteCalibration(*f), Not(HasSubstr("canary_reference")));
}

TEST(CalibrationIo, BadCanaryReference) {
  auto with = [](const std::string& ref) {
    std::string json = ValidJson();
    json.pop_back();
    return absl::StrCat(json, ", \"canary_reference\": ", ref, "}");
  };
  ExpectBad(with("[1]"), "not an object");
  ExpectBad(with("{\"bogus_us\": 1}"), "'bogus_us' is unknown");
  ExpectBad(with("{\"serialize_us\": 0}"), "positive");
  ExpectBad(with("{\"serialize_us\": -1}"), "positive");
  ExpectBad(with("{\"serialize_us\": \"1\"}"), "positive");
  ExpectBad(with("{\"serialize_us\": 1, \"serialize_us\": 2}"), "twice");
}

// PostgreSQL's optional section: a file without it (every file written
// before it, the committed fixtures) reads with nothing measured and writes
// back without it, byte for byte; measured fields and a reason round-trip.
TEST(CalibrationIo, PostgresSectionIsOptionalAndRoundTrips) {
  absl::StatusOr<CalibrationFile> f = ParseCalibration(ValidJson());
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_FALSE(f->postgres_measured);
  EXPECT_TRUE(f->postgres_absent.empty());
  EXPECT_EQ(f->values.pg_round_trip_ms, 0);
  EXPECT_THAT(WriteCalibration(*f), Not(HasSubstr("postgres")));
  for (const char* path :
       {"fixtures/calibration/reference-xeon-2vcpu-2026-12.json"}) {
    std::ifstream in(path);
    ASSERT_TRUE(in.good()) << "run from the source root";
    const std::string bytes((std::istreambuf_iterator<char>(in)), {});
    absl::StatusOr<CalibrationFile> fixture = ParseCalibration(bytes);
    ASSERT_TRUE(fixture.ok()) << fixture.status();
    EXPECT_FALSE(fixture->postgres_measured);
    EXPECT_THAT(WriteCalibration(*fixture), Not(HasSubstr("\"postgres\"")));
  }

  std::string json = ValidJson();
  json.pop_back();
  absl::StatusOr<CalibrationFile> g = ParseCalibration(absl::StrCat(
      json,
      ", \"postgres\": {\"fields\": {\"pg_item_statement_us\": {\"value\": "
      "49.375, \"unit\": \"us\", \"source\": \"bench_pg\", \"provenance\": ",
      ProvenanceJson(0),
      "}, \"pg_round_trip_ms\": {\"value\": 0.045, \"unit\": \"ms\", "
      "\"source\": \"bench_pg rt\", \"provenance\": ",
      ProvenanceJson(0), "}}}}"));
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_TRUE(g->postgres_measured);
  EXPECT_EQ(g->values.pg_round_trip_ms, 0.045);
  EXPECT_EQ(g->values.pg_item_statement_us, 49.375);
  // In sim::PostgresFields() order, whatever the file's.
  EXPECT_EQ(g->postgres_sources,
            (std::vector<std::string>{"bench_pg rt", "bench_pg"}));
  const std::string text = WriteCalibration(*g);
  absl::StatusOr<CalibrationFile> h = ParseCalibration(text);
  ASSERT_TRUE(h.ok()) << h.status();
  EXPECT_TRUE(h->postgres_measured);
  EXPECT_EQ(h->values.pg_round_trip_ms, 0.045);
  EXPECT_EQ(h->postgres_provenance, g->postgres_provenance);
  EXPECT_EQ(WriteCalibration(*h), text);

  g = ParseCalibration(absl::StrCat(
      json, ", \"postgres\": {\"absent\": \"not measured: no server\"}}"));
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_FALSE(g->postgres_measured);
  EXPECT_EQ(g->postgres_absent, "not measured: no server");
  EXPECT_THAT(WriteCalibration(*g),
              HasSubstr("\"absent\": \"not measured: no server\""));
}

TEST(CalibrationIo, BadPostgresSection) {
  std::string json = ValidJson();
  json.pop_back();
  auto with = [&json](const std::string& section) {
    return absl::StrCat(json, ", \"postgres\": ", section, "}");
  };
  ExpectBad(with("[1]"), "\"postgres\" is not an object of one key");
  ExpectBad(with("{\"absent\": \"x\", \"fields\": {}}"), "one key");
  ExpectBad(with("{\"absent\": \"\"}"), "not a non-empty string");
  ExpectBad(with("{\"measured\": 1}"), "neither \"fields\" nor \"absent\"");
  const std::string rt = absl::StrCat(
      "\"pg_round_trip_ms\": {\"value\": 0.04, \"unit\": \"ms\", "
      "\"source\": \"s\", \"provenance\": ",
      ProvenanceJson(0), "}");
  ExpectBad(with(absl::StrCat("{\"fields\": {", rt, "}}")),
            "'pg_item_statement_us' is missing");
  ExpectBad(with(absl::StrCat("{\"fields\": {", rt, ", ", rt, "}}")),
            "'pg_round_trip_ms' appears twice");
  ExpectBad(with("{\"fields\": {\"pg_warp_us\": {}}}"),
            "'pg_warp_us' is unknown");
  ExpectBad(
      with(absl::StrCat("{\"fields\": {",
                        absl::StrReplaceAll(rt, {{"\"ms\"", "\"us\""}}), "}}")),
      "unit 'us' is wrong");
}

TEST(CalibrationIo, MissingField) {
  ExpectBad(ValidJson(FirstName()),
            absl::StrCat("'", FirstName(), "' is missing"));
}

TEST(CalibrationIo, UnknownField) {
  ExpectBad(
      ValidJson("",
                R"("warp_drive_us": {"value": 1, "unit": "us", "source": "", )"
                R"("provenance": {"kind": "assumed", "why": "w"}})"),
      "'warp_drive_us' is unknown");
}

// The fuzzer found this: a key with an escaped newline put a line break in
// the error. Errors quote it escaped and stay one line.
TEST(CalibrationIo, UnknownFieldWithANewlineIsStillOneLine) {
  ExpectBad(
      ValidJson("",
                R"("warp\ndrive_us": {"value": 1, "unit": "us", "source": "", )"
                R"("provenance": {"kind": "assumed", "why": "w"}})"),
      "'warp\\ndrive_us' is unknown");
}

TEST(CalibrationIo, RepeatedField) {
  ExpectBad(
      ValidJson("", absl::StrCat("\"", FirstName(),
                                 "\": {\"value\": 1, \"unit\": \"", FirstUnit(),
                                 "\", \"source\": \"\", ", kAssumed, "}")),
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
  // Every field is a cost, a size, a count or a factor: none may be
  // negative, and none is clamped to 0 instead of refused.
  for (const sim::CalibrationField& f : sim::CalibrationFields()) {
    const std::string entry = absl::StrCat(
        "\"", std::string(f.name), R"(": {"value": -1e-9, "unit": ")",
        std::string(f.unit), R"(", "source": "s", )",
        R"("provenance": {"kind": "assumed", "why": "w"}})");
    ExpectBad(ValidJson(std::string(f.name), entry),
              absl::StrCat("'", std::string(f.name),
                           "': value -1e-09 is out of range"));
  }
}

TEST(CalibrationIo, CoreCountsAreBounded) {
  // effective_cores becomes the simulated CPU's servers: 1024 is accepted,
  // one more (or a billion) is refused before anything is sized by it.
  const auto entry = [](const std::string& value) {
    return absl::StrCat(R"("effective_cores": {"value": )", value,
                        R"(, "unit": "cores", "source": "s", )",
                        R"("provenance": {"kind": "assumed", "why": "w"}})");
  };
  EXPECT_TRUE(
      ParseCalibration(ValidJson("effective_cores", entry("1024"))).ok());
  ExpectBad(
      ValidJson("effective_cores", entry("1025")),
      "value 1025 is out of range; accepted: a finite number in [0, 1024] "
      "cores");
  ExpectBad(ValidJson("effective_cores", entry("1e9")), "out of range");
}

TEST(CalibrationIo, CostsAreBoundedAtAThousandSeconds) {
  // A cost is a time per piece of a request: 1000 s (1e9 us, 1e6 ms) is
  // accepted, a little more is refused, in every time field, so no
  // request's sum of pieces leaves the simulator's range.
  int checked = 0;
  for (const sim::CalibrationField& f : sim::CalibrationFields()) {
    const std::string unit(f.unit);
    if (unit != "us" && unit != "ms") continue;
    const std::string max = unit == "us" ? "1e9" : "1e6";
    const std::string over = unit == "us" ? "1.5e9" : "1.5e6";
    const auto entry = [&](const std::string& value) {
      return absl::StrCat("\"", std::string(f.name), R"(": {"value": )", value,
                          R"(, "unit": ")", unit, R"(", "source": "s", )",
                          R"("provenance": {"kind": "assumed", "why": "w"}})");
    };
    EXPECT_TRUE(
        ParseCalibration(ValidJson(std::string(f.name), entry(max))).ok())
        << f.name;
    ExpectBad(ValidJson(std::string(f.name), entry(over)),
              absl::StrCat("'", std::string(f.name), "': value ",
                           unit == "us" ? "1.5e+09" : "1.5e+06",
                           " is out of range; accepted: a finite number in "
                           "[0, ",
                           unit == "us" ? "1e+09" : "1e+06", "] ", unit));
    ++checked;
  }
  EXPECT_GT(checked, 40);  // every time field, not a few
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

// Provenance is required and strict: every name it cites must exist.
TEST(CalibrationIo, BadProvenance) {
  const std::string head = absl::StrCat(
      R"({"value": 1, "unit": ")", FirstUnit(), R"(", )", R"("source": "s")");
  auto with = [&](const std::string& provenance) {
    return WithFirst(
        absl::StrCat(head, R"(, "provenance": )", provenance, "}"));
  };
  const std::string field = absl::StrCat("'", FirstName(), "'");
  ExpectBad(WithFirst(head + "}"), field + ": missing \"provenance\"");
  ExpectBad(with(R"({"kind": "guessed"})"),
            "provenance kind 'guessed' is unknown; accepted: measured, "
            "published, table, fitted, assumed");
  ExpectBad(with(R"({"why": "w"})"), "provenance has no \"kind\"");
  ExpectBad(with(R"("table")"), "provenance is not an object");
  ExpectBad(with(R"({"kind": "published", "figures": ["kWarpFactor"]})"),
            "figure 'kWarpFactor' is unknown; accepted: the named figures of "
            "core/case_study.h: kHttpCallUs");
  ExpectBad(with(R"({"kind": "table", "rows": {"warp-drive": ["rps"]}})"),
            "row 'warp-drive' is not a step of the ten-step table; accepted: "
            "baseline, index,");
  ExpectBad(with(R"({"kind": "table", "rows": {"index": ["speed"]}})"),
            "row 'index' column 'speed' is unknown; accepted: rps,");
  ExpectBad(with(R"({"kind": "table", "rows": {"index": []}})"),
            "row 'index' needs its columns");
  ExpectBad(with(R"({"kind": "table", "rows": [{"row": "index"}]})"),
            "\"rows\" is not an object");
  ExpectBad(with(R"({"kind": "table", "fields": ["warp_us"]})"),
            "provenance field 'warp_us' is unknown");
  ExpectBad(with(R"({"kind": "assumed", "colour": "red"})"),
            "unknown provenance key 'colour'");
  ExpectBad(with(R"({"kind": "published", "figures": "kHeapMib"})"),
            "\"figures\" is not an array of strings");
  // Each kind has what it needs, and only a table value reads the table.
  ExpectBad(with(R"({"kind": "table"})"), "kind 'table' needs \"rows\"");
  ExpectBad(with(R"({"kind": "assumed"})"), "kind 'assumed' needs \"why\"");
  ExpectBad(with(R"({"kind": "measured", "benchmarks": ["b"]})"),
            "kind 'measured' needs \"benchmarks\" and \"formula\"");
  ExpectBad(with(R"({"kind": "published", "figures": ["kHeapMib"], )"
                 R"("rows": {"index": ["rps"]}})"),
            "kind 'published' reads no table cell");
  ExpectBad(with(R"({"kind": "assumed", "why": "w", "rows": )"
                 R"({"index": ["rps"]}})"),
            "kind 'assumed' needs \"why\" and, unless copied (\"from\"), "
            "reads no figure or row");
  // A choice made on a row names a row of the table; a copied field says why
  // its value holds here.
  ExpectBad(with(R"({"kind": "fitted", "why": "w", "rows": {"index": )"
                 R"(["rps"]}, "selected_on": ["warp-drive"]})"),
            "selected_on row 'warp-drive' is not a step of the ten-step "
            "table; accepted: baseline, index,");
  ExpectBad(with(R"({"kind": "published", "figures": ["kLiveSetMib"], )"
                 R"("runs": ["cache", "warp-drive"]})"),
            "runs row 'warp-drive' is not a step");
  ExpectBad(with(R"({"kind": "fitted", "why": "w", "rows": {"index": )"
                 R"(["rps"]}, "selected_on": "pool-8"})"),
            "\"selected_on\" is not an array of strings");
  ExpectBad(with(R"({"kind": "table", "from": "seed-h2", "rows": )"
                 R"({"index": ["rps"]}})"),
            "copied from 'seed-h2' without a reason; accepted: \"why\"");
  ExpectBad(with(R"({"kind": "assumed", "from": "seed-h2", "figures": )"
                 R"(["kLiveSetMib"], "runs": ["cache"]})"),
            "copied from 'seed-h2' without a reason");
  ExpectBad(with(R"({"kind": "measured", "benchmarks": ["b"], "formula": )"
                 R"("f", "selected_on": ["index"]})"),
            "kind 'measured' reads no table row");
  // Copied with its reason, it keeps what its derivation there read.
  EXPECT_TRUE(ParseCalibration(with(R"({"kind": "assumed", "from": )"
                                    R"("seed-h2", "why": "w", "rows": )"
                                    R"({"index": ["rps"]}, "selected_on": )"
                                    R"(["pool-8"]})"))
                  .ok());
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
