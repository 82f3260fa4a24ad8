// Runs the perflab CLI in-process for tests: exit code, stdout, stderr.
#ifndef PERFLAB_TESTS_TOOLS_CLI_RUNNER_H_
#define PERFLAB_TESTS_TOOLS_CLI_RUNNER_H_

#include <sstream>
#include <string>
#include <vector>

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

}  // namespace perflab::testing

#endif  // PERFLAB_TESTS_TOOLS_CLI_RUNNER_H_
