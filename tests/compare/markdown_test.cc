// tools/compare/markdown.h: a Document as GitHub Markdown, against text
// written out by hand.
#include "tools/compare/markdown.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace perflab::compare {
namespace {

core::Document Sample() {
  core::Document d("Benchmark comparison");
  d.Set("geomean_ratio", "geometric mean", 1.23456, 2);
  d.Set("slower", "benchmarks slower", int64_t{1});
  d.Set("identical", "identical", false);
  core::Table& t = d.AddTable("benchmarks", "the rows",
                              {{"name", "benchmark", 0},
                               {"change_pct", "change (%)", 1},
                               {"reps", "reps", 0}});
  t.Add({std::string("BM_A|B"), 12.345, int64_t{9}});
  t.Add({std::string("BM_C"), core::Value{}, int64_t{3}});
  d.AddTable("only_in_base", "only in BASE: none", {{"name", "benchmark", 0}});
  d.Note("verdict: slower when p < 0.05");
  return d;
}

// Fields as a bold list; the text column left-aligned, numbers right; the
// pipe in a name escaped; a missing value "-"; the empty table left out;
// notes quoted.
TEST(ToMarkdown, RendersEachPart) {
  EXPECT_EQ(ToMarkdown(Sample()),
            "### Benchmark comparison\n"
            "\n"
            "- geometric mean: **1.23**\n"
            "- benchmarks slower: **1**\n"
            "- identical: **no**\n"
            "\n"
            "**the rows**\n"
            "\n"
            "| benchmark | change (%) | reps |\n"
            "| :--- | ---: | ---: |\n"
            "| BM_A\\|B | 12.3 | 9 |\n"
            "| BM_C | - | 3 |\n"
            "\n"
            "> verdict: slower when p < 0.05\n");
}

// A field for JSON only (a nested record, a key the tables show) is not
// the reader's: Markdown leaves it out as the text table does.
TEST(ToMarkdown, LeavesOutFieldsForJsonOnly) {
  core::Document d("R");
  d.SetFor(core::Audience::kReaders, "shown", "shown", int64_t{1});
  d.SetNested("record", core::Node::Record().Set("x", 2.5));
  d.SetFor(core::Audience::kJson, "hidden", "hidden", int64_t{2});
  EXPECT_EQ(ToMarkdown(d), "### R\n\n- shown: **1**\n");
}

TEST(RenderAs, MdIsMarkdownOthersAreTheCoreRenderers) {
  const core::Document d = Sample();
  EXPECT_EQ(RenderAs(d, "md"), ToMarkdown(d));
  EXPECT_EQ(RenderAs(d, "json"), core::Render(d, core::Format::kJson));
  EXPECT_EQ(RenderAs(d, "csv"), core::Render(d, core::Format::kCsv));
  EXPECT_EQ(RenderAs(d, "nonsense"), core::Render(d, core::Format::kTable));
}

}  // namespace
}  // namespace perflab::compare
