// tools/perflab/cli.h: how a flag's default is shown, and, for every flag
// whose help names a default, that the help shows the value the flag really
// starts with: the Options struct or constant it is initialised from. The
// help is read back from `--help` and parsed, so a default typed into a help
// text by hand, or an Options default changed without the help, fails here.
#include "tools/perflab/cli.h"

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <ostream>
#include <sstream>
#include <streambuf>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "bench/http/http_server.h"
#include "bench/http/load_client.h"
#include "bench/order_service/dataset.h"
#include "bench/order_service/server.h"
#include "core/case_study.h"
#include "gtest/gtest.h"
#include "models/cost.h"
#include "rapidjson/document.h"
#include "sim/scenarios/scenario.h"
#include "tests/temp_dir.h"
#include "tests/tools/cli_runner.h"
#include "tools/calibration/calibrate.h"
#include "tools/calibration/calibration_io.h"
#include "tools/capstone/composer.h"
#include "tools/compare/compare.h"
#include "tools/perflab/commands.h"
#include "tools/perflab/serve_flags.h"
#include "tools/sweep/experiment.h"

namespace perflab::cli {
namespace {

using ::perflab::testing::ExpectOneLineExit2;
using ::perflab::testing::RunCli;

TEST(CliDefaultText, NumbersAsTheHelpShowsThem) {
  EXPECT_EQ(DefaultText(0.05), "0.05");
  EXPECT_EQ(DefaultText(0.0045), "0.0045");
  EXPECT_EQ(DefaultText(1.0), "1");
  EXPECT_EQ(DefaultText(30000.0), "30000");
  EXPECT_EQ(DefaultText(0.04, 3), "0.040");  // trailing zero kept
  EXPECT_EQ(DefaultText(0), "0");
  EXPECT_EQ(DefaultText(int64_t{1000000}), "1000000");  // never 1e+06
  EXPECT_EQ(DefaultText(uint64_t{18446744073709551615u}),
            "18446744073709551615");
}

TEST(CliDefaultText, WordsAndLists) {
  EXPECT_EQ(DefaultText("reports/calibration.json"),
            "reports/calibration.json");
  EXPECT_EQ(DefaultText(std::vector<double>{}), "");
  EXPECT_EQ(DefaultText(std::vector<double>{1, 2.5, 4, 8}), "1,2.5,4,8");
  EXPECT_EQ(DefaultText(std::vector<double>{1, 2, 4, 8, 16}), "1,2,4,...,16");
  EXPECT_EQ(WithDefault("port", "0"), "port (default 0)");
}

// The help text of `flag` in `perflab <command...> --help`: from the flag
// to the next option (CLI11 puts a long option's text on the next line).
std::string FlagHelp(std::vector<std::string> command,
                     const std::string& flag) {
  command.emplace_back("--help");
  const testing::CliResult r = RunCli(command);
  EXPECT_EQ(r.code, 0) << r.err;
  const std::string start = "  " + flag + " ";
  const size_t at = r.out.find(start);
  if (at == std::string::npos) {
    ADD_FAILURE() << flag << " not in the help of "
                  << absl::StrJoin(command, " ") << ":\n"
                  << r.out;
    return "";
  }
  const size_t end = r.out.find("\n  -", at + start.size());
  return r.out.substr(at, end == std::string::npos ? end : end - at);
}

// What the help says after `marker` ("default " or "seed: "): a number, word
// or path up to a space, ')' or ':'.
std::string Shown(const std::vector<std::string>& command,
                  const std::string& flag,
                  const std::string& marker = "default ") {
  const std::string help = FlagHelp(command, flag);
  for (size_t at = help.find(marker); at != std::string::npos;
       at = help.find(marker, at + 1)) {
    const size_t from = at + marker.size();
    const size_t to = help.find_first_of(" ):", from);
    if (to != from) return help.substr(from, to - from);
  }
  ADD_FAILURE() << flag << ": no '" << marker << "' in " << help;
  return "";
}

double ShownNumber(const std::vector<std::string>& command,
                   const std::string& flag,
                   const std::string& marker = "default ") {
  const std::string text = Shown(command, flag, marker);
  double v = 0;
  EXPECT_TRUE(absl::SimpleAtod(text, &v)) << flag << ": '" << text << "'";
  return v;
}

TEST(CliHelpDefaults, CostPricesAreCostOptions) {
  const models::CostOptions cost;
  for (const std::vector<std::string>& cmd :
       {std::vector<std::string>{"capstone"},
        std::vector<std::string>{"models", "cost"}}) {
    EXPECT_EQ(ShownNumber(cmd, "--usd-per-vcpu-hour"), cost.usd_per_vcpu_hour);
    EXPECT_EQ(ShownNumber(cmd, "--usd-per-gib-hour"), cost.usd_per_gib_hour);
    EXPECT_EQ(ShownNumber(cmd, "--target-utilisation"),
              cost.target_utilisation);
  }
  // The help keeps the price's third decimal, as a price list would.
  EXPECT_EQ(Shown({"models", "cost"}, "--usd-per-vcpu-hour"), "0.040");
}

TEST(CliHelpDefaults, CapstoneAndCalibrate) {
  EXPECT_EQ(ShownNumber({"capstone"}, "--jobs"),
            capstone::ComposeOptions().jobs);
  EXPECT_EQ(Shown({"capstone"}, "--calibration"),
            capstone::kDefaultCalibrationPath);
  EXPECT_EQ(Shown({"calibrate"}, "--out"), capstone::kDefaultCalibrationPath);
  EXPECT_EQ(Shown({"capstone"}, "--out-dir"), "reports");
  EXPECT_EQ(Shown({"calibrate"}, "--map"), capstone::kMapPath);
  // Found at run time (tests/core/data_paths_test.cc has the layouts).
  EXPECT_TRUE(absl::EndsWith(capstone::DefaultMapPath(), capstone::kMapPath));
  for (const char* cmd : {"capstone", "calibrate", "compare"}) {
    EXPECT_EQ(Shown({cmd}, "--format"), "table") << cmd;
  }
  EXPECT_EQ(Shown({"models", "mmc"}, "--format"), "table");
  EXPECT_EQ(Shown({"sim"}, "--format"), "table");
}

TEST(CliHelpDefaults, CompareIsCompareOptions) {
  const compare::Options o;
  EXPECT_EQ(ShownNumber({"compare"}, "--alpha"), o.alpha);
  EXPECT_EQ(ShownNumber({"compare"}, "--threshold"), o.threshold_pct);
  EXPECT_EQ(Shown({"compare"}, "--metric"), o.metric);
}

TEST(CliHelpDefaults, ModelsLaws) {
  EXPECT_EQ(ShownNumber({"models", "little"}, "--headroom"),
            case_study::kLittleHeadroom);
  EXPECT_EQ(Shown({"models", "amdahl"}, "--workers"), "1,2,4,...,64");
  EXPECT_EQ(Shown({"models", "usl"}, "--workers"), "1,2,4,...,64");
  EXPECT_EQ(Shown({"models", "percentiles"}, "--percentiles"),
            "50,90,95,...,99.9");
  EXPECT_EQ(ShownNumber({"models", "what-if"}, "--speedup"), 10);
  EXPECT_TRUE(absl::StrContains(
      FlagHelp({"models", "what-if"}, "--stage"),
      "(default the seed's app=30 db=650 serialisation=20 other=100)"));
  EXPECT_EQ(ShownNumber({"models", "mg1"}, "--service-cv"), 1);  // M/M/1
  EXPECT_EQ(ShownNumber({"models", "usl"}, "--sigma", "seed: "),
            case_study::kUslSigma);
  EXPECT_EQ(ShownNumber({"models", "usl"}, "--kappa", "seed: "),
            case_study::kUslKappa);
}

TEST(CliHelpDefaults, DatasetIsDatasetOptions) {
  const orders::DatasetOptions d;
  EXPECT_EQ(ShownNumber({"fixtures", "build"}, "--scale"), d.scale);
  EXPECT_EQ(ShownNumber({"fixtures", "build"}, "--seed"),
            static_cast<double>(d.seed));
  EXPECT_TRUE(absl::StrContains(FlagHelp({"fixtures", "build"}, "--out"),
                                orders::DefaultDatasetPath(d.scale)));
  EXPECT_EQ(ShownNumber({"orders-service"}, "--scale"), d.scale);
}

TEST(CliHelpDefaults, OrdersServiceIsOrdersServiceOptions) {
  const orders::OrdersServiceOptions o;
  const std::vector<std::string> cmd = {"orders-service"};
  EXPECT_EQ(Shown(cmd, "--host"), o.host);
  EXPECT_EQ(ShownNumber(cmd, "--port"), o.port);
  EXPECT_EQ(ShownNumber(cmd, "--threads"), o.threads);
  EXPECT_EQ(ShownNumber(cmd, "--inventory-ms"), o.inventory_ms);
  EXPECT_EQ(ShownNumber(cmd, "--db-pool"), o.handler.db_pool);
  EXPECT_EQ(ShownNumber(cmd, "--db-timeout-ms"),
            o.handler.db_acquire_timeout_ms);
  EXPECT_EQ(ShownNumber(cmd, "--max-seconds"), kDefaultMaxSeconds);
}

TEST(CliHelpDefaults, ServeAndLoadAreTheirOptions) {
  const http::HttpServerOptions s;
  EXPECT_EQ(Shown({"serve"}, "--host"), s.host);
  EXPECT_EQ(ShownNumber({"serve"}, "--port"), s.port);
  EXPECT_EQ(ShownNumber({"serve"}, "--threads"), s.threads);
  EXPECT_EQ(ShownNumber({"serve"}, "--keepalive-timeout-s"),
            s.keepalive_timeout_s);
  EXPECT_EQ(ShownNumber({"serve"}, "--max-seconds"), kDefaultMaxSeconds);
  const http::LoadOptions l;
  EXPECT_EQ(ShownNumber({"load"}, "--timeout-ms"), l.timeout_ms);
  EXPECT_EQ(ShownNumber({"load"}, "--max-requests"),
            static_cast<double>(l.max_requests));
  EXPECT_EQ(ShownNumber({"load"}, "--connections"), 64);
}

TEST(CliHelpDefaults, SeedsAndReplications) {
  EXPECT_EQ(ShownNumber({"sim", "mmc"}, "--seed"),
            static_cast<double>(sim::kDefaultSeed));
  const sweep::Experiment e;
  EXPECT_EQ(ShownNumber({"sweep"}, "--replications"),
            static_cast<double>(e.replications));
  EXPECT_EQ(ShownNumber({"sweep"}, "--seed"), static_cast<double>(e.seed));
}

// Every --seed (fixtures build, sim, sweep) is decimal digits in
// [0, 2^64 - 1]: SimpleAtoi would read "+16" and " 16" as 16, strtoull
// "0x10" as 16. 18446744073709551616 is 2^64, one past the range.
TEST(CliSeeds, EverySeedIsDecimalDigitsOnly) {
  const std::filesystem::path never =
      std::filesystem::path(::testing::TempDir()) / "cli-seeds-never.db";
  std::filesystem::remove(never);
  const std::vector<std::vector<std::string>> commands = {
      {"fixtures", "build", "--out", never.string()},
      {"sim", "mmc"},
      {"sweep", "mmc"}};
  for (const std::vector<std::string>& command : commands) {
    for (const char* seed :
         {"+16", " 16", "16 ", "0x10", "1e400", "-1", "18446744073709551616"}) {
      std::vector<std::string> args = command;
      args.insert(args.end(), {"--seed", seed});
      ExpectOneLineExit2(args, absl::StrCat("--seed: got '", seed,
                                            "'; accepted: an integer in [0, "
                                            "18446744073709551615]"));
    }
  }
  EXPECT_FALSE(std::filesystem::exists(never));
  // The runners' own reading of the checked text, the same rule.
  EXPECT_EQ(*ParseSeed("--seed", "18446744073709551615"), UINT64_MAX);
  EXPECT_EQ(ParseSeed("--seed", "+16").status().message(),
            "--seed: got '+16'; accepted: an integer in [0, "
            "18446744073709551615]");
}

// Numbers that size threads, runs or a file: each bound is refused past its
// end in one line, and the help states the same range (one definition).
// 4294967297 is 2^32 + 1, which a cast to int made 1 before --jobs had an
// upper bound; 10000001 is one past sweep's R limit.
TEST(CliBounds, SweepJobsAndReplicationsHaveBothEnds) {
  for (const char* jobs : {"1025", "4294967297"}) {
    ExpectOneLineExit2({"sweep", "mmc", "--jobs", jobs},
                       absl::StrCat("--jobs = '", jobs,
                                    "': accepted an integer in [1, 1024]"));
  }
  ExpectOneLineExit2(
      {"sweep", "mmc", "--replications", "10000001"},
      "--replications = '10000001': accepted an integer in [1, 10000000]");
  EXPECT_TRUE(absl::StrContains(FlagHelp({"sweep"}, "--jobs"),
                                "an integer in [1, 1024]"));
  EXPECT_TRUE(absl::StrContains(FlagHelp({"sweep"}, "--replications"),
                                "an integer in [1, 10000000]"));
}

TEST(CliBounds, FixturesScaleHelpAndCheckAgree) {
  const std::filesystem::path never =
      std::filesystem::path(::testing::TempDir()) / "cli-bounds-never.db";
  for (const char* scale : {"10.5", "0", "1e400"}) {
    ExpectOneLineExit2(
        {"fixtures", "build", "--scale", scale, "--out", never.string()},
        absl::StrCat("--scale: got '", scale,
                     "'; accepted: a number in (0, 10]"));
  }
  EXPECT_FALSE(std::filesystem::exists(never));
  EXPECT_TRUE(absl::StrContains(FlagHelp({"fixtures", "build"}, "--scale"),
                                "a number in (0, 10]"));
}

TEST(CliBounds, ServerThreadsHelpStatesTheCheckedRange) {
  ExpectOneLineExit2(
      {"serve", "--threads", "4097", "--max-seconds", "0.001"},
      "--threads = '4097'; accepted: an integer in [1, 4096] or 'virtual'");
  EXPECT_TRUE(absl::StrContains(FlagHelp({"serve"}, "--threads"),
                                "an integer in [1, 4096], or 'virtual'"));
  EXPECT_TRUE(absl::StrContains(FlagHelp({"orders-service"}, "--threads"),
                                "an integer in [1, 1024], or 'virtual'"));
  EXPECT_TRUE(absl::StrContains(FlagHelp({"models", "mva"}, "--clients"),
                                "1 <= A <= B <= 1000000000, B - A < 100000"));
}

TEST(CliOneLine, EscapesControlBytes) {
  EXPECT_EQ(OneLine("a\nb\rc\td\x01"
                    "e\x7f"),
            "a\\nb\\rc\\td\\x01e\\x7f");
  EXPECT_EQ(OneLine("caf\xc3\xa9 ok"), "caf\xc3\xa9 ok");  // UTF-8 kept
}

TEST(CliOneLine, CutsLongMessagesAtACharacter) {
  EXPECT_EQ(OneLine(std::string(1000, 'x'), 100),
            std::string(100, 'x') + "... (1000 bytes in all)");
  // Never inside a UTF-8 sequence: "a" then the two bytes of e-acute.
  EXPECT_EQ(OneLine("a\xc3\xa9", 2), "a... (3 bytes in all)");
  EXPECT_EQ(OneLine(std::string(100, 'x'), 100), std::string(100, 'x'));
}

// What each validator lets through ("" = accepted), at and past its bounds.
std::string Check(const CLI::Validator& v, std::string text) { return v(text); }

TEST(CliValidators, DurationsUpToAMillionSeconds) {
  EXPECT_EQ(Check(Seconds(), "0"), "");
  EXPECT_EQ(Check(Seconds(), "1e6"), "");
  EXPECT_NE(Check(Seconds(), "1000000.5"), "");
  EXPECT_NE(Check(Seconds(true), "0"), "");
  EXPECT_NE(Check(Seconds(), "1e19"), "");
  EXPECT_NE(Check(Seconds(), "inf"), "");
  EXPECT_NE(Check(Seconds(), "nan"), "");
  EXPECT_EQ(Check(Millis(), "1e9"), "");
  EXPECT_NE(Check(Millis(), "1.0000001e9"), "");
  EXPECT_NE(Check(Millis(true), "0"), "");
  EXPECT_NE(Check(Millis(), "-1"), "");
  EXPECT_EQ(Check(PositiveAtMost(10), "10"), "");
  EXPECT_NE(Check(PositiveAtMost(10), "10.5"), "");
}

TEST(CliValidators, IntegersInTheirRangeWrittenPlainly) {
  for (const char* ok : {"1", "1024", "512"}) {
    EXPECT_EQ(Check(IntIn(1, 1024), ok), "") << ok;
  }
  for (const char* bad : {"0", "1025", "NaN", " 1", "+1", "0x10", "1.0", "",
                          "-", "99999999999999999999999"}) {
    EXPECT_NE(Check(IntIn(1, 1024), bad), "") << bad;
  }
  EXPECT_EQ(Check(IntIn(-5, 5), "-5"), "");
  EXPECT_NE(Check(IntIn(1, 1024), "-1").find("[1, 1024]"), std::string::npos);
}

TEST(CliValidators, SeedsInZeroToTwoToThe64) {
  EXPECT_EQ(Check(Seed(), "0"), "");
  EXPECT_EQ(Check(Seed(), "18446744073709551615"), "");
  for (const char* bad :
       {"18446744073709551616", "-1", "+1", "1e3", "", " 7", "7 "}) {
    EXPECT_NE(Check(Seed(), bad), "") << bad;
  }
}

// Numbers that size a loop or a wait are bounded both ways: a rate of
// 1e-300 req/s (a send interval beyond any duration) and a worker count of
// 1e-320 are refused, naming the range; the bounds themselves pass.
TEST(CliValidators, RatesAndCountsAreBoundedBothWays) {
  testing::ExpectOneLineExit2(
      {"load", "http://127.0.0.1:9/", "--rate", "1e-300"},
      "a number in [0.001, 1e+09]");
  testing::ExpectOneLineExit2({"load", "http://127.0.0.1:9/", "--rate", "2e9"},
                              "--rate");
  testing::ExpectOneLineExit2(
      {"models", "amdahl", "--serial", "0.1", "--workers", "1e-320"},
      "a number in [1, 1e+09]");
  testing::ExpectOneLineExit2({"models", "usl", "--sigma", "0.1", "--kappa",
                               "0.01", "--workers", "2e9"},
                              "--workers");
  EXPECT_EQ(testing::RunCli(
                {"models", "amdahl", "--serial", "0.1", "--workers", "1,1e9"})
                .code,
            0);
}

// A number with spaces around it is refused by the check, naming it, before
// CLI11's own conversion could refuse "5 " in its words.
TEST(CliValidators, SpacesAroundANumberAreRefused) {
  for (const char* v : {"5 ", " 5"}) {
    testing::ExpectOneLineExit2(
        {"models", "mg1", "--arrival-rate-per-s", v, "--mean-service-ms", "1"},
        absl::StrCat("--arrival-rate-per-s: got '", v,
                     "'; accepted: a finite number > 0"));
  }
  EXPECT_EQ(RunCli({"models", "mg1", "--arrival-rate-per-s", "5",
                    "--mean-service-ms", "1"})
                .code,
            0);
}

TEST(CliEachNameOnce, RefusesARepeatedName) {
  EXPECT_TRUE(EachNameOnce("--stage", {"db=5", "app=6", "dbx=1"}).ok());
  absl::Status s = EachNameOnce("--stage", {"db=5", "app=1", "db=6"});
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(s.message(), "'db' given twice")) << s;
}

// A stream that takes no byte, as stdout does on a full disk.
class FullBuffer : public std::streambuf {
 protected:
  int_type overflow(int_type) override { return traits_type::eof(); }
  std::streamsize xsputn(const char*, std::streamsize) override { return 0; }
};

// Output that could not be written is exit 2 and one line, not the 0 the
// command (or its --help) would have returned.
TEST(CliContract, OutputThatCannotBeWrittenIsNoSuccess) {
  for (std::vector<const char*> argv :
       {std::vector<const char*>{"perflab", "models", "tour"},
        std::vector<const char*>{"perflab", "sim", "--help"}}) {
    FullBuffer full;
    std::ostream out(&full);
    std::ostringstream err;
    EXPECT_EQ(Main(static_cast<int>(argv.size()), argv.data(), out, err), 2)
        << argv[1];
    EXPECT_TRUE(absl::StartsWith(
        err.str(), "perflab: the output could not be written to stdout; "))
        << err.str();
    EXPECT_EQ(err.str().find('\n'), err.str().size() - 1) << err.str();
  }
}

TEST(CliContract, EmptyValuesAndUnknownOptionsNamedFirst) {
  testing::ExpectOneLineExit2({"sweep", "mmc", "--shard", ""},
                              "--shard: got an empty value; accepted: I/N");
  testing::ExpectOneLineExit2({"models", "mmc", "--bogus", "1"},
                              "unknown option '--bogus'; accepted: --servers");
  testing::ExpectOneLineExit2({"sim", "mmc", "--set", "a\nb=1"}, "a\\nb");
}

// CLI11 keeps an option's Excludes in a set of pointers; the help lists
// them by name, or it would read differently from run to run.
TEST(CliHelp, AnOptionsExclusionsAreListedByName) {
  const testing::CliResult r = RunCli({"capstone", "--help"});
  ASSERT_EQ(r.code, 0) << r.err;
  const size_t at = r.out.find("--real Excludes: ");
  ASSERT_NE(at, std::string::npos) << r.out;
  const std::string line = r.out.substr(at, r.out.find('\n', at) - at);
  std::vector<std::string> names =
      absl::StrSplit(line.substr(std::string("--real Excludes: ").size()), ' ',
                     absl::SkipEmpty());
  ASSERT_GE(names.size(), 5u) << line;
  EXPECT_TRUE(std::is_sorted(names.begin(), names.end())) << line;
}

// Named first, a command is built alone (AddCommandsFor): every command of
// the whole tree must then parse and help exactly as it does within it.
TEST(CliFamilies, EachCommandAloneHelpsAsInTheWholeTree) {
  CLI::App whole{"whole", "perflab"};
  SetUpRoot(whole);
  Registry registry;
  AddCommandsFor("", whole, registry);
  const std::vector<CLI::App*> commands = whole.get_subcommands({});
  ASSERT_EQ(commands.size(), 13u);  // models ... history, as --help lists
  for (const CLI::App* command : commands) {
    const std::string name = command->get_name();
    const testing::CliResult r = RunCli({name, "--help"});
    EXPECT_EQ(r.code, 0) << name << ": " << r.err;
    EXPECT_EQ(r.out, command->help()) << name;
    CLI::App alone{"alone", "perflab"};
    Registry alone_registry;
    AddCommandsFor(name, alone, alone_registry);
    EXPECT_LT(alone.get_subcommands({}).size(), commands.size()) << name;
  }
  // Not a command: every family, so the error can list what is accepted.
  CLI::App typo{"typo", "perflab"};
  Registry typo_registry;
  AddCommandsFor("simm", typo, typo_registry);
  EXPECT_EQ(typo.get_subcommands({}).size(), commands.size());
}

// A number that does not apply is left out of the record, never null.
rapidjson::Document JsonOf(const std::vector<std::string>& args) {
  const testing::CliResult r = RunCli(args);
  rapidjson::Document d;
  EXPECT_EQ(r.code, 0) << r.err;
  d.Parse(r.out.c_str());
  EXPECT_FALSE(d.HasParseError()) << r.out;
  EXPECT_EQ(r.out.find("null"), std::string::npos) << r.out;
  return d;
}

TEST(CliJson, AnIntervalOfAnUnstableQueueIsLeftOut) {
  // rho = 5 / (4 x 1) = 1.25: no steady state, so no confidence interval.
  rapidjson::Document d =
      JsonOf({"sim", "mmc", "--set", "arrival_rate_per_s=5", "--set",
              "customers=2000", "--format", "json"});
  ASSERT_TRUE(d.IsObject());
  EXPECT_STREQ(d["stability"].GetString(), "unstable");
  EXPECT_FALSE(d.HasMember("mean_wait_ci95_s"));
  EXPECT_TRUE(d.HasMember("mean_wait_s"));
  // rho = 2 / 4 = 0.5: stable, and the interval is there.
  d = JsonOf({"sim", "mmc", "--set", "arrival_rate_per_s=2", "--set",
              "customers=2000", "--format", "json"});
  ASSERT_TRUE(d.IsObject());
  ASSERT_TRUE(d.HasMember("mean_wait_ci95_s"));
  EXPECT_GT(d["mean_wait_ci95_s"].GetDouble(), 0);
}

TEST(CliJson, AFirstTimeoutOnlyWhereOneFired) {
  // 5 s of run: no request can wait the 30 s timeout at 100/s. At 1000/s a
  // pool of 10 held 50 ms (200/s) falls behind by 800/s, so a 100 ms wait
  // comes within the run, and never before 0.1 s.
  rapidjson::Document d =
      JsonOf({"sim", "pool-starvation", "--set", "rates_per_s=100", "--set",
              "duration_s=5", "--format", "json"});
  ASSERT_TRUE(d.IsObject());
  ASSERT_EQ(d["rows"].Size(), 1u);
  EXPECT_EQ(d["rows"][0]["timeouts"].GetInt64(), 0);
  EXPECT_FALSE(d["rows"][0].HasMember("first_timeout_s"));
  d = JsonOf({"sim", "pool-starvation", "--set", "rates_per_s=1000", "--set",
              "duration_s=5", "--set", "timeout_ms=100", "--format", "json"});
  ASSERT_TRUE(d.IsObject());
  EXPECT_GT(d["rows"][0]["timeouts"].GetInt64(), 0);
  ASSERT_TRUE(d["rows"][0].HasMember("first_timeout_s"));
  EXPECT_GE(d["rows"][0]["first_timeout_s"].GetDouble(), 0.1);
  EXPECT_LT(d["rows"][0]["first_timeout_s"].GetDouble(), 5);
}

// Every number a user types is read by core::ParseDecimal (or, for a whole
// number, ParseDecimalInteger): hexadecimal, a leading '+', spaces, inf and
// nan are refused in a flag, a --set key, a NAME=VALUE part and a file of
// numbers alike. Each slot also takes the plain decimal "16" (exit 0), so a
// refusal is the spelling's, not the slot's.
TEST(CliNumbers, EveryTypedNumberIsDecimal) {
  const perflab::testing::TempDir tmp;
  const std::string file = tmp.File("cli_numbers.txt");
  struct Slot {
    std::vector<std::string> args;   // '#' in one of them: the number
    bool spaces_are_layout = false;  // a column of a file or a list
  };
  const std::vector<Slot> slots = {
      {{"models", "usl", "--sigma", "0.05", "--kappa", "#"}},
      {{"models", "what-if", "--stage", "db=#"}},
      {{"models", "mva", "--clients", "4", "--station", "cpu:demand_ms=#"}},
      {{"models", "mva", "--station", "cpu:demand_ms=10", "--class",
        "a:clients=4,think_ms=#"}},
      {{"models", "mva", "--station", "cpu:demand_ms=10", "--clients", "#"}},
      {{"models", "usl-fit", "--point", "1:100", "--point", "2:190", "--point",
        "4:340", "--point", "#:700"},
       true},
      {{"models", "percentiles", "--input", file}, true},
      {{"sim", "mmc", "--set", "customers=100", "--set",
        "arrival_rate_per_s=#"}},
      {{"sim", "mmc", "--set", "customers=100", "--set", "servers=#"}},
      {{"sim", "mmc", "--set", "customers=100", "--set", "servers=32", "--set",
        "service_rate_per_s=#"}},
  };
  for (const Slot& slot : slots) {
    for (const std::string number :
         {"16", "0x10", "0x1p4", "+16", " 16", "16 ", "inf", "nan", "1e400"}) {
      if (slot.spaces_are_layout && absl::StrContains(number, " ")) continue;
      std::vector<std::string> args = slot.args;
      for (std::string& a : args) {
        if (const size_t at = a.find('#'); at != std::string::npos) {
          a.replace(at, 1, number);
        }
      }
      std::ofstream(file) << "1\n2\n" << number << "\n";
      const std::string where = absl::StrJoin(args, " ") + " [" + number + "]";
      const testing::CliResult r = RunCli(args);
      if (number == "16") {
        EXPECT_EQ(r.code, 0) << where << ": " << r.err;
        continue;
      }
      EXPECT_EQ(r.code, 2) << where << ": " << r.err;
      EXPECT_EQ(r.out, "") << where;
      EXPECT_TRUE(absl::StrContains(r.err, "accepted") &&
                  r.err.find('\n') == r.err.size() - 1)
          << where << ": " << r.err;
    }
  }
}

}  // namespace
}  // namespace perflab::cli
