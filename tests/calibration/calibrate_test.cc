// perflab calibrate's arithmetic on hand-written Google Benchmark JSON:
// medians (not means), a subtracted benchmark, a factor, unit conversion
// (us, ns -> ms, bytes -> MiB), unmeasured fields from the seed file; the
// map's bad entries; and the committed files: fixtures/calibration/README.md
// lists every field with its unit, the committed calibrations parse.
#include "tools/calibration/calibrate.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/file_text.h"

namespace perflab::capstone {
namespace {

using ::testing::HasSubstr;

void Write(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

std::string Row(const std::string& name, const std::string& unit, double time,
                const std::string& counters = "") {
  return absl::StrCat(R"({"name": ")", name, R"(", "run_name": ")", name,
                      R"(", "run_type": "iteration", "time_unit": ")", unit,
                      R"(", "real_time": )", time, R"(, "cpu_time": )", time,
                      counters, "}");
}

class CalibrateTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           absl::StrCat("perflab_calibrate_test_", getpid());
    std::filesystem::create_directories(dir_);
    // db: N+1 pages 100, 120, 110 us (median 110); the indexed query 20, 10,
    // 30 us (median 20) and an aggregate row that must be ignored.
    Write(
        dir_ / "db.json",
        absl::StrCat(
            R"({"benchmarks": [)", Row("P", "us", 100), ",", Row("Q", "us", 20),
            ",", Row("P", "us", 120), ",", Row("Q", "us", 10), ",",
            Row("P", "us", 110), ",", Row("Q", "us", 30), ",",
            R"({"name": "P_mean", "run_name": "P", "run_type": "aggregate",)"
            R"( "time_unit": "us", "real_time": 999, "cpu_time": 999, )"
            R"("x": NaN}]})"));
    // net: a stall of 41, 45, 43 ms in ns (median 43e6 ns); and a service
    // whose rows alone carry a counter, server_cpu_us 250, 270, 260 (median
    // 260 us: a counter named *_us is in us).
    Write(
        dir_ / "net.json",
        absl::StrCat(
            R"({"benchmarks": [)", Row("S/iterations:12/real_time", "ns", 41e6),
            ",", Row("S/iterations:12/real_time", "ns", 45e6), ",",
            Row("S/iterations:12/real_time", "ns", 43e6), ",",
            Row("O/real_time", "us", 900, R"(, "server_cpu_us": 250)"), ",",
            Row("O/real_time", "us", 900, R"(, "server_cpu_us": 270)"), ",",
            Row("O/real_time", "us", 900, R"(, "server_cpu_us": 260)"), "]}"));
    // alloc: 1 MiB per page (a counter, in bytes).
    Write(dir_ / "alloc.json",
          absl::StrCat(R"({"benchmarks": [)",
                       Row("A", "ns", 5, R"(, "bytes_allocated": 1048576)"),
                       "]}"));
    Write(dir_ / "map.json", R"({"calibration": {
      "item_statement_us": {"family": "db", "benchmark": "P",
        "metric": "cpu_time", "conversion": {"minus": "Q", "multiply": 0.0125}},
      "nagle_stall_ms": {"family": "net", "benchmark": "S/real_time",
        "metric": "real_time"},
      "cpp_miss_pooled_us": {"family": "net", "benchmark": "O/real_time",
        "metric": "server_cpu_us"},
      "alloc_per_request_mib": {"family": "alloc", "benchmark": "A",
        "metric": "bytes_allocated", "conversion": {"multiply": 4}}}})");
    options_.from_dir = dir_.string();
    options_.map_path = (dir_ / "map.json").string();
    options_.seed_path = (dir_ / "absent.json").string();
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::filesystem::path dir_;
  CalibrateOptions options_;
};

TEST_F(CalibrateTest, MediansDifferencesFactorsAndUnits) {
  absl::StatusOr<CalibrationFile> f = Calibrate(options_, nullptr);
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_DOUBLE_EQ(f->values.item_statement_us, (110 - 20) * 0.0125);
  EXPECT_DOUBLE_EQ(f->values.nagle_stall_ms, 43);
  EXPECT_DOUBLE_EQ(f->values.alloc_per_request_mib, 4);
  EXPECT_DOUBLE_EQ(f->values.cpp_miss_pooled_us, 260);
  // Unmeasured: sim::Calibration's defaults, and the source says so.
  const sim::Calibration defaults;
  EXPECT_EQ(f->values.inventory_service_ms, defaults.inventory_service_ms);
  const auto& fields = sim::CalibrationFields();
  for (size_t i = 0; i < fields.size(); ++i) {
    if (fields[i].name == "inventory_service_ms") {
      EXPECT_THAT(f->sources[i], HasSubstr("not measured"));
    }
    if (fields[i].name == "item_statement_us") {
      EXPECT_THAT(f->sources[i], HasSubstr("P median cpu_time 110"));
    }
  }
  // What it writes reads back.
  EXPECT_TRUE(ParseCalibration(WriteCalibration(*f)).ok());
}

TEST_F(CalibrateTest, SeedFileFillsTheUnmeasuredFields) {
  CalibrationFile seed;
  seed.name = "seed-h2";
  seed.sources.assign(sim::CalibrationFields().size(), "the figure");
  sim::Provenance stated;
  stated.why = "a test's figure";
  seed.provenance.assign(sim::CalibrationFields().size(), stated);
  seed.values.inventory_service_ms = 7;
  seed.values.item_statement_us = 999;  // measured: must be replaced
  Write((dir_ / "seed.json").string(), WriteCalibration(seed));
  options_.seed_path = (dir_ / "seed.json").string();
  absl::StatusOr<CalibrationFile> f = Calibrate(options_, nullptr);
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_EQ(f->values.inventory_service_ms, 7);
  EXPECT_DOUBLE_EQ(f->values.item_statement_us, 1.125);
  // Provenance: the seed's, marked as copied from it, or what was measured.
  const auto& fields = sim::CalibrationFields();
  for (size_t i = 0; i < fields.size(); ++i) {
    const sim::Provenance& p = f->provenance[i];
    if (fields[i].name == "inventory_service_ms") {
      // Copied: assumed here, with the reason and the seed's own why.
      EXPECT_EQ(p.kind, sim::SourceKind::kAssumed);
      EXPECT_EQ(p.why,
                "copied from seed-h2: the scenario's stub sleeps 5 ms "
                "anywhere (seed-h2: a test's figure)");
      EXPECT_EQ(p.from, "seed-h2");
    }
    if (fields[i].name == "join_hold_ms") {
      // Fitted on the case study's stack: never copied into a measured file.
      EXPECT_EQ(f->values.join_hold_ms, 0);
      EXPECT_EQ(p.kind, sim::SourceKind::kAssumed);
      EXPECT_TRUE(p.from.empty());
      EXPECT_THAT(p.why, HasSubstr("H2/JDBC"));
    }
    if (fields[i].name == "item_statement_us") {
      EXPECT_EQ(p.kind, sim::SourceKind::kMeasured);
      EXPECT_THAT(p.benchmarks,
                  ::testing::ElementsAre("bench_db P", "bench_db Q"));
      EXPECT_EQ(p.formula, "median cpu_time of P - Q x 0.0125, in us");
      EXPECT_TRUE(p.rows.empty());
    }
  }
}

TEST_F(CalibrateTest, MissingBenchmarkOrFamilyIsOneLine) {
  std::filesystem::remove(dir_ / "net.json");
  absl::StatusOr<CalibrationFile> f = Calibrate(options_, nullptr);
  ASSERT_FALSE(f.ok());
  EXPECT_THAT(f.status().message(), HasSubstr("net.json"));
  Write(dir_ / "net.json",
        absl::StrCat(R"({"benchmarks": [)", Row("T", "ns", 1), "]}"));
  f = Calibrate(options_, nullptr);
  ASSERT_FALSE(f.ok());
  EXPECT_THAT(f.status().message(), HasSubstr("'S/real_time'"));
}

// PostgreSQL's fields from <from_dir>/pg.json: the round trip 40, 50, 45 us
// (median 45 us = 0.045 ms); the N+1 page 4000, 4100, 4050 us (median
// 4050) less the indexed first query 90, 110, 100 (median 100), over 80:
// 49.375 us. Measured, written and read back; without pg.json, 0 and why.
TEST_F(CalibrateTest, PostgresFieldsFromBenchPg) {
  Write(dir_ / "map.json", R"({"calibration": {
      "nagle_stall_ms": {"family": "net", "benchmark": "S/real_time",
        "metric": "real_time"}},
    "calibration_postgres": {
      "pg_round_trip_ms": {"family": "pg", "benchmark": "R/real_time",
        "metric": "real_time"},
      "pg_item_statement_us": {"family": "pg", "benchmark": "N/real_time",
        "metric": "real_time", "conversion": {"minus": "I/real_time",
        "multiply": 0.0125}}}})");
  absl::StatusOr<CalibrationFile> f = Calibrate(options_, nullptr);
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_FALSE(f->postgres_measured);
  EXPECT_THAT(f->postgres_absent, HasSubstr("pg.json is missing"));
  EXPECT_EQ(f->values.pg_round_trip_ms, 0);
  absl::StatusOr<CalibrationFile> back = ParseCalibration(WriteCalibration(*f));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->postgres_absent, f->postgres_absent);
  EXPECT_FALSE(back->postgres_measured);

  Write(
      dir_ / "pg.json",
      absl::StrCat(
          R"({"benchmarks": [)", Row("R/real_time", "us", 40), ",",
          Row("R/real_time", "us", 50), ",", Row("R/real_time", "us", 45), ",",
          Row("N/real_time", "us", 4000), ",", Row("N/real_time", "us", 4100),
          ",", Row("N/real_time", "us", 4050), ",",
          Row("I/real_time", "us", 90), ",", Row("I/real_time", "us", 110), ",",
          Row("I/real_time", "us", 100), "]}"));
  f = Calibrate(options_, nullptr);
  ASSERT_TRUE(f.ok()) << f.status();
  ASSERT_TRUE(f->postgres_measured);
  EXPECT_TRUE(f->postgres_absent.empty());
  EXPECT_DOUBLE_EQ(f->values.pg_round_trip_ms, 0.045);
  EXPECT_DOUBLE_EQ(f->values.pg_item_statement_us, (4050 - 100) / 80.0);
  ASSERT_EQ(f->postgres_provenance.size(), 2u);
  EXPECT_EQ(f->postgres_provenance[0].kind, sim::SourceKind::kMeasured);
  EXPECT_THAT(
      f->postgres_provenance[1].benchmarks,
      ::testing::ElementsAre("bench_pg N/real_time", "bench_pg I/real_time"));
  EXPECT_THAT(f->postgres_sources[0], HasSubstr("R/real_time median"));
  // The other fields are unaffected.
  EXPECT_DOUBLE_EQ(f->values.nagle_stall_ms, 43);
  back = ParseCalibration(WriteCalibration(*f));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_TRUE(back->postgres_measured);
  EXPECT_DOUBLE_EQ(back->values.pg_round_trip_ms, 0.045);
  EXPECT_DOUBLE_EQ(back->values.pg_item_statement_us, 49.375);
  EXPECT_EQ(back->postgres_provenance, f->postgres_provenance);
  EXPECT_EQ(back->postgres_sources, f->postgres_sources);

  // Only some fields (the canary's): PostgreSQL is not touched.
  options_.only_fields = {"nagle_stall_ms"};
  f = Calibrate(options_, nullptr);
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_FALSE(f->postgres_measured);
  EXPECT_TRUE(f->postgres_absent.empty());
}

// Run rather than read: a bench_pg that is not built, or that exits 2 with
// its one line (the server binaries missing), leaves the fields 0 with that
// reason; it is not an error.
TEST_F(CalibrateTest, PostgresAbsentIsAReasonNotAnError) {
  const std::string map = R"({"calibration": {},
    "calibration_postgres": {
      "pg_round_trip_ms": {"family": "pg", "benchmark": "R/real_time",
        "metric": "real_time"},
      "pg_item_statement_us": {"family": "pg", "benchmark": "N/real_time",
        "metric": "real_time"}}})";
  options_.from_dir.clear();
  options_.bench_dir = (dir_ / "bin").string();
  std::filesystem::create_directories(dir_ / "bin");
  CalibrationFile file;
  ASSERT_TRUE(MeasurePostgres(options_, map, file, nullptr).ok());
  EXPECT_FALSE(file.postgres_measured);
  EXPECT_THAT(file.postgres_absent, HasSubstr("bench_pg was not built"));
  const std::string bench = (dir_ / "bin" / "bench_pg").string();
  Write(bench,
        "#!/bin/sh\necho 'bench_pg: PostgreSQL server binaries not found; "
        "install the Debian package postgresql' >&2\nexit 2\n");
  std::filesystem::permissions(bench, std::filesystem::perms::owner_all);
  file = CalibrationFile{};
  ASSERT_TRUE(MeasurePostgres(options_, map, file, nullptr).ok());
  EXPECT_FALSE(file.postgres_measured);
  EXPECT_EQ(file.postgres_absent,
            "not measured: bench_pg: PostgreSQL server binaries not found; "
            "install the Debian package postgresql");
  EXPECT_EQ(file.values.pg_item_statement_us, 0);
  // A section naming an unknown field is the map's error.
  EXPECT_FALSE(MeasurePostgres(options_,
                               R"({"calibration": {}, "calibration_postgres":
      {"pg_warp_us": {"family": "pg", "benchmark": "R", "metric": "x"}}})",
                               file, nullptr)
                   .ok());
}

TEST(CalibrationMap, BadEntries) {
  auto bad = [](const std::string& json, const std::string& mentions) {
    absl::StatusOr<std::vector<FieldSource>> m = ParseCalibrationMap(json);
    ASSERT_FALSE(m.ok()) << json;
    EXPECT_THAT(m.status().message(), HasSubstr(mentions));
  };
  bad(R"({"pairs": []})", "no \"calibration\"");
  bad(R"({"calibration": {"warp_us": {"family": "db", "benchmark": "B",
        "metric": "cpu_time"}}})",
      "'warp_us' is not a calibration field");
  bad(R"({"calibration": {"gzip_us": {"family": "db"}}})",
      "needs family, benchmark and metric");
  // A factor that would turn the cost negative or to nothing (then clamped
  // at 0 as noise), or a conversion of the wrong kind, is refused.
  const std::string entry =
      R"({"calibration": {"gzip_us": {"family": "db", "benchmark": "B",
        "metric": "cpu_time", "conversion": )";
  bad(entry + R"({"multiply": -2}}}})",
      "multiply is -2; accepted: a number in (0, 1e+09]");
  bad(entry + R"({"multiply": 0}}}})", "multiply is 0;");
  bad(entry + R"({"multiply": 1e10}}}})", "multiply is 1e+10;");
  bad(entry + R"({"multiply": "2"}}}})", "multiply is not a number");
  bad(entry + R"({"minus": 3}}}})",
      "conversion.minus is not a non-empty string");
  bad(entry + R"(7}}})", "conversion is not an object");
  absl::StatusOr<std::vector<FieldSource>> ok =
      ParseCalibrationMap(entry + R"({"multiply": 0.5, "minus": "A"}}}})");
  ASSERT_TRUE(ok.ok()) << ok.status();
  EXPECT_EQ((*ok)[0].multiply, 0.5);
  EXPECT_EQ((*ok)[0].minus, "A");
}

TEST(ConvertUnit, ByHand) {
  EXPECT_DOUBLE_EQ(*ConvertUnit(2500, "ns", "us"), 2.5);
  EXPECT_DOUBLE_EQ(*ConvertUnit(2500, "us", "ms"), 2.5);
  EXPECT_DOUBLE_EQ(*ConvertUnit(3, "ms", "us"), 3000);
  EXPECT_DOUBLE_EQ(*ConvertUnit(2, "s", "ms"), 2000);
  EXPECT_DOUBLE_EQ(*ConvertUnit(3 * 1048576.0, "", "MiB"), 3);
  EXPECT_FALSE(ConvertUnit(1, "us", "MiB").ok());
}

using ::perflab::testing::FileText;

TEST(CalibrationReadme, ListsEveryFieldWithItsUnit) {
  const std::string readme = FileText("fixtures/calibration/README.md");
  ASSERT_FALSE(readme.empty()) << "run from the source root";
  for (const sim::CalibrationField& f : sim::CalibrationFields()) {
    EXPECT_THAT(readme,
                HasSubstr(absl::StrCat("| `", std::string(f.name), "` | ",
                                       std::string(f.unit), " |")))
        << f.name << ": regenerate with perflab calibrate --schema --format md";
  }
}

TEST(CommittedCalibrations, Parse) {
  for (const char* path :
       {"fixtures/calibration/reference-xeon-2vcpu-2026-12.json",
        "fixtures/calibration/seed-h2.json"}) {
    if (!std::filesystem::exists(path)) continue;  // seed-h2: MODEL's file
    absl::StatusOr<CalibrationFile> f = ReadCalibrationFile(path);
    EXPECT_TRUE(f.ok()) << f.status();
  }
  EXPECT_TRUE(std::filesystem::exists(
      "fixtures/calibration/reference-xeon-2vcpu-2026-12.json"));
}

}  // namespace
}  // namespace perflab::capstone
