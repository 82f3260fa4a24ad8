// perflab capstone / calibrate through the CLI: every bad input is one line
// on stderr naming the input and what is accepted, exit 2, nothing on stdout
// and no report written.
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/sanitizers.h"
#include "tests/tools/cli_runner.h"
#include "tools/calibration/calibration_io.h"

namespace perflab::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

constexpr char kReference[] =
    "fixtures/calibration/reference-xeon-2vcpu-2026-12.json";

class CapstoneCli : public ::testing::Test {
 protected:
  void SetUp() override {
    out_ = std::filesystem::temp_directory_path() /
           absl::StrCat("perflab_capstone_cli_", getpid());
    std::filesystem::remove_all(out_);
  }
  void TearDown() override { std::filesystem::remove_all(out_); }

  void ExpectBad(std::vector<std::string> args, const std::string& mentions) {
    args.emplace_back("--out-dir");
    args.push_back(out_.string());
    CliResult r = RunCli(args);
    perflab::testing::ExpectOneLineExit2(r, mentions);
    EXPECT_THAT(r.err, HasSubstr("accepted"));
    EXPECT_FALSE(std::filesystem::exists(out_)) << "a report was written";
  }

  // An option of --sensitivity's: each bad value refused with what is
  // accepted, and the option refused without --sensitivity and beside
  // --validate (which has no sensitivity).
  void ExpectSensitivityOption(const std::string& option,
                               const std::vector<std::string>& bad_values,
                               const std::string& accepted) {
    for (const std::string& bad : bad_values) {
      ExpectBad(
          {"capstone", "--calibration", kReference, "--sensitivity", option,
           bad},
          absl::StrCat(option, ": got '", bad, "'; accepted: ", accepted));
    }
    ExpectBad({"capstone", "--calibration", kReference, option, "2"},
              option + " requires --sensitivity");
    ExpectBad({"capstone", "--validate", "--sensitivity", option, "2"},
              "--validate: cannot be combined with --sensitivity");
  }

  std::string Bad(const std::string& name, const std::string& text) {
    std::filesystem::create_directories(out_.string() + "_in");
    std::string path = out_.string() + "_in/" + name;
    std::ofstream(path) << text;
    return path;
  }

  std::filesystem::path out_;
};

TEST_F(CapstoneCli, BadStepsPricesAndUtilisation) {
  ExpectBad({"capstone", "--calibration", kReference, "--steps", "index,idx"},
            "unknown step 'idx'");
  ExpectBad({"capstone", "--calibration", kReference, "--steps", "cache,cache"},
            "'cache' is repeated");
  ExpectBad(
      {"capstone", "--calibration", kReference, "--usd-per-vcpu-hour", "-1"},
      "--usd-per-vcpu-hour");
  ExpectBad(
      {"capstone", "--calibration", kReference, "--target-utilisation", "1.5"},
      "(0, 1]");
  ExpectBad(
      {"capstone", "--calibration", kReference, "--db-round-trip-ms", "nan"},
      "--db-round-trip-ms");
  CliResult r = RunCli({"capstone", "--calibration", kReference, "--format",
                        "xml", "--out-dir", out_.string()});
  EXPECT_EQ(r.code, 2);
  EXPECT_THAT(r.err, HasSubstr("not in {table,json,csv,md}"));
  EXPECT_FALSE(std::filesystem::exists(out_));
}

// The path once, after the option that named it.
size_t Count(const std::string& text, const std::string& piece) {
  size_t n = 0;
  for (size_t at = text.find(piece); at != std::string::npos;
       at = text.find(piece, at + 1)) {
    ++n;
  }
  return n;
}

TEST_F(CapstoneCli, BadCalibrationFiles) {
  ExpectBad({"capstone", "--calibration", "/nonexistent.json"},
            "--calibration '/nonexistent.json': cannot open");
  CliResult r = RunCli({"capstone", "--calibration", "/nonexistent.json"});
  EXPECT_EQ(Count(r.err, "/nonexistent.json"), 1u) << r.err;
  r = RunCli({"calibrate", "--schema", "--map", "/nonexistent-map.json"});
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_THAT(r.err, HasSubstr("--map '/nonexistent-map.json': cannot open"));
  EXPECT_EQ(Count(r.err, "/nonexistent-map.json"), 1u) << r.err;
  // The measuring path reads the map itself (tools/calibration/calibrate.cc).
  r = RunCli({"calibrate", "--from", out_.string(), "--map",
              "/nonexistent-map.json", "--out", out_.string() + "_cal.json"});
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_THAT(r.err, HasSubstr("--map '/nonexistent-map.json': cannot open"));
  EXPECT_EQ(Count(r.err, "/nonexistent-map.json"), 1u) << r.err;
  EXPECT_FALSE(std::filesystem::exists(out_.string() + "_cal.json"));
  ExpectBad({"capstone", "--calibration", Bad("broken.json", "{\"format\": ")},
            "malformed JSON");
  std::filesystem::remove_all(out_.string() + "_in");
}

// --validate derives its own calibration and runs exactly the ten steps in
// the case study's order: other steps, or a flag it cannot honour, are bad
// input (and it writes nothing).
TEST_F(CapstoneCli, ValidateRejectsStepsAndFlagsItCannotHonour) {
  ExpectBad({"capstone", "--validate", "--steps", "index,join"},
            "--validate: --steps 'index,join' is not the case study's ten");
  ExpectBad({"capstone", "--validate", "--steps",
             "index,join,keep-alive,tcp-nodelay,virtual-threads,pool-8,cache,"
             "heap-768,right-size"},
            "not the case study's ten steps in its order");
  ExpectBad({"capstone", "--validate", "--steps", "index,idx"},
            "unknown step 'idx'");
  for (std::vector<std::string> flag :
       {std::vector<std::string>{"--calibration", kReference},
        {"--sensitivity"},
        {"--db-round-trip-ms", "0.5"},
        {"--cpu-discipline", "ps"},
        {"--real"},
        {"--list-steps"},
        {"--usd-per-vcpu-hour", "0.05"}}) {
    std::vector<std::string> args = {"capstone", "--validate"};
    args.insert(args.end(), flag.begin(), flag.end());
    // ExpectBad adds --out-dir, which --real already refuses at parsing.
    ExpectBad(args,
              flag.front() == "--real"
                  ? "--out-dir excludes --real"
                  : "--validate: cannot be combined with " + flag.front());
  }
}

// --db is checked before anything runs: an unknown database, --db without
// --real, and PostgreSQL with a calibration that has no PostgreSQL costs
// (the reference fixture predates them) or, where the server is absent, the
// package to install, each one line and exit 2, before any step.
TEST_F(CapstoneCli, RealDbIsCheckedFirst) {
  CliResult r = RunCli({"capstone", "--real", "--db", "mysql", "--calibration",
                        kReference, "--steps", "index"});
  perflab::testing::ExpectOneLineExit2(r, "--db");
  EXPECT_THAT(r.err, HasSubstr("mysql"));
  EXPECT_THAT(r.err, HasSubstr("postgres"));
  r = RunCli({"capstone", "--db", "postgres", "--calibration", kReference});
  perflab::testing::ExpectOneLineExit2(r, "--db");
  EXPECT_THAT(r.err, HasSubstr("--real"));
  r = RunCli({"capstone", "--real", "--db", "postgres", "--calibration",
              kReference, "--steps", "index"});
  perflab::testing::ExpectOneLineExit2(r, "--db postgres");
  EXPECT_THAT(r.err,
              ::testing::AnyOf(HasSubstr("has no PostgreSQL costs"),
                               HasSubstr("postgresql"), HasSubstr("libpq")));
  EXPECT_THAT(r.err, Not(HasSubstr("step 1/")));
}

TEST_F(CapstoneCli, ListStepsIsTheKeyValueOfEach) {
  CliResult r = RunCli({"capstone", "--list-steps", "--format", "csv"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("heap-768,heap_mib=768"));
  EXPECT_THAT(r.out, HasSubstr("right-size,cores=4"));
}

// --db-round-trip-ms replaces a field of the file, so the run is not the
// file's: its JSON names the override and its identity is not the file's
// own hash (the sha256 of its bytes), which a run without it keeps.
TEST_F(CapstoneCli, AnOverrideIsPartOfTheCalibrationsIdentity) {
  std::ifstream in(kReference, std::ios::binary);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  const std::string file_hash = capstone::ContentHash(bytes.str());
  ASSERT_EQ(file_hash.rfind("sha256:", 0), 0u);
  const std::vector<std::string> run = {
      "capstone", "--calibration", kReference,  "--steps",    "join",
      "--format", "json",          "--out-dir", out_.string()};
  CliResult plain = RunCli(run);
  ASSERT_EQ(plain.code, 0) << plain.err;
  EXPECT_THAT(plain.out, HasSubstr(absl::StrCat("\"hash\": \"", file_hash,
                                                "\",\n    \"overrides\": {}")));
  std::vector<std::string> with = run;
  with.insert(with.end(), {"--db-round-trip-ms", "0.5"});
  CliResult changed = RunCli(with);
  ASSERT_EQ(changed.code, 0) << changed.err;
  EXPECT_THAT(changed.out, HasSubstr("\"overrides\": {\n      "
                                     "\"db_round_trip_ms\": 0.5\n    }"));
  EXPECT_THAT(changed.out, Not(HasSubstr(file_hash)));
  EXPECT_THAT(changed.out, HasSubstr("\"hash\": \"sha256:"));
}

// --seed is the first repeat's: 42 is the default's table byte for byte,
// another seed gives seeds seed, seed + 1, seed + 2 and other draws. The
// largest accepted is 2^63 - 1 - 2, so that the third repeat's seed still
// fits the JSON record's signed 64-bit integer.
TEST_F(CapstoneCli, SeedIsTheFirstRepeatsSeed) {
  for (const char* bad : {"-1", "9223372036854775806", "4.2", "0x10"}) {
    ExpectBad({"capstone", "--calibration", kReference, "--seed", bad},
              absl::StrCat("--seed: got '", bad,
                           "'; accepted: an integer in [0, "
                           "9223372036854775805]"));
  }
  ExpectBad({"capstone", "--real", "--seed", "7"}, "--seed excludes --real");
  auto table = [this](const std::vector<std::string>& extra) {
    std::vector<std::string> args = {
        "capstone", "--calibration", kReference,  "--steps",    "join",
        "--format", "json",          "--out-dir", out_.string()};
    args.insert(args.end(), extra.begin(), extra.end());
    CliResult r = RunCli(args);
    EXPECT_EQ(r.code, 0) << r.err;
    return r.out;
  };
  const std::string plain = table({});
  const std::string same = table({"--seed", "42"});
  const std::string other = table({"--seed", "7"});
  EXPECT_TRUE(plain == same) << "--seed 42 is not the default";
  EXPECT_THAT(plain, HasSubstr("\"seeds\": [\n    42,\n    43,\n    44\n  ]"));
  EXPECT_THAT(other, HasSubstr("\"seeds\": [\n    7,\n    8,\n    9\n  ]"));
  // The table after the seeds: other draws, other figures.
  const size_t from = plain.find("\"example_prices\"");
  ASSERT_NE(from, std::string::npos);
  EXPECT_NE(plain.substr(from), other.substr(other.find("\"example_prices\"")));
}

// --validate records the --seed it is given: 7 gives 7, 8, 9 as above. That
// its runs use those seeds is Validate.RunsWithTheSeedItIsGiven; this checks
// that the CLI hands the seed over. A whole validation: about 2 s of CPU in
// release, 75 s under ASan, where the validation's parts are checked by
// validate_test (Validate.*) and composer_test, so there it is skipped.
TEST_F(CapstoneCli, ValidateTakesTheSeed) {
  if (kSanitized) GTEST_SKIP() << "a whole validation: release only";
  CliResult r = RunCli({"capstone", "--validate", "--seed", "7", "--format",
                        "json", "--out-dir", out_.string()});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("\"seeds\": [\n    7,\n    8,\n    9\n  ]"));
}

// --sensitivity-seeds: 1 to the 3 repeats, only beside --sensitivity.
TEST_F(CapstoneCli, SensitivitySeedsAreOneToTheRepeats) {
  ExpectSensitivityOption("--sensitivity-seeds", {"0", "4", "-1", "2.5"},
                          "an integer in [1, 3]");
}

// --sensitivity-warmup: seconds in (0, 60], only beside --sensitivity; the
// composition records it (what it says of it:
// Composer.SensitivityRunsWarmUpShortUnlessTheCacheIsOn).
TEST_F(CapstoneCli, SensitivityWarmupIsSecondsUpToAMinute) {
  ExpectSensitivityOption("--sensitivity-warmup",
                          {"0", "-1", "60.5", "nan", "2s"},
                          "a number in (0, 60]");
  CliResult r = RunCli({"capstone", "--calibration", kReference, "--steps",
                        "join", "--sensitivity", "--sensitivity-warmup", "0.5",
                        "--format", "json", "--out-dir", out_.string()});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("\"sensitivity_warmup_s\": 0.5"));
}

// --cpu-discipline: a name it does not know, or sliced where the calibration
// measured no scheduling (the reference keeps processor sharing), is refused.
TEST_F(CapstoneCli, CpuDisciplineNamesAndWhatTheyNeed) {
  ExpectBad(
      {"capstone", "--calibration", kReference, "--cpu-discipline", "fifo"},
      "--cpu-discipline: unknown value 'fifo'; accepted: ps, sliced");
  ExpectBad(
      {"capstone", "--calibration", kReference, "--cpu-discipline", "sliced"},
      "has sched_quantum_us 0");
  ExpectBad({"capstone", "--real", "--cpu-discipline", "ps"},
            "--cpu-discipline excludes --real");
}

// ps is the calibration with its quantum at 0: the same composed table as a
// copy of seed-h2 edited by hand to a quantum of 0, and not seed-h2's own
// (time-sliced) table. Only the calibration's identity differs.
TEST_F(CapstoneCli, CpuDisciplinePsIsTheQuantumAtZero) {
  const std::string seed = "fixtures/calibration/seed-h2.json";
  std::ifstream in(seed, std::ios::binary);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  std::string edited = bytes.str();
  const std::string quantum = "\"sched_quantum_us\": {\n      \"value\": ";
  const size_t at = edited.find(quantum);
  ASSERT_NE(at, std::string::npos);
  const size_t end = edited.find(',', at + quantum.size());
  edited.replace(at + quantum.size(), end - at - quantum.size(), "0");
  const std::string ps_file = Bad("seed-h2-ps.json", edited);
  auto table = [this](const std::vector<std::string>& extra) {
    std::vector<std::string> args = {"capstone", "--steps",   "join",
                                     "--format", "json",      "--jobs",
                                     "1",        "--out-dir", out_.string()};
    args.insert(args.end(), extra.begin(), extra.end());
    CliResult r = RunCli(args);
    EXPECT_EQ(r.code, 0) << r.err;
    const size_t from = r.out.find("\"seeds\"");
    EXPECT_NE(from, std::string::npos) << r.out;
    return from == std::string::npos ? std::string() : r.out.substr(from);
  };
  const std::string by_flag =
      table({"--calibration", seed, "--cpu-discipline", "ps"});
  const std::string by_file = table({"--calibration", ps_file});
  const std::string sliced = table({"--calibration", seed});
  EXPECT_FALSE(by_flag.empty());
  // Whole tables: a mismatch would print pages, so it says which.
  EXPECT_TRUE(by_flag == by_file) << "ps differs from the quantum at 0";
  EXPECT_TRUE(by_flag != sliced) << "ps composed the time-sliced table";
  std::filesystem::remove_all(out_.string() + "_in");
}

TEST_F(CapstoneCli, CalibrateBadInputWritesNothing) {
  const std::string out = out_.string() + "/calibration.json";
  CliResult r =
      RunCli({"calibrate", "--from", "/nonexistent-dir", "--out", out});
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_THAT(r.err, HasSubstr("/nonexistent-dir"));
  EXPECT_FALSE(std::filesystem::exists(out));
}

}  // namespace
}  // namespace perflab::testing
