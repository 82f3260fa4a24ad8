#include "core/document.h"

#include <algorithm>
#include <cassert>
#include <charconv>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "rapidjson/stringbuffer.h"
#include "rapidjson/writer.h"

namespace perflab::core {
namespace {

// Shortest text that reads back as the same double: identical on every build.
std::string ShortestDouble(double d) {
  if (std::isnan(d)) return "nan";
  if (std::isinf(d)) return d > 0 ? "inf" : "-inf";
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, d);
  return std::string(buf, res.ptr);
}

std::string HumanCell(const Value& v, int decimals) {
  struct Visitor {
    int decimals;
    std::string operator()(std::monostate) const { return "-"; }
    std::string operator()(int64_t i) const { return absl::StrCat(i); }
    std::string operator()(double d) const {
      if (!std::isfinite(d)) return ShortestDouble(d);
      return absl::StrFormat("%.*f", decimals, d);
    }
    std::string operator()(const std::string& s) const { return s; }
    std::string operator()(bool b) const { return b ? "yes" : "no"; }
  };
  return std::visit(Visitor{decimals}, v);
}

std::string CsvCell(const Value& v) {
  struct Visitor {
    std::string operator()(std::monostate) const { return ""; }
    std::string operator()(int64_t i) const { return absl::StrCat(i); }
    std::string operator()(double d) const { return ShortestDouble(d); }
    std::string operator()(const std::string& s) const {
      if (s.find_first_of(",\"\n") == std::string::npos) return s;
      std::string out = "\"";
      for (char c : s) {
        if (c == '"') out += '"';
        out += c;
      }
      return out + "\"";
    }
    std::string operator()(bool b) const { return b ? "true" : "false"; }
  };
  return std::visit(Visitor{}, v);
}

using JsonWriter = rapidjson::Writer<rapidjson::StringBuffer>;

void WriteJsonValue(JsonWriter& w, const Value& v) {
  struct Visitor {
    JsonWriter& w;
    // Never reached for a whole field or cell: ToJson leaves those out.
    void operator()(std::monostate) const { w.Null(); }
    void operator()(int64_t i) const { w.Int64(i); }
    void operator()(double d) const {
      // JSON has no NaN or infinity; an absent value is the honest encoding.
      if (!std::isfinite(d)) {
        w.Null();
        return;
      }
      std::string s = ShortestDouble(d);
      w.RawValue(s.c_str(), s.size(), rapidjson::kNumberType);
    }
    void operator()(const std::string& s) const {
      w.String(s.c_str(), static_cast<rapidjson::SizeType>(s.size()));
    }
    void operator()(bool b) const { w.Bool(b); }
  };
  std::visit(Visitor{w}, v);
}

void Key(JsonWriter& w, const std::string& k) {
  w.Key(k.c_str(), static_cast<rapidjson::SizeType>(k.size()));
}

}  // namespace

Table& Table::Add(std::vector<Value> row) {
  assert(row.size() == columns.size());
  rows.push_back(std::move(row));
  return *this;
}

Document& Document::Set(std::string key, std::string label, Value value,
                        int decimals) {
  fields_.push_back(
      Field{std::move(key), std::move(label), std::move(value), decimals});
  return *this;
}

Table& Document::AddTable(std::string key, std::string title,
                          std::vector<Column> columns) {
  tables_.push_back(
      Table{std::move(key), std::move(title), std::move(columns), {}});
  return tables_.back();
}

Document& Document::Note(std::string line) {
  notes_.push_back(std::move(line));
  return *this;
}

const Field* Document::FindField(std::string_view key) const {
  for (const Field& f : fields_)
    if (f.key == key) return &f;
  return nullptr;
}

const Table* Document::FindTable(std::string_view key) const {
  for (const Table& t : tables_)
    if (t.key == key) return &t;
  return nullptr;
}

Document& Document::Attach(std::string key, std::any value) {
  for (auto& [k, v] : attachments_) {
    if (k == key) {
      v = std::move(value);
      return *this;
    }
  }
  attachments_.emplace_back(std::move(key), std::move(value));
  return *this;
}

const std::any* Document::FindAttachment(std::string_view key) const {
  for (const auto& [k, v] : attachments_)
    if (k == key) return &v;
  return nullptr;
}

absl::StatusOr<Format> ParseFormat(std::string_view name) {
  if (name == "table") return Format::kTable;
  if (name == "json") return Format::kJson;
  if (name == "csv") return Format::kCsv;
  return absl::InvalidArgumentError(
      absl::StrCat("--format: unknown value '", std::string(name),
                   "'; accepted: table, json, csv"));
}

std::string ToText(const Document& doc) {
  std::string out = doc.title() + "\n";
  size_t label_width = 0;
  for (const Field& f : doc.fields())
    label_width = std::max(label_width, f.label.size());
  for (const Field& f : doc.fields()) {
    absl::StrAppendFormat(&out, "  %-*s  %s\n", static_cast<int>(label_width),
                          f.label, HumanCell(f.value, f.decimals));
  }
  for (const Table& t : doc.tables()) {
    out += "\n";
    if (!t.title.empty()) out += t.title + "\n";
    std::vector<size_t> width(t.columns.size());
    std::vector<std::vector<std::string>> cells;
    for (size_t c = 0; c < t.columns.size(); ++c)
      width[c] = t.columns[c].header.size();
    for (const auto& row : t.rows) {
      std::vector<std::string> line;
      for (size_t c = 0; c < row.size(); ++c) {
        line.push_back(HumanCell(row[c], t.columns[c].decimals));
        width[c] = std::max(width[c], line.back().size());
      }
      cells.push_back(std::move(line));
    }
    std::vector<bool> is_text(t.columns.size(), false);
    for (const auto& row : t.rows) {
      for (size_t c = 0; c < row.size(); ++c) {
        if (std::holds_alternative<std::string>(row[c])) is_text[c] = true;
      }
    }
    // Two spaces between columns (one reads as a word break, not a column);
    // text aligns left and numbers right, as a reader scans them.
    auto line = [&](const std::vector<std::string>& text) {
      std::string s;
      for (size_t c = 0; c < text.size(); ++c) {
        std::string pad(width[c] - text[c].size(), ' ');
        s += "  ";
        s += is_text[c] ? text[c] + pad : pad + text[c];
      }
      // Trailing spaces from a left-aligned last column help nobody.
      s.erase(s.find_last_not_of(' ') + 1);
      return s + "\n";
    };
    std::vector<std::string> headers;
    for (const Column& col : t.columns) headers.push_back(col.header);
    out += line(headers);
    for (const auto& text : cells) out += line(text);
  }
  if (!doc.notes().empty()) out += "\n";
  for (const std::string& n : doc.notes()) out += "  " + n + "\n";
  return out;
}

std::string ToJson(const Document& doc) {
  rapidjson::StringBuffer buf;
  JsonWriter w(buf);
  w.StartObject();
  Key(w, "title");
  w.String(doc.title().c_str());
  // A value that does not apply (std::monostate) is left out of its object:
  // a reader finds the key absent, never a null standing for a number.
  for (const Field& f : doc.fields()) {
    if (std::holds_alternative<std::monostate>(f.value)) continue;
    Key(w, f.key);
    WriteJsonValue(w, f.value);
  }
  for (const Table& t : doc.tables()) {
    Key(w, t.key);
    w.StartArray();
    for (const auto& row : t.rows) {
      w.StartObject();
      for (size_t c = 0; c < row.size(); ++c) {
        if (std::holds_alternative<std::monostate>(row[c])) continue;
        Key(w, t.columns[c].key);
        WriteJsonValue(w, row[c]);
      }
      w.EndObject();
    }
    w.EndArray();
  }
  Key(w, "notes");
  w.StartArray();
  for (const std::string& n : doc.notes()) w.String(n.c_str());
  w.EndArray();
  w.EndObject();
  return std::string(buf.GetString(), buf.GetSize()) + "\n";
}

std::string ToCsv(const Document& doc) {
  std::string out;
  bool several = doc.tables().size() + (doc.fields().empty() ? 0 : 1) > 1;
  if (!doc.fields().empty()) {
    if (several) out += "# fields\n";
    out += "key,value\n";
    for (const Field& f : doc.fields())
      out += f.key + "," + CsvCell(f.value) + "\n";
  }
  for (const Table& t : doc.tables()) {
    if (!out.empty()) out += "\n";
    if (several) out += "# " + t.key + "\n";
    for (size_t c = 0; c < t.columns.size(); ++c)
      out += (c ? "," : "") + t.columns[c].key;
    out += "\n";
    for (const auto& row : t.rows) {
      for (size_t c = 0; c < row.size(); ++c)
        out += (c ? "," : "") + CsvCell(row[c]);
      out += "\n";
    }
  }
  return out;
}

std::string Render(const Document& doc, Format format) {
  switch (format) {
    case Format::kJson:
      return ToJson(doc);
    case Format::kCsv:
      return ToCsv(doc);
    case Format::kTable:
      break;
  }
  return ToText(doc);
}

double AsDouble(const Value& v) {
  if (const auto* i = std::get_if<int64_t>(&v)) return static_cast<double>(*i);
  if (const auto* d = std::get_if<double>(&v)) return *d;
  return std::nan("");
}

}  // namespace perflab::core
