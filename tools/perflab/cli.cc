#include "tools/perflab/cli.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <memory>
#include <optional>
#include <ostream>
#include <set>
#include <string_view>
#include <system_error>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "core/number.h"
#include "core/parallel.h"
#include "tools/perflab/commands.h"

namespace perflab::cli {
namespace {

// The value as given, cut to a readable length: a bound of 309 digits is
// named, not echoed whole.
std::string Given(const std::string& text) {
  constexpr size_t kShown = 40;
  if (text.size() <= kShown) return absl::StrCat("got '", text, "'");
  return absl::StrCat("got '", text.substr(0, kShown), "...' (", text.size(),
                      " characters)");
}

CLI::Validator NumberIn(const std::string& what,
                        const std::function<bool(double)>& ok) {
  return CLI::Validator(
      [what, ok](std::string& text) -> std::string {
        // Decimal only, as every number a user types (core/number.h): no
        // hexadecimal, '+', spaces, inf or nan.
        const std::optional<double> v = core::ParseDecimal(text);
        if (!v || !ok(*v)) {
          return absl::StrCat(Given(text), "; accepted: ", what);
        }
        return "";
      },
      // --help prints the range the check holds, from the same text.
      what);
}

// The deepest subcommand the user reached, for "what is accepted here" lists.
const CLI::App* Deepest(const CLI::App* app) {
  for (const CLI::App* sub : app->get_subcommands()) return Deepest(sub);
  return app;
}

std::string SubcommandNames(const CLI::App* app) {
  std::vector<std::string> names;
  for (const CLI::App* sub : app->get_subcommands({})) {
    names.emplace_back(sub->get_name());
  }
  return absl::StrJoin(names, ", ");
}

std::string CommandPath(const CLI::App* app) {
  std::vector<std::string> names;
  for (const CLI::App* p = app; p != nullptr; p = p->get_parent()) {
    names.insert(names.begin(), p->get_name());
  }
  return absl::StrJoin(names, " ");
}

// What every parsed option of the chosen command line must be, beyond its
// own check: a value given explicitly is never empty ('' would otherwise
// mean "not given" to the many flags whose default is the empty string).
std::string EmptyValue(const CLI::App* app) {
  for (const CLI::App* a = app; a != nullptr;) {
    for (const CLI::Option* opt : a->get_options()) {
      if (opt->count() == 0 || opt->get_items_expected_min() == 0) continue;
      for (const std::string& r : opt->results()) {
        if (!r.empty()) continue;
        return absl::StrCat(opt->get_name(), ": got an empty value; accepted: ",
                            opt->get_description());
      }
    }
    std::vector<CLI::App*> subs = a->get_subcommands();
    a = subs.empty() ? nullptr : subs.front();
  }
  return "";
}

// CLI11 reports a missing required option before an unknown one, so
// `--bogus 1` would read "--servers is required": name the unknown first.
std::string UnknownOption(const CLI::App* where) {
  std::vector<std::string> rest = where->remaining();
  if (rest.empty() || !absl::StartsWith(rest[0], "-")) return "";
  std::vector<std::string> names;
  for (const CLI::Option* opt : where->get_options()) {
    if (!absl::StartsWith(opt->get_name(), "--help")) {
      names.push_back(opt->get_name());
    }
  }
  return absl::StrCat("unknown option '", rest[0],
                      "'; accepted: ", absl::StrJoin(names, ", "));
}

std::string IntRange(int64_t min, int64_t max) {
  return absl::StrCat("an integer in [", min, ", ", max, "]");
}

constexpr char kSeedRange[] = "an integer in [0, 18446744073709551615]";

// The option named `name` (a flag's long name or a positional's) of `where`.
const CLI::Option* FindOption(const CLI::App* where, const std::string& name) {
  return where->get_option_no_throw(name);
}

// What an option accepts, for a message: its check's range when it has
// one, else its help text.
std::string AcceptedBy(const CLI::Option* opt) {
  std::string type = opt->get_type_name();
  const size_t colon = type.find(':');
  if (colon != std::string::npos) return type.substr(colon + 1);
  return opt->get_description();
}

// A flag given twice reads "--x: At Most 1 required but received 2", one
// without its value "--x: 1 required TEXT missing".
std::string MismatchLine(const CLI::App* where, const std::string& msg) {
  const size_t at = msg.find(": At Most 1 required but received ");
  if (at != std::string::npos) {
    return absl::StrCat(msg.substr(0, at), " given ",
                        msg.substr(msg.rfind(' ') + 1),
                        " times; accepted: once");
  }
  const std::string name = msg.substr(0, msg.find(':'));
  if (const CLI::Option* opt = FindOption(where, name);
      opt != nullptr && absl::StrContains(msg, " missing")) {
    return absl::StrCat(name, ": no value given; accepted: ", AcceptedBy(opt));
  }
  return absl::StrCat(msg, "; accepted: see ", CommandPath(where), " --help");
}

// Arguments CLI11 could not place: an option given before the subcommand
// it belongs to, an option no command has, or one positional too many.
std::string ExtrasLine(const CLI::App& app, const CLI::App* where) {
  const std::vector<std::string> extra = app.remaining(true);
  if (extra.empty()) return "";
  const std::string given = absl::StrJoin(extra, " ");
  if (absl::StartsWith(extra[0], "-")) {
    const std::string name = extra[0].substr(0, extra[0].find('='));
    if (FindOption(where, name) != nullptr && where != &app) {
      return absl::StrCat("'", given, "' given before the subcommand; ",
                          "accepted: ", CommandPath(where), " ", given);
    }
    return UnknownOption(where).empty()
               ? absl::StrCat("unknown option '", extra[0], "'; accepted: see ",
                              CommandPath(where), " --help")
               : UnknownOption(where);
  }
  std::vector<std::string> positionals;
  for (const CLI::Option* opt : where->get_options()) {
    if (opt->get_positional()) positionals.push_back(opt->get_name());
  }
  return absl::StrCat(
      "unexpected argument", extra.size() > 1 ? "s '" : " '", given,
      "'; accepted: ",
      positionals.empty()
          ? std::string("options only")
          : absl::StrCat(absl::StrJoin(positionals, " "), " and options"),
      " (see ", CommandPath(where), " --help)");
}

// CLI11's message for `e` in perflab's form: the option, what was given and
// what is accepted, on one line.
std::string ParseErrorLine(const CLI::App& app, const CLI::ParseError& e) {
  const CLI::App* where = Deepest(&app);
  std::string msg = e.what();
  const bool required = dynamic_cast<const CLI::RequiredError*>(&e) != nullptr;
  const bool extras = dynamic_cast<const CLI::ExtrasError*>(&e) != nullptr;
  // A missing or unknown subcommand: say which ones exist at that level.
  if (!where->get_subcommands({}).empty() && (required || extras)) {
    std::vector<std::string> rest = where->remaining();
    msg = rest.empty() ? "missing subcommand"
                       : absl::StrCat("unknown subcommand '", rest[0], "'");
    absl::StrAppend(&msg, "; accepted: ", SubcommandNames(where));
  } else if (extras) {
    if (std::string line = ExtrasLine(app, where); !line.empty()) msg = line;
  } else if (required) {
    const size_t at = msg.find(" is required");
    const CLI::Option* opt = at == std::string::npos
                                 ? nullptr
                                 : FindOption(where, msg.substr(0, at));
    if (std::string unknown = UnknownOption(where); !unknown.empty()) {
      msg = unknown;
    } else if (opt != nullptr) {
      msg = absl::StrCat(opt->get_name(),
                         ": not given; accepted: ", AcceptedBy(opt));
    }
  }
  // CLI11 names the two flags but not the way out of the clash.
  if (dynamic_cast<const CLI::ExcludesError*>(&e) != nullptr) {
    absl::StrAppend(&msg, "; accepted: one of the two, not both");
  }
  if (dynamic_cast<const CLI::RequiresError*>(&e) != nullptr) {
    absl::StrAppend(&msg,
                    "; accepted: with the flag it needs, or without both");
  }
  if (dynamic_cast<const CLI::ArgumentMismatch*>(&e) != nullptr) {
    msg = MismatchLine(where, msg);
  }
  if (dynamic_cast<const CLI::ConversionError*>(&e) != nullptr) {
    absl::StrAppend(&msg, "; accepted: see ", CommandPath(where), " --help");
  }
  return absl::StrCat(CommandPath(where), ": ", msg);
}

bool ParseInt(const std::string& text, int64_t* v) {
  // Decimal digits with an optional '-' (core/number.h): no spaces, '+' or
  // hex, which SimpleAtoi would otherwise take.
  const std::optional<int64_t> parsed = core::ParseDecimalInteger(text);
  if (parsed) *v = *parsed;
  return parsed.has_value();
}

// The chosen command, with a thread the system refuses where the command did
// not expect one (ulimit -u) turned into its one line: what it had started
// was stopped and joined by the unwinding.
absl::StatusOr<core::Document> RunChosen(const Runner& run) {
  try {
    return run();
  } catch (const std::system_error& e) {
    if (e.code() != std::errc::resource_unavailable_try_again) throw;
    return core::ThreadRefused("a thread", e);
  }
}

}  // namespace

std::string DefaultText(double value, int decimals) {
  return absl::StrFormat("%.*f", decimals, value);
}

std::string DefaultText(absl::string_view word) { return std::string(word); }

std::string DefaultText(const std::vector<double>& values) {
  std::vector<std::string> shown;
  shown.reserve(values.size());
  for (double v : values) shown.push_back(DefaultText(v));
  if (shown.size() > 4) {  // the first three, "..." and the last
    shown.erase(shown.begin() + 3, shown.end() - 1);
    shown.insert(shown.begin() + 3, "...");
  }
  return absl::StrJoin(shown, ",");
}

std::string WithDefault(absl::string_view help, absl::string_view shown) {
  return absl::StrCat(help, " (default ", shown, ")");
}

CLI::Validator Positive() {
  return NumberIn("a finite number > 0", [](double v) { return v > 0; });
}
CLI::Validator NonNegative() {
  return NumberIn("a finite number >= 0", [](double v) { return v >= 0; });
}
CLI::Validator Fraction() {
  return NumberIn("a number in [0, 1)",
                  [](double v) { return v >= 0 && v < 1; });
}
CLI::Validator OpenFraction() {
  return NumberIn("a number in (0, 1)",
                  [](double v) { return v > 0 && v < 1; });
}
CLI::Validator Probability() {
  return NumberIn("a number in [0, 1]",
                  [](double v) { return v >= 0 && v <= 1; });
}

CLI::Validator Percent() {
  return NumberIn("a number in (0, 100]",
                  [](double v) { return v > 0 && v <= 100; });
}

CLI::Validator PositiveAtMost(double max) {
  return NumberIn(absl::StrCat("a number in (0, ", DefaultText(max), "]"),
                  [max](double v) { return v > 0 && v <= max; });
}

CLI::Validator NumberBetween(double min, double max) {
  return NumberIn(absl::StrCat("a number in [", DefaultText(min), ", ",
                               DefaultText(max), "]"),
                  [min, max](double v) { return v >= min && v <= max; });
}

CLI::Validator Seconds(bool positive) {
  return NumberIn(absl::StrFormat("a number of seconds in %c0, %.0f]",
                                  positive ? '(' : '[', kMaxDurationS),
                  [positive](double v) {
                    return (positive ? v > 0 : v >= 0) && v <= kMaxDurationS;
                  });
}

CLI::Validator Millis(bool positive) {
  constexpr double kMaxMs = kMaxDurationS * 1000;
  return NumberIn(absl::StrFormat("a number of milliseconds in %c0, %.0f]",
                                  positive ? '(' : '[', kMaxMs),
                  [positive](double v) {
                    return (positive ? v > 0 : v >= 0) && v <= kMaxMs;
                  });
}

CLI::Validator IntIn(int64_t min, int64_t max) {
  return CLI::Validator(
      [min, max](std::string& text) -> std::string {
        int64_t v = 0;
        if (!ParseInt(text, &v) || v < min || v > max) {
          return absl::StrCat(Given(text), "; accepted: ", IntRange(min, max));
        }
        return "";
      },
      IntRange(min, max));
}

CLI::Validator Seed() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        if (!core::ParseDecimalUnsigned(text)) {
          return absl::StrCat(Given(text), "; accepted: ", kSeedRange);
        }
        return "";
      },
      kSeedRange);
}

absl::StatusOr<uint64_t> ParseSeed(absl::string_view flag,
                                   const std::string& text) {
  const std::optional<uint64_t> v = core::ParseDecimalUnsigned(text);
  if (!v) {
    return absl::InvalidArgumentError(
        absl::StrCat(flag, ": ", Given(text), "; accepted: ", kSeedRange));
  }
  return *v;
}

std::string OneLine(absl::string_view message, size_t max_bytes) {
  std::string line;
  for (char c : message) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '\n') {
      line += "\\n";
    } else if (c == '\r') {
      line += "\\r";
    } else if (c == '\t') {
      line += "\\t";
    } else if (u < 0x20 || u == 0x7f) {
      absl::StrAppendFormat(&line, "\\x%02x", u);
    } else {
      line += c;
    }
    if (line.size() > max_bytes) break;
  }
  if (line.size() > max_bytes) {
    // Cut at a character boundary, never inside an escape's UTF-8 sequence.
    size_t cut = max_bytes;
    while (cut > 0 && (static_cast<unsigned char>(line[cut]) & 0xc0) == 0x80) {
      --cut;
    }
    line.resize(cut);
    absl::StrAppend(&line, "... (", message.size(), " bytes in all)");
  }
  return line;
}

absl::Status EachNameOnce(absl::string_view flag,
                          const std::vector<std::string>& settings) {
  std::set<std::string, std::less<>> seen;
  for (const std::string& s : settings) {
    std::string name = s.substr(0, s.find('='));
    if (!seen.insert(name).second) {
      return absl::InvalidArgumentError(absl::StrCat(
          flag, ": '", name, "' given twice; accepted: each name once"));
    }
  }
  return absl::OkStatus();
}

void Registry::Produces(CLI::App* cmd, Runner run, bool csv, Emit emit) {
  formats_.emplace_back(std::make_unique<std::string>(kDefaultFormat));
  std::string* format = formats_.back().get();
  std::vector<std::string> accepted = {"table", "json"};
  if (csv) accepted.emplace_back("csv");
  cmd->add_option("--format", *format,
                  WithDefault("output: " + absl::StrJoin(accepted, ", "),
                              DefaultText(*format)))
      ->check(CLI::IsMember(accepted));
  cmd->callback([this, format, run = std::move(run), emit = std::move(emit)] {
    chosen_ = Choice{run, format};
    emit_ = emit;
  });
}

namespace {

// The command families in the order `perflab --help` lists them, each with
// the top-level commands it adds.
struct Family {
  std::array<std::string_view, 3> commands;
  void (*add)(CLI::App& root, Registry& registry);
};
constexpr std::array<Family, 9> kFamilies = {{
    {{"models"}, &AddModelsCommands},
    {{"sim"}, &AddSimCommands},
    {{"fixtures"}, &AddFixturesCommands},
    {{"serve", "load", "reality"}, &AddRealityCommands},
    {{"compare"}, &AddCompareCommands},
    {{"sweep", "sweep-merge"}, &AddSweepCommands},
    {{"capstone", "calibrate"}, &AddCapstoneCommands},
    {{"orders-service"}, &AddOrdersCommands},
    {{"history"}, &AddHistoryCommands},
}};

// CLI11 lists an option's Needs and Excludes from a set of pointers, so in
// the order the options happened to be allocated: sorted by name here, so
// that a help reads the same on every run.
class SortedLinksFormatter : public CLI::Formatter {
 public:
  std::string make_option_opts(const CLI::Option* opt) const override {
    std::vector<std::string> words =
        absl::StrSplit(CLI::Formatter::make_option_opts(opt), ' ');
    for (size_t i = 0; i < words.size(); ++i) {
      if (words[i] != get_label("Needs") + ":" &&
          words[i] != get_label("Excludes") + ":") {
        continue;
      }
      size_t end = i + 1;
      while (end < words.size() && absl::StartsWith(words[end], "-")) ++end;
      std::sort(words.begin() + static_cast<ptrdiff_t>(i) + 1,
                words.begin() + static_cast<ptrdiff_t>(end));
      i = end - 1;
    }
    return absl::StrJoin(words, " ");
  }
};

}  // namespace

void SetUpRoot(CLI::App& root) {
  root.set_help_all_flag("--help-all", "show help for every subcommand");
  root.formatter(std::make_shared<SortedLinksFormatter>());
}

void AddCommandsFor(std::string_view first_arg, CLI::App& root,
                    Registry& registry) {
  for (const Family& family : kFamilies) {
    if (!first_arg.empty() &&
        std::find(family.commands.begin(), family.commands.end(), first_arg) !=
            family.commands.end()) {
      family.add(root, registry);
      return;
    }
  }
  for (const Family& family : kFamilies) family.add(root, registry);
}

namespace {

int RunMain(int argc, const char* const* argv, std::ostream& out,
            std::ostream& err) {
  CLI::App app{
      "perflab: runnable lessons of service performance engineering.\n"
      "Every command prints an aligned table; add --format json for scripts.",
      "perflab"};
  app.require_subcommand(1);
  SetUpRoot(app);
  Registry registry;
  AddCommandsFor(argc > 1 ? argv[1] : "", app, registry);

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    out << Deepest(&app)->help();
    return 0;
  } catch (const CLI::CallForAllHelp&) {
    out << app.help("", CLI::AppFormatMode::All);
    return 0;
  } catch (const CLI::ParseError& e) {
    err << OneLine(ParseErrorLine(app, e)) << "\n";
    return 2;
  }
  if (std::string empty = EmptyValue(&app); !empty.empty()) {
    err << OneLine(absl::StrCat(CommandPath(Deepest(&app)), ": ", empty))
        << "\n";
    return 2;
  }

  Registry::Choice& choice = registry.chosen();
  if (!choice.run) {
    err << "perflab: no command chosen; try perflab --help\n";
    return 2;
  }
  absl::StatusOr<core::Document> doc = RunChosen(choice.run);
  if (!doc.ok()) {
    err << OneLine(absl::StrCat(CommandPath(Deepest(&app)), ": ",
                                doc.status().message()))
        << "\n";
    return doc.status().code() == absl::StatusCode::kInvalidArgument ? 2 : 1;
  }
  const Registry::Extras& extras = registry.extras();
  const int exit_code = extras.exit_code ? extras.exit_code() : 0;
  if (extras.render) {
    out << extras.render(*doc, *choice.format);
    return exit_code;
  }
  absl::StatusOr<core::Format> format = core::ParseFormat(*choice.format);
  if (!format.ok()) {
    err << OneLine(absl::StrCat("perflab: ", format.status().message()))
        << "\n";
    return 2;
  }
  if (registry.emit()) {
    if (absl::Status s = registry.emit()(*doc, *format, out); !s.ok()) {
      err << OneLine(
                 absl::StrCat(CommandPath(Deepest(&app)), ": ", s.message()))
          << "\n";
      return s.code() == absl::StatusCode::kInvalidArgument ? 2 : 1;
    }
    return exit_code;
  }
  out << core::Render(*doc, *format);
  return exit_code;
}

}  // namespace

int Main(int argc, const char* const* argv, std::ostream& out,
         std::ostream& err) {
  const int code = RunMain(argc, argv, out, err);
  // A table cut short by a full disk would otherwise read as a whole one.
  if (!out.flush()) {
    if (code != 2) {
      err << "perflab: the output could not be written to stdout; accepted: "
             "a stdout that takes it (a file system with room, an open "
             "file)\n";
    }
    return 2;
  }
  return code;
}

}  // namespace perflab::cli
