// perflab sim through the real CLI, in-process: listing, help, and the error
// contract (one line naming key, value and range; exit 2; nothing on stdout).
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/tools/cli_runner.h"

namespace perflab::cli {
namespace {

using ::perflab::testing::CliResult;
using ::perflab::testing::RunCli;

int Lines(const std::string& s) {
  int n = 0;
  for (char c : s) n += c == '\n';
  return n;
}

void ExpectBadInput(const std::vector<std::string>& args,
                    const std::vector<std::string>& mentions) {
  const CliResult r = RunCli(args);
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(Lines(r.err), 1) << r.err;
  for (const auto& m : mentions)
    EXPECT_NE(r.err.find(m), std::string::npos) << r.err;
}

TEST(SimCliTest, NoNameListsEveryScenario) {
  const CliResult r = RunCli({"sim"});
  EXPECT_EQ(r.code, 0) << r.err;
  for (const char* name :
       {"coordinated-omission", "thread-pool", "mmc", "littles-law",
        "latency-mixture", "pool-starvation", "client-pool", "usl",
        "hockey-stick", "keepalive-race", "lock-contention"}) {
    EXPECT_NE(r.out.find(name), std::string::npos) << name;
  }
  EXPECT_EQ(RunCli({"sim", "--format", "json"}).out.front(), '{');
}

TEST(SimCliTest, HelpListsEveryKeyWithDefaultAndRange) {
  const CliResult r = RunCli({"sim", "mmc", "--help"});
  EXPECT_EQ(r.code, 0);
  for (const char* key : {"servers", "arrival_rate_per_s", "service_rate_per_s",
                          "service ", "service_cv", "customers"}) {
    EXPECT_NE(r.out.find(key), std::string::npos) << key;
  }
  EXPECT_NE(r.out.find("one of exp, det, lognormal"), std::string::npos);
}

TEST(SimCliTest, RunsAScenarioAsJson) {
  const CliResult r = RunCli({"sim", "coordinated-omission", "--set",
                              "freeze_ms=1500", "--format", "json"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(
      r.out.find("\"clients\":[{\"name\":\"closed-actual\",\"samples\":5851"),
      std::string::npos)
      << r.out;
}

TEST(SimCliTest, SeedChangesStochasticOutput) {
  const std::vector<std::string> base = {
      "sim", "mmc", "--set", "customers=20000", "--format", "json"};
  auto with_seed = [&](const char* seed) {
    auto args = base;
    args.emplace_back("--seed");
    args.emplace_back(seed);
    return RunCli(args).out;
  };
  EXPECT_EQ(with_seed("7"), with_seed("7"));
  EXPECT_NE(with_seed("7"), with_seed("8"));
}

TEST(SimCliTest, BadInputIsOneLineAndExitTwo) {
  ExpectBadInput({"sim", "no-such-scenario"}, {"no-such-scenario"});
  ExpectBadInput({"sim", "mmc", "--set", "bogus=1"}, {"bogus", "servers"});
  ExpectBadInput({"sim", "mmc", "--set", "servers=abc"},
                 {"servers", "abc", "integer"});
  ExpectBadInput({"sim", "mmc", "--set", "servers=0"},
                 {"servers", "'0'", "[1, "});
  ExpectBadInput({"sim", "mmc", "--set", "arrival_rate_per_s=-1"},
                 {"arrival_rate_per_s", "-1", "(0, "});
  ExpectBadInput({"sim", "mmc", "--set", "service=gamma"},
                 {"service", "gamma", "exp"});
  ExpectBadInput({"sim", "mmc", "--set", "servers"}, {"servers", "key=value"});
  ExpectBadInput({"sim", "coordinated-omission", "--set", "freeze_ms=50000"},
                 {"freeze_ms", "50000", "duration_s"});
  ExpectBadInput({"sim", "coordinated-omission", "--set", "freeze_start_s=100"},
                 {"freeze", "100"});
  ExpectBadInput({"sim", "thread-pool", "--set", "threads=lots"},
                 {"threads", "lots", "virtual"});
  ExpectBadInput({"sim", "mmc", "--seed", "minus"}, {"seed", "minus"});
}

// Arrivals at 3/s to one server of rate 1/s pile up about 2 a second; the
// 1,000-event budget breaks long before the 100,000 customers are served.
// The keys caused it, so it is bad input (exit 2, not 1) that names the
// budget and what is accepted instead.
TEST(SimCliTest, AMemoryBudgetTheKeysBreakIsBadInput) {
  ExpectBadInput({"sim", "mmc", "--set", "servers=1", "--set",
                  "arrival_rate_per_s=3", "--set", "service_rate_per_s=1",
                  "--set", "customers=100000", "--set", "max_pending=1000"},
                 {"memory budget exceeded", "> max_pending 1000",
                  "accepted: a lighter or shorter run",
                  "max_pending up to 100000000 (given 1000)"});
}

}  // namespace
}  // namespace perflab::cli
