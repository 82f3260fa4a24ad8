// perflab serve / load / reality through the CLI: bad input is one line and
// exit 2; serve stops by itself; a short reality run agrees with the
// simulation on the cases it runs.
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "tests/tools/cli_runner.h"

namespace perflab {
namespace {

using testing::RunCli;

void ExpectOneLineExit2(const std::vector<std::string>& args,
                        const std::string& mentions) {
  testing::CliResult r = RunCli(args);
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_TRUE(r.out.empty());
  ASSERT_FALSE(r.err.empty());
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << r.err;
  EXPECT_TRUE(absl::StrContains(r.err, mentions)) << r.err;
}

TEST(RealityCli, BadInputIsOneLineAndExit2) {
  ExpectOneLineExit2({"load", "http://10.0.0.1:80/", "--clients", "1"},
                     "not loopback");
  ExpectOneLineExit2({"serve", "--host", "192.168.0.1", "--max-seconds", "1"},
                     "not loopback");
  ExpectOneLineExit2(
      {"load", "http://127.0.0.1:9/", "--clients", "1", "--duration-s", "-1"},
      "-1");
  ExpectOneLineExit2(
      {"load", "http://127.0.0.1:9/", "--clients", "1", "--duration-s", "nan"},
      "nan");
  ExpectOneLineExit2({"serve", "--freeze-for-s", "inf"}, "inf");
  ExpectOneLineExit2({"load", "http://127.0.0.1:9/"}, "--rate");
  ExpectOneLineExit2({"reality", "--case", "nope"}, "accepted");
}

TEST(RealityCli, PortInUseIsExit2) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  ASSERT_EQ(::listen(fd, 1), 0);
  socklen_t len = sizeof a;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  ExpectOneLineExit2({"serve", "--port", std::to_string(ntohs(a.sin_port)),
                      "--max-seconds", "1"},
                     "in use");
  ::close(fd);
}

TEST(RealityCli, ServeStopsByItself) {
  testing::CliResult r =
      RunCli({"serve", "--max-seconds", "0.2", "--format", "json"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(absl::StrContains(r.out, "\"stopped_by\":\"--max-seconds\""))
      << r.out;
}

// The sub-second case of `perflab reality --quick`, end to end (the timing
// cases are asserted in lab_reality_test with load-tolerant bounds).
TEST(RealityCli, QuickKeepAliveRaceAgreesWithTheSimulation) {
  testing::CliResult r = RunCli({"reality", "--quick", "--no-wrk", "--case",
                                 "keepalive-race", "--format", "json"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(absl::StrContains(r.out, "\"rows\":2")) << r.out;
  EXPECT_TRUE(absl::StrContains(r.out, "\"within_goal\":2")) << r.out;
}

}  // namespace
}  // namespace perflab
