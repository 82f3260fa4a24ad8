#include "core/document.h"

#include <algorithm>
#include <cassert>
#include <charconv>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "rapidjson/prettywriter.h"
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

// A value that does not apply, or a double JSON cannot hold (it has no NaN
// or infinity).
bool IsAbsent(const Value& v) {
  if (std::holds_alternative<std::monostate>(v)) return true;
  const double* d = std::get_if<double>(&v);
  return d != nullptr && !std::isfinite(*d);
}

// The flat layout prints a double in its shortest round-trip form; the
// record layout as RapidJSON's writer does, which always keeps a point or an
// exponent (2.0).
template <typename W>
void WriteJsonValue(W& w, const Value& v, JsonLayout layout) {
  if (IsAbsent(v)) {
    w.Null();
    return;
  }
  struct Visitor {
    W& w;
    JsonLayout layout;
    void operator()(std::monostate) const { w.Null(); }
    void operator()(int64_t i) const { w.Int64(i); }
    void operator()(double d) const {
      if (layout == JsonLayout::kRecord) {
        w.Double(d);
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
  std::visit(Visitor{w, layout}, v);
}

template <typename W>
void Key(W& w, const std::string& k) {
  w.Key(k.c_str(), static_cast<rapidjson::SizeType>(k.size()));
}

// A number that does not apply is left out, key and all, rather than
// written as null: a script reads "absent", never a null where a number
// belongs. A list keeps its positions, so null stays there.
bool LeftOut(const Node& n) { return n.is_scalar() && IsAbsent(n.value()); }

template <typename W>
void WriteNode(W& w, const Node& n, JsonLayout layout) {
  if (n.is_scalar()) {
    WriteJsonValue(w, n.value(), layout);
    return;
  }
  if (n.is_list()) {
    w.StartArray();
    for (const Node& item : n.items()) WriteNode(w, item, layout);
    w.EndArray();
    return;
  }
  w.StartObject();
  for (size_t i = 0; i < n.items().size(); ++i) {
    if (LeftOut(n.items()[i])) continue;
    Key(w, n.keys()[i]);
    WriteNode(w, n.items()[i], layout);
  }
  w.EndObject();
}

template <typename W>
void WriteField(W& w, const Field& f, JsonLayout layout) {
  Key(w, f.key);
  if (f.nested.is_scalar()) {
    WriteJsonValue(w, f.value, layout);
  } else {
    WriteNode(w, f.nested, layout);
  }
}

std::string FlatJson(const Document& doc) {
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  w.StartObject();
  Key(w, "title");
  w.String(doc.title().c_str());
  for (const Field& f : doc.fields()) {
    if (f.audience == Audience::kReaders) continue;
    if (f.nested.is_scalar() && IsAbsent(f.value)) continue;  // see LeftOut
    WriteField(w, f, JsonLayout::kFlat);
  }
  for (const Table& t : doc.tables()) {
    Key(w, t.key);
    w.StartArray();
    for (const auto& row : t.rows) {
      w.StartObject();
      for (size_t c = 0; c < row.size(); ++c) {
        if (IsAbsent(row[c])) continue;  // see LeftOut
        Key(w, t.columns[c].key);
        WriteJsonValue(w, row[c], JsonLayout::kFlat);
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

std::string RecordJson(const Document& doc) {
  rapidjson::StringBuffer buf;
  rapidjson::PrettyWriter<rapidjson::StringBuffer> w(buf);
  w.SetIndent(' ', 2);
  w.StartObject();
  for (const Field& f : doc.fields()) {
    if (f.audience == Audience::kReaders) continue;
    if (f.nested.is_scalar() && IsAbsent(f.value)) continue;  // see LeftOut
    WriteField(w, f, JsonLayout::kRecord);
  }
  w.EndObject();
  return std::string(buf.GetString(), buf.GetSize()) + "\n";
}

}  // namespace

Table& Table::Add(std::vector<Value> row) {
  assert(row.size() == columns.size());
  rows.push_back(std::move(row));
  return *this;
}

Node Node::List() {
  Node n;
  n.kind_ = Kind::kList;
  return n;
}

Node Node::Record() {
  Node n;
  n.kind_ = Kind::kRecord;
  return n;
}

Node& Node::Set(std::string key, Node value) {
  assert(kind_ == Kind::kRecord);
  keys_.push_back(std::move(key));
  items_.push_back(std::move(value));
  return *this;
}

Node& Node::Add(Node item) {
  assert(kind_ == Kind::kList);
  items_.push_back(std::move(item));
  return *this;
}

const Node* Node::Find(std::string_view key) const {
  if (kind_ != Kind::kRecord) return nullptr;
  for (size_t i = 0; i < keys_.size(); ++i) {
    if (keys_[i] == key) return &items_[i];
  }
  return nullptr;
}

Document& Document::Set(std::string key, std::string label, Value value,
                        int decimals) {
  return SetFor(Audience::kAll, std::move(key), std::move(label),
                std::move(value), decimals);
}

Document& Document::SetFor(Audience audience, std::string key,
                           std::string label, Value value, int decimals) {
  fields_.push_back(Field{std::move(key), std::move(label), std::move(value),
                          decimals, audience, Node()});
  return *this;
}

Document& Document::SetNested(std::string key, Node node) {
  fields_.push_back(
      Field{key, std::move(key), Value(), 0, Audience::kJson, std::move(node)});
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
  for (const Field& f : doc.fields()) {
    if (ForReaders(f)) label_width = std::max(label_width, f.label.size());
  }
  for (const Field& f : doc.fields()) {
    if (!ForReaders(f)) continue;
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
  return doc.json_layout() == JsonLayout::kRecord ? RecordJson(doc)
                                                  : FlatJson(doc);
}

std::string ToCsv(const Document& doc) {
  std::string out;
  const bool any_field =
      std::any_of(doc.fields().begin(), doc.fields().end(), ForReaders);
  bool several = doc.tables().size() + (any_field ? 1 : 0) > 1;
  if (any_field) {
    if (several) out += "# fields\n";
    out += "key,value\n";
    for (const Field& f : doc.fields()) {
      if (ForReaders(f)) out += f.key + "," + CsvCell(f.value) + "\n";
    }
  }
  for (const Table& t : doc.tables()) {
    if (!out.empty()) out += "\n";
    if (several) out += "# " + t.key + "\n";
    for (size_t c = 0; c < t.columns.size(); ++c) {
      if (c > 0) out += ',';
      out += t.columns[c].key;
    }
    out += "\n";
    for (const auto& row : t.rows) {
      for (size_t c = 0; c < row.size(); ++c) {
        if (c > 0) out += ',';
        out += CsvCell(row[c]);
      }
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
