// perflab compare BASE CONTENDER [--alpha A] [--threshold PCT]
//                 [--metric real_time|cpu_time|COUNTER] [--format ...]:
// two Google Benchmark JSON files (with repetitions) -> medians, change, U
// test p-value and a verdict per benchmark; two perflab result JSON files
// (sim, sweep, capstone) -> the fields that differ. Exit 0 when nothing is
// slower (or different), 1 when something is, 2 for bad input.
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/input_file.h"
#include "core/json.h"
#include "rapidjson/document.h"
#include "tools/compare/compare.h"
#include "tools/compare/doc_diff.h"
#include "tools/compare/gbench_json.h"
#include "tools/compare/markdown.h"
#include "tools/perflab/commands.h"

namespace perflab::cli {
namespace {

struct Args {
  std::string base, contender;
  compare::Options options;
  std::string format = kDefaultFormat;
  int exit_code = 0;
};

absl::StatusOr<std::string> Slurp(const std::string& role,
                                  const std::string& path) {
  return core::ReadInputFile(role, path);
}

enum class Kind { kBenchmark, kResult };

// Which of the two accepted shapes a file has (after it parsed as JSON).
absl::StatusOr<Kind> KindOf(const std::string& role, const std::string& path,
                            const rapidjson::ParseResult& parsed,
                            const rapidjson::Document& d) {
  if (parsed.IsError()) {
    return absl::InvalidArgumentError(absl::StrCat(
        role, " '", path, "': not JSON (error at byte ", parsed.Offset(),
        "); accepted: Google Benchmark or perflab --format json output"));
  }
  if (d.IsObject() && d.HasMember("benchmarks")) return Kind::kBenchmark;
  if (d.IsObject() && d.HasMember("title") && d["title"].IsString()) {
    return Kind::kResult;
  }
  return absl::InvalidArgumentError(absl::StrCat(
      role, " '", path,
      "': neither Google Benchmark JSON (no \"benchmarks\" array) nor a "
      "perflab result (no \"title\"); accepted: either"));
}

absl::StatusOr<core::Document> Run(Args& a) {
  absl::StatusOr<std::string> base = Slurp("BASE", a.base);
  if (!base.ok()) return base.status();
  absl::StatusOr<std::string> cont = Slurp("CONTENDER", a.contender);
  if (!cont.ok()) return cont.status();
  rapidjson::Document bd, cd;
  // NaN: Google Benchmark writes it for the cv of a constant counter.
  constexpr unsigned kFlags =
      rapidjson::kParseFullPrecisionFlag | rapidjson::kParseNanAndInfFlag;
  const rapidjson::ParseResult bp = core::ParseJson<kFlags>(bd, *base);
  const rapidjson::ParseResult cp = core::ParseJson<kFlags>(cd, *cont);
  absl::StatusOr<Kind> bk = KindOf("BASE", a.base, bp, bd);
  if (!bk.ok()) return bk.status();
  absl::StatusOr<Kind> ck = KindOf("CONTENDER", a.contender, cp, cd);
  if (!ck.ok()) return ck.status();
  if (*bk != *ck) {
    return absl::InvalidArgumentError(
        "BASE and CONTENDER are different kinds of file (one Google Benchmark "
        "JSON, one perflab result); accepted: two of the same kind");
  }
  if (*bk == Kind::kResult) {
    absl::StatusOr<compare::DocDiff> diff = compare::DiffResults(bd, cd);
    if (!diff.ok()) return diff.status();
    a.exit_code = diff->differs ? 1 : 0;
    return std::move(diff->doc);
  }
  auto b = compare::ParseGbenchJson(*base, a.options.metric);
  if (!b.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("BASE '", a.base, "': ", b.status().message()));
  }
  auto c = compare::ParseGbenchJson(*cont, a.options.metric);
  if (!c.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("CONTENDER '", a.contender, "': ", c.status().message()));
  }
  absl::StatusOr<compare::Comparison> result =
      compare::Compare(*b, *c, a.options);
  if (!result.ok()) return result.status();
  a.exit_code = result->any_slower ? 1 : 0;
  return compare::ToDocument(*result, a.options);
}

}  // namespace

void AddCompareCommands(CLI::App& root, Registry& registry) {
  CLI::App* cmd = root.add_subcommand(
      "compare",
      "did CONTENDER get faster or slower than BASE, or is it noise? (two "
      "Google Benchmark JSON files, or two perflab results)");
  cmd->footer(
      "Exit code: 0 nothing slower (results: identical), 1 something slower "
      "(results: a field differs), 2 bad input.");
  auto a = std::make_shared<Args>();
  cmd->add_option("BASE", a->base, "the reference JSON file")->required();
  cmd->add_option("CONTENDER", a->contender, "the JSON file under test")
      ->required();
  cmd->add_option("--alpha", a->options.alpha,
                  WithDefault("significance level of the U test",
                              DefaultText(a->options.alpha)))
      ->check(OpenFraction());
  cmd->add_option("--threshold", a->options.threshold_pct,
                  WithDefault("smallest change in percent that counts",
                              DefaultText(a->options.threshold_pct)))
      ->check(NonNegative());
  cmd->add_option("--metric", a->options.metric,
                  WithDefault("real_time, cpu_time or a counter name",
                              DefaultText(a->options.metric)));
  cmd->add_option("--format", a->format,
                  WithDefault("output: " + absl::StrJoin(TableFormats(), ", "),
                              DefaultText(a->format)))
      ->check(CLI::IsMember(TableFormats()));
  cmd->callback([&registry, a] {
    registry.chosen() = Registry::Choice{[a]() { return Run(*a); }, &a->format};
    Registry::Extras& extras = registry.extras();
    extras.render = compare::RenderAs;
    extras.exit_code = [a] { return a->exit_code; };
  });
}

}  // namespace perflab::cli
