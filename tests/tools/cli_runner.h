// Runs the perflab CLI in-process for tests: exit code, stdout, stderr; and
// the project's bad-input contract (exit 2, one line naming what is wrong,
// nothing on stdout) as one check.
#ifndef PERFLAB_TESTS_TOOLS_CLI_RUNNER_H_
#define PERFLAB_TESTS_TOOLS_CLI_RUNNER_H_

#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "tools/perflab/cli.h"

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

}  // namespace perflab::testing

#endif  // PERFLAB_TESTS_TOOLS_CLI_RUNNER_H_
