// Rendering of core::Document: stable JSON, aligned tables, quoted CSV.
#include "core/document.h"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "core/atomic_file.h"
#include "gtest/gtest.h"

namespace perflab::core {
namespace {

Document Sample() {
  Document doc("Sample");
  doc.Set("peak_n", "peak N", int64_t{22}).Set("ratio", "ratio (x)", 7.397, 2);
  auto& t = doc.AddTable("points", "Points",
                         {{"name", "name", 0}, {"p99_ms", "p99 (ms)", 1}});
  t.Add({std::string("a,b"), 4705.26});
  t.Add({std::string("open"), std::nan("")});
  doc.Note("a note");
  return doc;
}

TEST(Document, Json) {
  EXPECT_EQ(ToJson(Sample()),
            "{\"title\":\"Sample\",\"peak_n\":22,\"ratio\":7.397,"
            "\"points\":[{\"name\":\"a,b\",\"p99_ms\":4705.26},"
            "{\"name\":\"open\"}],\"notes\":[\"a note\"]}\n");
}

// A value that does not apply: its key is absent from the JSON object (never
// null), "-" in the table and an empty CSV cell; the other keys keep their
// order.
TEST(Document, AValueThatDoesNotApplyLeavesItsKeyOut) {
  Document doc("T");
  doc.Set("a", "a", int64_t{1})
      .Set("ci_s", "ci (s)", Value())
      .Set("b", "b", 2.5, 1);
  auto& t =
      doc.AddTable("rows", "Rows",
                   {{"rate", "rate"}, {"first_s", "first (s)", 1}, {"n", "n"}});
  t.Add({int64_t{100}, Value(), int64_t{0}});
  t.Add({int64_t{250}, 148.5, int64_t{7}});
  EXPECT_EQ(ToJson(doc),
            "{\"title\":\"T\",\"a\":1,\"b\":2.5,\"rows\":["
            "{\"rate\":100,\"n\":0},"
            "{\"rate\":250,\"first_s\":148.5,\"n\":7}],\"notes\":[]}\n");
  EXPECT_EQ(ToCsv(doc),
            "# fields\nkey,value\na,1\nci_s,\nb,2.5\n\n"
            "# rows\nrate,first_s,n\n100,,0\n250,148.5,7\n");
  const std::string text = ToText(doc);
  EXPECT_NE(text.find("ci (s)  -"), std::string::npos) << text;
  EXPECT_NE(text.find("   100          -  0"), std::string::npos) << text;
}

TEST(Document, TextAlignsAndRoundsToDecimals) {
  std::string text = ToText(Sample());
  EXPECT_NE(text.find("peak N     22"), std::string::npos) << text;
  EXPECT_NE(text.find("ratio (x)  7.40"), std::string::npos) << text;
  EXPECT_NE(text.find("  a,b     4705.3"), std::string::npos) << text;
  EXPECT_NE(text.find("  a note"), std::string::npos) << text;
}

TEST(Document, CsvQuotesAndSeparatesTables) {
  EXPECT_EQ(ToCsv(Sample()),
            "# fields\nkey,value\npeak_n,22\nratio,7.397\n\n"
            "# points\nname,p99_ms\n\"a,b\",4705.26\nopen,nan\n");
}

TEST(Document, AttachmentsAreFoundButNeverRendered) {
  Document doc = Sample();
  const std::string json = ToJson(doc), text = ToText(doc), csv = ToCsv(doc);
  doc.Attach("histogram", std::string("payload-that-must-not-print"));
  doc.Attach("count", 3);
  doc.Attach("count", 4);  // the last value wins
  EXPECT_EQ(ToJson(doc), json);
  EXPECT_EQ(ToText(doc), text);
  EXPECT_EQ(ToCsv(doc), csv);
  ASSERT_NE(doc.FindAttachment("count"), nullptr);
  EXPECT_EQ(std::any_cast<int>(*doc.FindAttachment("count")), 4);
  EXPECT_EQ(doc.FindAttachment("absent"), nullptr);
}

// A record and a list nest inside a field; the flat layout writes them on
// its one line, and a field for readers only stays out of the JSON.
TEST(Document, FlatJsonNestsRecordsAndLists) {
  Document doc("N");
  doc.Set("a", "a", int64_t{1});
  doc.SetNested(
      "r", Node::Record()
               .Set("x", 1.5)
               .Set("l", Node::List().Add(2.0).Add(Node()))
               .Set("s", Node::ListOf(std::vector<std::string>{"p", "q"})));
  doc.SetFor(Audience::kReaders, "hidden", "hidden", std::string("h"));
  EXPECT_EQ(ToJson(doc),
            "{\"title\":\"N\",\"a\":1,\"r\":{\"x\":1.5,\"l\":[2,null],"
            "\"s\":[\"p\",\"q\"]},"
            "\"notes\":[]}\n");
}

Document RecordSample() {
  Document doc("R");
  doc.set_json_layout(JsonLayout::kRecord);
  doc.SetFor(Audience::kReaders, "shown", "shown to readers", int64_t{1});
  doc.Set("both", "both", 2.0, 1);
  doc.SetNested(
      "rec",
      Node::Record()
          .Set("x", 0.5)
          .Set("none", Node())
          .Set("nan", std::nan(""))
          .Set("list", Node::List().Add(int64_t{3}).Add(std::string("a")))
          .Set("empty", Node::Record()));
  doc.SetFor(Audience::kJson, "only", "a label wider than any reader sees",
             true);
  doc.SetFor(Audience::kJson, "unknown", "not measured", Value());
  doc.AddTable("t", "T", {{"k", "k"}}).Add({std::string("row")});
  doc.Note("a note");
  return doc;
}

// The record layout: indented by two, the JSON fields in the order they
// were set, no title, table or note, doubles with their point, and a value
// that is absent or not finite ("none", "nan", "unknown") left out, key and
// all.
TEST(Document, RecordJsonHasOnlyTheFieldsForJson) {
  EXPECT_EQ(ToJson(RecordSample()),
            "{\n"
            "  \"both\": 2.0,\n"
            "  \"rec\": {\n"
            "    \"x\": 0.5,\n"
            "    \"list\": [\n"
            "      3,\n"
            "      \"a\"\n"
            "    ],\n"
            "    \"empty\": {}\n"
            "  },\n"
            "  \"only\": true\n"
            "}\n");
}

// Readers see the fields for them and the tables; the label column is as
// wide as their widest label, not a JSON field's.
TEST(Document, ReadersSeeNoFieldForJsonOnly) {
  const Document doc = RecordSample();
  EXPECT_EQ(ToText(doc),
            "R\n"
            "  shown to readers  1\n"
            "  both              2.0\n"
            "\n"
            "T\n"
            "  k\n"
            "  row\n"
            "\n"
            "  a note\n");
  EXPECT_EQ(ToCsv(doc),
            "# fields\nkey,value\nshown,1\nboth,2\n\n# t\nk\nrow\n");
}

TEST(Document, NodeFindsARecordsKey) {
  const Node r = Node::Record().Set("a", int64_t{1}).Set("b", 2.5);
  ASSERT_NE(r.Find("b"), nullptr);
  EXPECT_EQ(AsDouble(r.Find("b")->value()), 2.5);
  EXPECT_EQ(r.Find("c"), nullptr);
  EXPECT_EQ(Node::List().Find("a"), nullptr);
  EXPECT_TRUE(Node().is_scalar());
}

TEST(Document, ParseFormat) {
  EXPECT_TRUE(ParseFormat("json").ok());
  EXPECT_FALSE(ParseFormat("xml").ok());
}

TEST(Files, WriteAtomicReplacesAndLeavesNoTemporary) {
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / "perflab_files_test";
  fs::remove_all(dir);
  std::string path = (dir / "sub" / "out.txt").string();
  ASSERT_TRUE(WriteFileAtomic(path, "one").ok());
  ASSERT_TRUE(WriteFileAtomic(path, "two").ok());
  std::ifstream in(path);
  std::string content((std::istreambuf_iterator<char>(in)), {});
  EXPECT_EQ(content, "two");
  int files = 0;
  for (const auto& e : fs::directory_iterator(dir / "sub")) {
    (void)e;
    ++files;
  }
  EXPECT_EQ(files, 1);
  // A path under a regular file cannot be created: error, nothing written.
  EXPECT_FALSE(WriteFileAtomic(path + "/x", "three").ok());
  fs::remove_all(dir);
}

}  // namespace
}  // namespace perflab::core
