// A Document is what every perflab command produces: titled scalar fields,
// tables and notes. One Document renders three ways: an aligned human table,
// JSON for scripts (field names are the stable `key`s) and CSV for the tables.
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

struct Field {
  std::string key;  // JSON name: "peak_n"
  std::string
      label;  // human label with its unit: "peak capacity (x one worker)"
  Value value;
  int decimals = 0;
};

class Document {
 public:
  explicit Document(std::string title) : title_(std::move(title)) {}

  // Scalars print first, then tables in insertion order, then notes.
  Document& Set(std::string key, std::string label, Value value,
                int decimals = 0);
  Table& AddTable(std::string key, std::string title,
                  std::vector<Column> columns);
  Document& Note(std::string line);

  const std::string& title() const { return title_; }
  const std::vector<Field>& fields() const { return fields_; }
  const std::vector<Table>& tables() const { return tables_; }
  const std::vector<std::string>& notes() const { return notes_; }

  // Finds a field or table by key (nullptr if absent); for tests and composers.
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
