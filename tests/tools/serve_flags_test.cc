// The server commands' shared --threads parsing, --two-writes flag, request
// limits in --help and stop-signal wait.
#include "tools/perflab/serve_flags.h"

#include <pthread.h>
#include <signal.h>

#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"

namespace perflab::cli {
namespace {

TEST(ServeFlags, ThreadsIsVirtualOrACountUpToMax) {
  EXPECT_EQ(*ParseThreadsFlag("virtual", 16), 0);
  EXPECT_EQ(*ParseThreadsFlag("1", 16), 1);
  EXPECT_EQ(*ParseThreadsFlag("16", 16), 16);
  for (const char* bad : {"17", "0", "-3", "ten", "", "Virtual", "4x"}) {
    absl::StatusOr<int> r = ParseThreadsFlag(bad, 16);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_TRUE(absl::StrContains(r.status().message(), "[1, 16]"))
        << r.status();
  }
}

// SimpleAtoi reads " 16" and "+16" as 16; --threads takes decimal digits
// only (core/number.h), refused with the one line of every bad value.
TEST(ServeFlags, ThreadsIsDecimalDigitsOnly) {
  for (const char* bad : {" 16", "+16", "16 ", "0x10", "1e400", "16.0",
                          "99999999999999999999", "4294967312"}) {
    absl::StatusOr<int> r = ParseThreadsFlag(bad, 16);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.status().message(),
              absl::StrCat("--threads = '", bad,
                           "'; accepted: an integer in [1, 16] or 'virtual'"));
  }
}

TEST(ServeFlags, HelpListsEveryLimitOnItsOwnLine) {
  CLI::App app;
  AddLimitsHelp(app,
                {.max_request_line_bytes = 101,
                 .max_header_bytes = 202,
                 .max_headers = 3,
                 .max_body_bytes = 404,
                 .header_timeout_s = 5,
                 .max_virtual_threads = 6},
                7);
  const std::string help = app.help();
  for (const char* line :
       {"request line <= 101 B (else 414)\n",
        "\n  headers <= 202 B and <= 3 lines (else 431)\n",
        "\n  Content-Length <= 404 B (else 400)\n",
        "\n  a whole request within 5 s of its first byte (else 408, closed)\n",
        "\n  Transfer-Encoding: 501\n", "\n  --threads virtual: <= 6 threads\n",
        "\n  connection cap: 7"}) {
    EXPECT_TRUE(absl::StrContains(help, line)) << line << " in " << help;
  }
}

// The flag as CLI11 parses a command line: given (or =true), two writes;
// absent or =false, the value it had.
http::ResponseWrites ParseTwoWrites(const std::vector<std::string>& args) {
  CLI::App app;
  http::ResponseWrites writes = http::ResponseWrites::kGathered;
  AddTwoWritesFlag(app, writes);
  std::vector<const char*> argv = {"serve"};
  for (const std::string& a : args) argv.push_back(a.c_str());
  app.parse(static_cast<int>(argv.size()), argv.data());
  return writes;
}

TEST(ServeFlags, TwoWritesFlagSelectsHeadersThenBody) {
  using http::ResponseWrites;
  EXPECT_EQ(ParseTwoWrites({}), ResponseWrites::kGathered);
  EXPECT_EQ(ParseTwoWrites({"--two-writes"}), ResponseWrites::kHeadersThenBody);
  EXPECT_EQ(ParseTwoWrites({"--two-writes=true"}),
            ResponseWrites::kHeadersThenBody);
  EXPECT_EQ(ParseTwoWrites({"--two-writes=false"}), ResponseWrites::kGathered);
}

TEST(ServeFlags, WaitTakesABlockedSignalOrTimesOut) {
  sigset_t before, during, after;
  pthread_sigmask(SIG_SETMASK, nullptr, &before);
  ASSERT_FALSE(sigismember(&before, SIGTERM));
  {
    StopSignals stop;
    pthread_sigmask(SIG_SETMASK, nullptr, &during);
    EXPECT_TRUE(sigismember(&during, SIGTERM));
    EXPECT_TRUE(sigismember(&during, SIGINT));
    // Blocked, so pending until Wait() takes it: the process survives.
    // NOLINTNEXTLINE(bugprone-bad-signal-to-kill-thread)
    pthread_kill(pthread_self(), SIGTERM);
    EXPECT_EQ(stop.Wait(60), SIGTERM);
    EXPECT_EQ(stop.Wait(0.01), 0);  // nothing pending: the time limit
  }
  pthread_sigmask(SIG_SETMASK, nullptr, &after);
  EXPECT_FALSE(sigismember(&after, SIGTERM));  // the old mask is back
  EXPECT_EQ(StopSignals::StoppedBy(SIGINT), "SIGINT");
  EXPECT_EQ(StopSignals::StoppedBy(SIGTERM), "SIGTERM");
  EXPECT_EQ(StopSignals::StoppedBy(0), "--max-seconds");
}

}  // namespace
}  // namespace perflab::cli
