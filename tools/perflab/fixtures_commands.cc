// `perflab fixtures build [--scale F] [--out PATH] [--seed N]
// [--no-customer-index]`: (re)generates the case study's order database
// (bench/order_service/dataset.h) and reports its row counts and generation
// time.
#include <filesystem>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "bench/order_service/dataset.h"
#include "core/interrupt.h"
#include "tools/perflab/commands.h"

namespace perflab::cli {
namespace {

struct BuildFlags {
  double scale = orders::DatasetOptions().scale;
  std::string out;  // empty: the build tree's default path for the scale
  uint64_t seed = orders::DatasetOptions().seed;
  bool no_customer_index = !orders::DatasetOptions().customer_index;
};

absl::StatusOr<core::Document> RunBuild(const BuildFlags& flags) {
  orders::DatasetOptions options{.scale = flags.scale,
                                 .seed = flags.seed,
                                 .customer_index = !flags.no_customer_index};
  auto shape = orders::ShapeFor(options);
  if (!shape.ok()) return shape.status();
  std::string path =
      flags.out.empty() ? orders::DefaultDatasetPath(flags.scale) : flags.out;
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--out: got '", path, "'; accepted: a file path, not a directory"));
  }
  // An interrupt removes the temporary database (registered by the writer).
  core::InstallInterruptCleanup();
  auto built = orders::BuildDataset(path, options);
  if (!built.ok()) {
    // The generator itself cannot fail on valid options: a failure here is
    // the output location (missing parent, no permission, full disk).
    return absl::InvalidArgumentError(absl::StrCat(
        "--out: got '", path, "'; accepted: a writable file path (",
        std::string(built.status().message()), ")"));
  }
  absl::Status check = orders::CheckDataset(path, options);
  if (!check.ok()) return check;

  core::Document doc("Order database (the case study's dataset)");
  doc.Set("path", "file", built->path);
  doc.Set("scale", "scale (x 5,000 customers)", flags.scale, 2);
  doc.Set("seed", "seed", static_cast<int64_t>(flags.seed));
  doc.Set("customer_index", "index orders(customer_id, created_at)",
          options.customer_index);
  doc.Set("generation_s", "generation time (s)", built->seconds, 2);
  doc.Set("file_bytes", "file size (bytes)", built->file_bytes);
  auto& rows = doc.AddTable("tables", "Rows per table",
                            {{"table", "table"}, {"rows", "rows"}});
  rows.Add({std::string("customers"), built->shape.customers});
  rows.Add({std::string("products"), built->shape.products});
  rows.Add({std::string("orders"), built->shape.orders});
  rows.Add({std::string("order_items"), built->shape.order_items});
  doc.Note(
      "Same seed and scale give the same rows; the benchmarks check "
      "schema, meta and row counts before using a file.");
  return doc;
}

}  // namespace

void AddFixturesCommands(CLI::App& root, Registry& registry) {
  CLI::App* fixtures = root.add_subcommand(
      "fixtures", "deterministic datasets for the benchmarks");
  fixtures->require_subcommand(1);
  CLI::App* build = fixtures->add_subcommand(
      "build", "generate the order database (5,000 customers x scale)");
  auto flags = std::make_shared<BuildFlags>();
  build
      ->add_option("--scale", flags->scale,
                   WithDefault("multiplies customers and products",
                               DefaultText(flags->scale)))
      ->check(PositiveAtMost(orders::kMaxScale));
  build->add_option(
      "--out", flags->out,
      absl::StrCat("output file (default: the benchmarks' file in the build "
                   "tree, ",
                   orders::DefaultDatasetPath(flags->scale), " at scale ",
                   DefaultText(flags->scale), ")"));
  build
      ->add_option("--seed", flags->seed,
                   WithDefault("row generator seed", DefaultText(flags->seed)))
      ->check(Seed());
  build->add_flag("--no-customer-index", flags->no_customer_index,
                  "omit orders(customer_id, created_at)");
  registry.Produces(build, [flags] { return RunBuild(*flags); });
}

}  // namespace perflab::cli
