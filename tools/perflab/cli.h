// The perflab command line: one CLI11 tree of subcommands whose leaves each
// produce a core::Document. This header is the seam between the parser and
// the command families (models, sim, fixtures, ...), which register themselves
// through the Add*Commands functions declared in commands.h, and the helpers
// that show a flag's default in its help. The helpers and validators are pure
// (thread-safe); a Registry belongs to the one thread that parses.
//
// Error contract (every command): bad input prints one line on stderr naming
// the flag, the value and what is accepted; exit code 2; nothing on stdout.
#ifndef PERFLAB_TOOLS_PERFLAB_CLI_H_
#define PERFLAB_TOOLS_PERFLAB_CLI_H_

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "CLI/CLI.hpp"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/string_view.h"
#include "core/document.h"
#include "tools/perflab/entry.h"  // IWYU pragma: export

namespace perflab::cli {

// What --format is when not given, for every command.
inline constexpr char kDefaultFormat[] = "table";

// A flag's default the way its help text shows it. Every "(default X)" is
// built from the same value, Options member or named constant the flag's
// variable starts with, so the help cannot drift from the behaviour.
// Integers print in full; other numbers as %g (0.05, 0.6, 60, 30000), or with
// `decimals` fixed digits where the help keeps trailing zeros (0.040).
template <typename T>
concept Number = std::is_arithmetic_v<T> && !std::is_same_v<T, bool>;
std::string DefaultText(Number auto value) {
  if constexpr (std::is_floating_point_v<decltype(value)>) {
    return absl::StrFormat("%g", value);
  } else {
    return absl::StrCat(value);
  }
}
std::string DefaultText(double value, int decimals);
// A path or a word, as is.
std::string DefaultText(absl::string_view word);
// A list as "a,b,c", or "a,b,c,...,z" past four values.
std::string DefaultText(const std::vector<double>& values);

// "`help` (default `shown`)", shown from DefaultText.
std::string WithDefault(absl::string_view help, absl::string_view shown);

using Runner = std::function<absl::StatusOr<core::Document>()>;
// Replaces printing the rendered Document on stdout (commands with --out
// FILE); its error is reported like the runner's.
using Emit = std::function<absl::Status(const core::Document&, core::Format,
                                        std::ostream& out)>;

// Owns the parse tree and remembers which leaf was chosen.
class Registry {
 public:
  // `cmd` produces the Document `run` returns: adds `--format table|json[|csv]`
  // and the runner that is called once parsing and validation succeed.
  // `emit`, when set, writes the result instead of printing it on stdout.
  void Produces(CLI::App* cmd, Runner run, bool csv = true,
                Emit emit = nullptr);

  // Set by the chosen leaf's callback during parsing.
  struct Choice {
    Runner run;
    const std::string* format = nullptr;
  };
  Choice& chosen() { return chosen_; }
  // The chosen leaf's Emit; null: print on stdout.
  const Emit& emit() const { return emit_; }

  // Optional, set by a chosen leaf that renders formats of its own (compare's
  // md) or has an exit code beyond 0 and 2 (compare: 1 when slower).
  struct Extras {
    std::function<std::string(const core::Document&, const std::string&)>
        render;
    std::function<int()> exit_code;
  };
  Extras& extras() { return extras_; }

 private:
  std::vector<std::unique_ptr<std::string>> formats_;
  Choice chosen_;
  Extras extras_;
  Emit emit_;
};

// Flag validators whose messages say what is accepted. They reject NaN and
// infinities, which strtod would otherwise happily accept. Each one's range
// is one text, shown by --help beside the option and quoted by the error.
CLI::Validator Positive();                  // finite number > 0
CLI::Validator NonNegative();               // finite number >= 0
CLI::Validator Fraction();                  // finite number in [0, 1)
CLI::Validator OpenFraction();              // in (0, 1): a significance level
CLI::Validator Probability();               // finite number in [0, 1]
CLI::Validator Percent();                   // finite number in (0, 100]
CLI::Validator PositiveAtMost(double max);  // finite number in (0, max]
// A finite number in [min, max]: a count or rate that sizes a loop or a
// wait is bounded both ways.
CLI::Validator NumberBetween(double min, double max);

// The longest duration any flag accepts: far beyond a lab run, and far
// inside what the code converts durations to (int64 nanoseconds of
// std::chrono and the simulator's virtual clock, timespec), so a huge value
// is refused instead of overflowing into a run that ends at once.
inline constexpr double kMaxDurationS = 1e6;  // about 11.6 days
// A duration in seconds or milliseconds, finite, in [0, kMaxDurationS]
// (`positive`: in (0, kMaxDurationS]).
CLI::Validator Seconds(bool positive = false);
CLI::Validator Millis(bool positive = false);
// The most worker threads a --jobs gives (capstone, sweep): far past this
// machine's cores, and a thread count the system can create.
inline constexpr int64_t kMaxJobs = 1024;

// An integer written in decimal, in [min, max], with a message that says so
// (CLI11's own checks say only "Could not convert" or print the type's range).
CLI::Validator IntIn(int64_t min, int64_t max);
// A seed: a decimal integer in [0, 2^64), no sign.
CLI::Validator Seed();
// The seed `text` of `flag` read as Seed() checks it (core/number.h's
// decimal digits, nothing else); otherwise InvalidArgument, one line naming
// the flag, the value and the range.
absl::StatusOr<uint64_t> ParseSeed(absl::string_view flag,
                                   const std::string& text);

// `message` as one short line: control characters escaped (\n, \r, \t,
// \xHH), and cut to `max_bytes` with the count of what was left out.
std::string OneLine(absl::string_view message, size_t max_bytes = 400);

// NAME=VALUE settings with each NAME at most once: InvalidArgument naming
// `flag` and the repeated name otherwise.
absl::Status EachNameOnce(absl::string_view flag,
                          const std::vector<std::string>& settings);

}  // namespace perflab::cli

#endif  // PERFLAB_TOOLS_PERFLAB_CLI_H_
