#include "tools/perflab/cli.h"

#include <cmath>
#include <ostream>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "tools/perflab/commands.h"

namespace perflab::cli {
namespace {

CLI::Validator NumberIn(const std::string& what,
                        const std::function<bool(double)>& ok) {
  return CLI::Validator(
      [what, ok](std::string& text) -> std::string {
        double v = 0;
        if (!absl::SimpleAtod(text, &v) || !std::isfinite(v) || !ok(v)) {
          return absl::StrCat("got '", text, "'; accepted: ", what);
        }
        return "";
      },
      "NUMBER");
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
CLI::Validator Probability() {
  return NumberIn("a number in [0, 1]",
                  [](double v) { return v >= 0 && v <= 1; });
}

CLI::Validator Percent() {
  return NumberIn("a number in (0, 100]",
                  [](double v) { return v > 0 && v <= 100; });
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

int Main(int argc, const char* const* argv, std::ostream& out,
         std::ostream& err) {
  CLI::App app{
      "perflab: runnable lessons of service performance engineering.\n"
      "Every command prints an aligned table; add --format json for scripts.",
      "perflab"};
  app.require_subcommand(1);
  app.set_help_all_flag("--help-all", "show help for every subcommand");
  Registry registry;
  AddModelsCommands(app, registry);
  AddSimCommands(app, registry);
  AddFixturesCommands(app, registry);
  AddRealityCommands(app, registry);
  AddCompareCommands(app, registry);
  AddSweepCommands(app, registry);
  AddCapstoneCommands(app, registry);
  AddOrdersCommands(app, registry);
  AddHistoryCommands(app, registry);

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    out << Deepest(&app)->help();
    return 0;
  } catch (const CLI::CallForAllHelp&) {
    out << app.help("", CLI::AppFormatMode::All);
    return 0;
  } catch (const CLI::ParseError& e) {
    const CLI::App* where = Deepest(&app);
    std::string msg = e.what();
    // A missing or unknown subcommand: say which ones exist at that level.
    if (!where->get_subcommands({}).empty() &&
        (dynamic_cast<const CLI::RequiredError*>(&e) != nullptr ||
         dynamic_cast<const CLI::ExtrasError*>(&e) != nullptr)) {
      std::vector<std::string> rest = where->remaining();
      msg = rest.empty() ? "missing subcommand"
                         : absl::StrCat("unknown subcommand '", rest[0], "'");
      absl::StrAppend(&msg, "; accepted: ", SubcommandNames(where));
    }
    err << CommandPath(where) << ": " << msg << "\n";
    return 2;
  }

  Registry::Choice& choice = registry.chosen();
  if (!choice.run) {
    err << "perflab: no command chosen; try perflab --help\n";
    return 2;
  }
  absl::StatusOr<core::Document> doc = choice.run();
  if (!doc.ok()) {
    err << CommandPath(Deepest(&app)) << ": " << doc.status().message() << "\n";
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
    err << "perflab: " << format.status().message() << "\n";
    return 2;
  }
  if (registry.emit()) {
    if (absl::Status s = registry.emit()(*doc, *format, out); !s.ok()) {
      err << CommandPath(Deepest(&app)) << ": " << s.message() << "\n";
      return s.code() == absl::StatusCode::kInvalidArgument ? 2 : 1;
    }
    return exit_code;
  }
  out << core::Render(*doc, *format);
  return exit_code;
}

}  // namespace perflab::cli
