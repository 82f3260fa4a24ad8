// A Document is what every perflab command produces: titled scalar fields,
// nested fields (records and lists, for JSON), tables and notes. One Document
// renders every way a command prints: an aligned human table, JSON for
// scripts (field names are the stable `key`s), CSV for the tables and (in
// tools/compare) Markdown, so no command writes a second JSON by hand.
//
// A field may be for every rendering, for readers only (text, CSV,
// Markdown) or for JSON only: a command whose JSON record is shaped apart
// from its tables (the capstone's) puts both in one Document.
//
// Rendering is deterministic: insertion order is kept, doubles print with
// std::to_chars (shortest round-trip) in JSON/CSV and a fixed number of
// decimals in the human table. Not thread-safe; build one per command.
#ifndef PERFLAB_CORE_DOCUMENT_H_
#define PERFLAB_CORE_DOCUMENT_H_

#include <any>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "absl/status/statusor.h"

namespace perflab::core {

// A cell or field value. Doubles carry their display precision separately.
using Value = std::variant<std::monostate, int64_t, double, std::string, bool>;

struct Column {
  std::string key;     // JSON/CSV name, stable for scripts: "p99_ms"
  std::string header;  // human header with its unit: "p99 (ms)"
  int decimals = 0;    // digits after the point for doubles in the human table
};

struct Table {
  std::string key;    // JSON name of the array: "clients"
  std::string title;  // human heading above the table
  std::vector<Column> columns;
  std::vector<std::vector<Value>> rows;  // each row has columns.size() cells

  // Appends a row; the cell count must match the columns (checked by assert).
  Table& Add(std::vector<Value> row);
};

class Node;

// What converts to a scalar Node: anything a Value is made from.
template <typename T>
concept NodeScalar = !std::is_same_v<std::remove_cvref_t<T>, Node> &&
                     std::is_constructible_v<Value, T&&>;

// A value that nests: a scalar, a list of nodes, or a record (its keys in
// the order they were set).
class Node {
 public:
  Node() = default;  // an absent scalar
  // Node(2.5), Node(int64_t{3}), Node(true), Node(std::string("a")).
  // Implicit: a scalar is a node. NodeScalar excludes Node, so this never
  // hides the copy or move constructor.
  template <NodeScalar T>
  // NOLINTNEXTLINE(google-explicit-constructor,bugprone-forwarding-reference-overload)
  Node(T&& value) : value_(std::forward<T>(value)) {}

  static Node List();
  static Node Record();
  // A list of the scalars in `items` (doubles, strings, ...), in order.
  template <typename Range>
  static Node ListOf(const Range& items) {
    Node list = List();
    for (const auto& item : items) list.Add(Node(item));
    return list;
  }

  // Record only: appends `key` (keys are not checked for repeats).
  Node& Set(std::string key, Node value);
  // List only: appends an item.
  Node& Add(Node item);

  bool is_list() const { return kind_ == Kind::kList; }
  bool is_record() const { return kind_ == Kind::kRecord; }
  bool is_scalar() const { return kind_ == Kind::kScalar; }
  const Value& value() const { return value_; }              // a scalar's
  const std::vector<Node>& items() const { return items_; }  // list, record
  const std::vector<std::string>& keys() const { return keys_; }  // record
  // A record's value for `key`, nullptr if absent or not a record.
  const Node* Find(std::string_view key) const;

 private:
  enum class Kind { kScalar, kList, kRecord };
  Kind kind_ = Kind::kScalar;
  Value value_;
  std::vector<std::string> keys_;  // a record's, one per item
  std::vector<Node> items_;
};

// Which renderings show a field.
enum class Audience {
  kAll,      // text, CSV, Markdown and JSON
  kReaders,  // text, CSV and Markdown: JSON says it in its own shape
  kJson,     // JSON only: a nested field, or a key readers see in a table
};

struct Field {
  std::string key;  // JSON name: "peak_n"
  std::string
      label;  // human label with its unit: "peak capacity (x one worker)"
  Value value;
  int decimals = 0;
  Audience audience = Audience::kAll;
  Node nested;  // a list or record for JSON (value then unused)
};

// Whether text, CSV and Markdown show the field.
inline bool ForReaders(const Field& f) { return f.audience != Audience::kJson; }

// How ToJson lays a Document out.
enum class JsonLayout {
  // One line: "title", the fields, each table as an array of row objects,
  // "notes"; doubles in their shortest round-trip form; an absent or
  // non-finite value is null.
  kFlat,
  // A record for scripts, indented by two spaces: only the fields for JSON,
  // in the order they were set, with no title, tables or notes (those are
  // the readers'); doubles as RapidJSON's writer prints them (2.0, 1e-7);
  // a field or record key whose value is absent or non-finite is left out
  // (a list item stays, as null).
  kRecord,
};

class Document {
 public:
  explicit Document(std::string title) : title_(std::move(title)) {}

  // Scalars print first, then tables in insertion order, then notes.
  Document& Set(std::string key, std::string label, Value value,
                int decimals = 0);
  // A scalar field shown to `audience` only.
  Document& SetFor(Audience audience, std::string key, std::string label,
                   Value value, int decimals = 0);
  // A nested field (a list or a record): JSON only, readers see tables.
  Document& SetNested(std::string key, Node node);
  Table& AddTable(std::string key, std::string title,
                  std::vector<Column> columns);
  Document& Note(std::string line);

  const std::string& title() const { return title_; }
  const std::vector<Field>& fields() const { return fields_; }
  const std::vector<Table>& tables() const { return tables_; }
  const std::vector<std::string>& notes() const { return notes_; }
  JsonLayout json_layout() const { return json_layout_; }
  void set_json_layout(JsonLayout layout) { json_layout_ = layout; }

  // Finds a field (the first of its key) or table by key (nullptr if
  // absent); for tests and composers.
  const Field* FindField(std::string_view key) const;
  const Table* FindTable(std::string_view key) const;

  // Attachments are values for in-process consumers (the sweep merges a
  // run's latency histogram, for example) that no renderer prints, so
  // attaching never changes a command's output. A key attached twice keeps
  // the last value.
  Document& Attach(std::string key, std::any value);
  const std::any* FindAttachment(std::string_view key) const;

 private:
  std::string title_;
  std::vector<Field> fields_;
  std::vector<Table> tables_;
  std::vector<std::string> notes_;
  std::vector<std::pair<std::string, std::any>> attachments_;
  JsonLayout json_layout_ = JsonLayout::kFlat;
};

enum class Format { kTable, kJson, kCsv };

// Parses "table", "json" or "csv"; anything else is InvalidArgument.
absl::StatusOr<Format> ParseFormat(std::string_view name);

std::string ToText(const Document& doc);
std::string ToJson(const Document& doc);
// CSV has one header line per table; several tables are separated by a blank
// line and preceded by "# key". Scalars become a two-column "key,value" table.
std::string ToCsv(const Document& doc);
std::string Render(const Document& doc, Format format);

// Reads a numeric cell as a double (int64 or double), for tests and composers.
double AsDouble(const Value& v);

}  // namespace perflab::core

#endif  // PERFLAB_CORE_DOCUMENT_H_
