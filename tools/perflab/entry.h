// perflab's command line as one call: what main() runs, and what the tests
// run in-process. Kept apart from cli.h, which the commands share: that one
// needs CLI11's header, several seconds of every file that includes it.
#ifndef PERFLAB_TOOLS_PERFLAB_ENTRY_H_
#define PERFLAB_TOOLS_PERFLAB_ENTRY_H_

#include <iosfwd>

namespace perflab::cli {

// Runs the whole CLI on argv; returns the process exit code. Output and
// errors go to the given streams so tests can run it in-process. Output that
// `out` could not take (a full disk, a closed stdout) is one line on `err`
// and exit 2, never a success.
int Main(int argc, const char* const* argv, std::ostream& out,
         std::ostream& err);

}  // namespace perflab::cli

#endif  // PERFLAB_TOOLS_PERFLAB_ENTRY_H_
