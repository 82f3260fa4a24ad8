// Runs the perflab CLI in-process for tests: exit code, stdout, stderr; and
// the project's bad-input contract (exit 2, one line naming what is wrong,
// nothing on stdout) as one check.
#ifndef PERFLAB_TESTS_TOOLS_CLI_RUNNER_H_
#define PERFLAB_TESTS_TOOLS_CLI_RUNNER_H_

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdint>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "rapidjson/document.h"
#include "tools/perflab/entry.h"

namespace perflab::testing {

struct CliResult {
  int code = 0;
  std::string out;
  std::string err;
};

inline CliResult RunCli(std::vector<std::string> args) {
  args.insert(args.begin(), "perflab");
  std::vector<const char*> argv;
  argv.reserve(args.size());
  for (const std::string& a : args) argv.push_back(a.c_str());
  std::ostringstream out, err;
  CliResult r;
  r.code = cli::Main(static_cast<int>(argv.size()), argv.data(), out, err);
  r.out = out.str();
  r.err = err.str();
  return r;
}

// A command that must succeed silently on stderr, its stdout parsed as JSON.
inline rapidjson::Document RunCliJson(std::vector<std::string> args) {
  CliResult r = RunCli(std::move(args));
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  rapidjson::Document d;
  d.Parse(r.out.c_str());
  EXPECT_FALSE(d.HasParseError()) << r.out;
  return d;
}

// Bad input: exit code 2, nothing on stdout, exactly one line on stderr that
// contains `mentions`.
inline void ExpectOneLineExit2(const CliResult& r,
                               const std::string& mentions) {
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
  ASSERT_FALSE(r.err.empty());
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << r.err;
  EXPECT_TRUE(absl::StrContains(r.err, mentions)) << r.err;
}
inline void ExpectOneLineExit2(std::vector<std::string> args,
                               const std::string& mentions) {
  ExpectOneLineExit2(RunCli(std::move(args)), mentions);
}

// A free loopback port held by a listener of this process until destruction,
// for the "port in use" checks; port() is 0 if it could not be had.
class HeldPort {
 public:
  HeldPort() : fd_(::socket(AF_INET, SOCK_STREAM, 0)) {
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    if (fd_ >= 0 && ::bind(fd_, reinterpret_cast<sockaddr*>(&a), len) == 0 &&
        ::listen(fd_, 1) == 0 &&
        ::getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len) == 0) {
      port_ = ntohs(a.sin_port);
    }
  }
  ~HeldPort() {
    if (fd_ >= 0) ::close(fd_);
  }
  HeldPort(const HeldPort&) = delete;
  HeldPort& operator=(const HeldPort&) = delete;
  uint16_t port() const { return port_; }

 private:
  int fd_;
  uint16_t port_ = 0;
};

}  // namespace perflab::testing

#endif  // PERFLAB_TESTS_TOOLS_CLI_RUNNER_H_
