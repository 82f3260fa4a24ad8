#include "tools/calibration/calibration_io.h"

#include <openssl/evp.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>

#include "absl/status/status.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/case_study.h"
#include "core/input_file.h"
#include "core/json.h"
#include "rapidjson/document.h"
#include "rapidjson/error/en.h"
#include "rapidjson/prettywriter.h"
#include "rapidjson/stringbuffer.h"

namespace perflab::capstone {
namespace {

// Every error is one line, even when it quotes a key or value from the file
// that holds a newline or another control character: those are escaped.
absl::Status Bad(std::string_view what) {
  std::string line;
  for (char c : what) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
      absl::StrAppend(&line, absl::CHexEscape(absl::string_view(&c, 1)));
    } else {
      line.push_back(c);
    }
  }
  return absl::InvalidArgumentError(line);
}

std::string FieldNames() {
  std::vector<std::string> names;
  for (const sim::CalibrationField& f : sim::CalibrationFields()) {
    names.emplace_back(f.name);
  }
  return absl::StrJoin(names, ", ");
}

const sim::CalibrationField* FindField(std::string_view name) {
  for (const sim::CalibrationField& f : sim::CalibrationFields()) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

absl::StatusOr<std::string> TopString(const rapidjson::Value& root,
                                      const char* key, bool required) {
  auto it = root.FindMember(key);
  if (it == root.MemberEnd()) {
    if (!required) return std::string();
    return Bad(
        absl::StrCat("calibration: missing \"", key, "\"; accepted: a string"));
  }
  if (!it->value.IsString()) {
    return Bad(absl::StrCat("calibration: \"", key,
                            "\" is not a string; accepted: a string"));
  }
  return std::string(it->value.GetString(), it->value.GetStringLength());
}

std::string KindNames() {
  return "measured, published, table, fitted, assumed";
}

std::string RowNames() {
  std::vector<std::string> names;
  for (const auto& row : case_study::kCapstoneTable)
    names.emplace_back(row.step);
  return absl::StrJoin(names, ", ");
}

std::string ColumnNames() {
  std::vector<std::string> names;
  for (const auto& c : case_study::kCapstoneColumns) names.emplace_back(c.name);
  return absl::StrJoin(names, ", ");
}

std::string FigureNames() {
  std::vector<std::string> names;
  for (const auto& f : case_study::kNamedFigures) names.emplace_back(f.name);
  return absl::StrJoin(names, ", ");
}

bool KnownRow(std::string_view name) {
  for (const auto& row : case_study::kCapstoneTable) {
    if (name == row.step) return true;
  }
  return false;
}

bool KnownColumn(std::string_view name) {
  for (const auto& c : case_study::kCapstoneColumns) {
    if (name == c.name) return true;
  }
  return false;
}

bool KnownFigure(std::string_view name) {
  for (const auto& f : case_study::kNamedFigures) {
    if (name == f.name) return true;
  }
  return false;
}

std::string_view View(const rapidjson::Value& v) {
  return std::string_view(v.GetString(), v.GetStringLength());
}

// An array of strings into `out`; false when it is something else.
bool Strings(const rapidjson::Value& v, std::vector<std::string>& out) {
  if (!v.IsArray()) return false;
  for (const rapidjson::Value& e : v.GetArray()) {
    if (!e.IsString()) return false;
    out.emplace_back(View(e));
  }
  return true;
}

// Every key of a "provenance" object is one of the schema's.
absl::Status CheckProvenanceKeys(const std::string& where,
                                 const rapidjson::Value& v) {
  for (auto m = v.MemberBegin(); m != v.MemberEnd(); ++m) {
    const std::string_view key = View(m->name);
    if (key != "kind" && key != "from" && key != "benchmarks" &&
        key != "formula" && key != "rows" && key != "selected_on" &&
        key != "runs" && key != "figures" && key != "fields" && key != "why") {
      return Bad(absl::StrCat(where, ": unknown provenance key '",
                              std::string(key),
                              "'; accepted: kind, from, benchmarks, formula, "
                              "rows, selected_on, runs, figures, fields, why"));
    }
  }
  return absl::OkStatus();
}

// The required "kind", one of sim::SourceKind's names.
absl::Status ReadKind(const std::string& where, const rapidjson::Value& v,
                      sim::SourceKind& out) {
  auto kind = v.FindMember("kind");
  if (kind == v.MemberEnd() || !kind->value.IsString()) {
    return Bad(absl::StrCat(
        where, ": provenance has no \"kind\"; accepted: ", KindNames()));
  }
  for (sim::SourceKind k :
       {sim::SourceKind::kMeasured, sim::SourceKind::kPublished,
        sim::SourceKind::kTable, sim::SourceKind::kFitted,
        sim::SourceKind::kAssumed}) {
    if (View(kind->value) == sim::SourceKindName(k)) {
      out = k;
      return absl::OkStatus();
    }
  }
  return Bad(absl::StrCat(where, ": provenance kind '",
                          std::string(View(kind->value)),
                          "' is unknown; accepted: ", KindNames()));
}

// The optional strings ("from", "formula", "why") and arrays of strings
// ("benchmarks", "selected_on", "runs", "figures", "fields"), unchecked
// against the names they hold.
absl::Status ReadTextsAndLists(const std::string& where,
                               const rapidjson::Value& v,
                               sim::Provenance& out) {
  for (auto [key, text] :
       {std::pair{"from", &out.from}, std::pair{"formula", &out.formula},
        std::pair{"why", &out.why}}) {
    auto it = v.FindMember(key);
    if (it == v.MemberEnd()) continue;
    if (!it->value.IsString()) {
      return Bad(absl::StrCat(where, ": provenance \"", key,
                              "\" is not a string; accepted: a string"));
    }
    text->assign(View(it->value));
  }
  for (auto [key, list] :
       {std::pair{"benchmarks", &out.benchmarks},
        std::pair{"selected_on", &out.selected_on},
        std::pair{"runs", &out.runs}, std::pair{"figures", &out.figures},
        std::pair{"fields", &out.fields}}) {
    auto it = v.FindMember(key);
    if (it == v.MemberEnd()) continue;
    if (!Strings(it->value, *list)) {
      return Bad(absl::StrCat(where, ": provenance \"", key,
                              "\" is not an array of strings; accepted: an "
                              "array of strings"));
    }
  }
  return absl::OkStatus();
}

// Each name the lists hold is the case study's (a named figure, a step of
// the ten-step table) or a calibration field's, so a misspelt one is
// refused rather than read as a source that matches nothing.
absl::Status CheckListedNames(const std::string& where,
                              const sim::Provenance& p) {
  for (const std::string& f : p.figures) {
    if (!KnownFigure(f)) {
      return Bad(absl::StrCat(where, ": figure '", f,
                              "' is unknown; accepted: the named figures of "
                              "core/case_study.h: ",
                              FigureNames()));
    }
  }
  for (auto [key, list] :
       {std::pair{"selected_on", &p.selected_on}, std::pair{"runs", &p.runs}}) {
    for (const std::string& row : *list) {
      if (!KnownRow(row)) {
        return Bad(absl::StrCat(where, ": ", key, " row '", row,
                                "' is not a step of the ten-step table; "
                                "accepted: ",
                                RowNames()));
      }
    }
  }
  for (const std::string& f : p.fields) {
    if (FindField(f) == nullptr) {
      return Bad(absl::StrCat(where, ": provenance field '", f,
                              "' is unknown; accepted: ", FieldNames()));
    }
  }
  return absl::OkStatus();
}

// One entry of "rows": a known step, once, with a non-empty array of known
// column names.
absl::Status ReadRowCells(const std::string& where, std::string_view row,
                          const rapidjson::Value& columns,
                          std::vector<sim::TableCells>& rows) {
  sim::TableCells cells;
  cells.row.assign(row);
  if (!KnownRow(cells.row)) {
    return Bad(absl::StrCat(where, ": row '", cells.row,
                            "' is not a step of the ten-step table; "
                            "accepted: ",
                            RowNames()));
  }
  for (const sim::TableCells& seen : rows) {
    if (seen.row == cells.row) {
      return Bad(absl::StrCat(where, ": row '", cells.row,
                              "' appears twice; accepted: each row once"));
    }
  }
  if (!Strings(columns, cells.columns) || cells.columns.empty()) {
    return Bad(absl::StrCat(where, ": row '", cells.row,
                            "' needs its columns; accepted: a non-empty "
                            "array of ",
                            ColumnNames()));
  }
  for (const std::string& c : cells.columns) {
    if (!KnownColumn(c)) {
      return Bad(absl::StrCat(where, ": row '", cells.row, "' column '", c,
                              "' is unknown; accepted: ", ColumnNames()));
    }
  }
  rows.push_back(std::move(cells));
  return absl::OkStatus();
}

// The optional "rows" object: the table cells the value reads.
absl::Status ReadRows(const std::string& where, const rapidjson::Value& v,
                      std::vector<sim::TableCells>& out) {
  auto rows = v.FindMember("rows");
  if (rows == v.MemberEnd()) return absl::OkStatus();
  if (!rows->value.IsObject()) {
    return Bad(absl::StrCat(where,
                            ": provenance \"rows\" is not an object; "
                            "accepted: {\"<step of the ten-step table>\": "
                            "[column names]}"));
  }
  for (auto r = rows->value.MemberBegin(); r != rows->value.MemberEnd(); ++r) {
    absl::Status s = ReadRowCells(where, View(r->name), r->value, out);
    if (!s.ok()) return s;
  }
  return absl::OkStatus();
}

// Each kind says what it needs; a table cell makes a value "table".
absl::Status CheckKindNeeds(const std::string& where,
                            const sim::Provenance& out) {
  const std::string kind_name(sim::SourceKindName(out.kind));
  auto needs = [&](bool ok, const std::string& what) -> absl::Status {
    if (ok) return absl::OkStatus();
    return Bad(
        absl::StrCat(where, ": provenance kind '", kind_name, "' ", what));
  };
  // A copy names why its value holds here, whatever its kind.
  if (!out.from.empty() && out.why.empty()) {
    return Bad(absl::StrCat(where, ": copied from '", out.from,
                            "' without a reason; accepted: \"why\" saying why "
                            "its value holds here"));
  }
  absl::Status s;
  switch (out.kind) {
    case sim::SourceKind::kMeasured:
      s = needs(out.selected_on.empty() && out.runs.empty(),
                "reads no table row; accepted: kind 'fitted' for a value "
                "chosen on rows");
      if (!s.ok()) break;
      s = needs(!out.benchmarks.empty() && !out.formula.empty(),
                "needs \"benchmarks\" and \"formula\"; accepted: the "
                "benchmarks measured and the arithmetic");
      if (s.ok()) {
        s = needs(out.rows.empty(),
                  "reads no table cell; accepted: kind 'table' for a value "
                  "that reads \"rows\"");
      }
      break;
    case sim::SourceKind::kPublished:
      s = needs(!out.figures.empty(),
                "needs \"figures\"; accepted: names from core/case_study.h");
      if (s.ok()) {
        s = needs(out.rows.empty(),
                  "reads no table cell; accepted: kind 'table' for a value "
                  "that reads \"rows\"");
      }
      break;
    case sim::SourceKind::kTable:
      s = needs(!out.rows.empty(),
                "needs \"rows\"; accepted: the table cells it reads");
      break;
    case sim::SourceKind::kFitted:
      s = needs(!out.rows.empty() && !out.why.empty(),
                "needs \"rows\" and \"why\"; accepted: the table cells it "
                "was fitted on and how");
      break;
    case sim::SourceKind::kAssumed:
      // Copied from another calibration, it keeps what its derivation there
      // read, so the rows still count as inputs.
      s = needs(
          !out.why.empty() && (!out.from.empty() ||
                               (out.rows.empty() && out.figures.empty() &&
                                out.selected_on.empty() && out.runs.empty())),
          "needs \"why\" and, unless copied (\"from\"), reads no "
          "figure or row; accepted: a stated value and why");
      break;
  }
  return s;
}

// The "provenance" object of one field: strict, every name checked against
// the case study's table and named figures and the calibration's fields.
// The checks run in a fixed order, so a file with several faults is always
// refused for the same one.
absl::Status ReadProvenance(const std::string& where, const rapidjson::Value& v,
                            sim::Provenance& out) {
  const std::string shape =
      "{\"kind\": measured|published|table|fitted|assumed, \"from\", "
      "\"benchmarks\", \"formula\", \"rows\", \"selected_on\", \"runs\", "
      "\"figures\", \"fields\", \"why\"} (fixtures/calibration/README.md)";
  if (!v.IsObject()) {
    return Bad(absl::StrCat(
        where, ": provenance is not an object; accepted: ", shape));
  }
  if (absl::Status s = CheckProvenanceKeys(where, v); !s.ok()) return s;
  if (absl::Status s = ReadKind(where, v, out.kind); !s.ok()) return s;
  if (absl::Status s = ReadTextsAndLists(where, v, out); !s.ok()) return s;
  if (absl::Status s = CheckListedNames(where, out); !s.ok()) return s;
  if (absl::Status s = ReadRows(where, v, out.rows); !s.ok()) return s;
  return CheckKindNeeds(where, out);
}

}  // namespace

double MaxCalibrationValue(std::string_view unit) {
  // A core count becomes the simulated CPU's servers: a billion of them is
  // no machine, and would exhaust memory before saying so. A cost of 1e300
  // us is finite, but a request's sum of them, in the simulator's integer
  // nanoseconds, is not.
  if (unit == "cores") return kMaxCalibrationCores;
  if (unit == "us") return kMaxCalibrationCostUs;
  if (unit == "ms") return kMaxCalibrationCostMs;
  return std::numeric_limits<double>::infinity();
}

namespace {

// Reads one entry of "fields" into `out`, its source and provenance.
absl::Status ReadField(const sim::CalibrationField& field,
                       const rapidjson::Value& entry, sim::Calibration& out,
                       std::string& source, sim::Provenance& provenance) {
  const std::string where =
      absl::StrCat("calibration field '", std::string(field.name), "'");
  if (!entry.IsObject()) {
    return Bad(absl::StrCat(where, ": not an object; accepted: {\"value\": ",
                            "number, \"unit\": \"", std::string(field.unit),
                            "\", \"source\": string, \"provenance\": "
                            "object}"));
  }
  for (auto m = entry.MemberBegin(); m != entry.MemberEnd(); ++m) {
    std::string_view key(m->name.GetString(), m->name.GetStringLength());
    if (key != "value" && key != "unit" && key != "source" &&
        key != "provenance") {
      return Bad(absl::StrCat(where, ": unknown key '", std::string(key),
                              "'; accepted: value, unit, source, provenance"));
    }
  }
  auto value = entry.FindMember("value");
  if (value == entry.MemberEnd() || !value->value.IsNumber()) {
    return Bad(absl::StrCat(where,
                            ": missing or non-numeric \"value\"; accepted: a "
                            "finite number >= 0 in ",
                            std::string(field.unit)));
  }
  const double v = value->value.GetDouble();
  if (!std::isfinite(v) || v < 0) {
    return Bad(
        absl::StrCat(where, ": value ", v, " is out of range; accepted: ",
                     "a finite number >= 0 in ", std::string(field.unit)));
  }
  if (const double max = MaxCalibrationValue(field.unit); v > max) {
    return Bad(absl::StrCat(where, ": value ", v,
                            " is out of range; accepted: a finite number in "
                            "[0, ",
                            max, "] ", std::string(field.unit)));
  }
  auto unit = entry.FindMember("unit");
  if (unit == entry.MemberEnd() || !unit->value.IsString() ||
      std::string_view(unit->value.GetString(),
                       unit->value.GetStringLength()) !=
          std::string(field.unit)) {
    std::string got = "none";
    if (unit != entry.MemberEnd() && unit->value.IsString()) {
      got = absl::StrCat("'", unit->value.GetString(), "'");
    }
    return Bad(absl::StrCat(where, ": unit ", got, " is wrong; accepted: '",
                            std::string(field.unit), "'"));
  }
  auto src = entry.FindMember("source");
  if (src == entry.MemberEnd() || !src->value.IsString()) {
    return Bad(absl::StrCat(where,
                            ": missing \"source\"; accepted: a string naming "
                            "the benchmark or published figure"));
  }
  auto prov = entry.FindMember("provenance");
  if (prov == entry.MemberEnd()) {
    return Bad(absl::StrCat(where,
                            ": missing \"provenance\"; accepted: {\"kind\": "
                            "measured|published|table|fitted|assumed, ...} "
                            "(fixtures/calibration/README.md)"));
  }
  absl::Status s = ReadProvenance(where, prov->value, provenance);
  if (!s.ok()) return s;
  out.*field.member = v;
  source.assign(src->value.GetString(), src->value.GetStringLength());
  return absl::OkStatus();
}

void WriteProvenance(rapidjson::PrettyWriter<rapidjson::StringBuffer>& w,
                     const sim::Provenance& p) {
  auto text = [&w](const char* key, const std::string& v) {
    if (v.empty()) return;
    w.Key(key);
    w.String(v.c_str(), static_cast<rapidjson::SizeType>(v.size()));
  };
  auto list = [&w](const char* key, const std::vector<std::string>& v) {
    if (v.empty()) return;
    w.Key(key);
    w.StartArray();
    for (const std::string& e : v) {
      w.String(e.c_str(), static_cast<rapidjson::SizeType>(e.size()));
    }
    w.EndArray();
  };
  w.Key("provenance");
  w.StartObject();
  const std::string_view kind = sim::SourceKindName(p.kind);
  w.Key("kind");
  w.String(kind.data(), static_cast<rapidjson::SizeType>(kind.size()));
  text("from", p.from);
  list("benchmarks", p.benchmarks);
  text("formula", p.formula);
  if (!p.rows.empty()) {
    w.Key("rows");
    w.StartObject();
    for (const sim::TableCells& cells : p.rows) {
      list(cells.row.c_str(), cells.columns);
    }
    w.EndObject();
  }
  list("selected_on", p.selected_on);
  list("runs", p.runs);
  list("figures", p.figures);
  list("fields", p.fields);
  text("why", p.why);
  w.EndObject();
}

// One entry per field of `all`: value, unit, source and provenance.
void WriteFields(rapidjson::PrettyWriter<rapidjson::StringBuffer>& w,
                 const std::vector<sim::CalibrationField>& all,
                 const sim::Calibration& values,
                 const std::vector<std::string>& sources,
                 const std::vector<sim::Provenance>& provenance) {
  for (size_t i = 0; i < all.size(); ++i) {
    const sim::CalibrationField& f = all[i];
    w.Key(f.name.data(), static_cast<rapidjson::SizeType>(f.name.size()));
    w.SetFormatOptions(rapidjson::kFormatSingleLineArray);
    w.StartObject();
    w.Key("value");
    w.Double(values.*f.member);
    w.Key("unit");
    w.String(f.unit.data(), static_cast<rapidjson::SizeType>(f.unit.size()));
    w.Key("source");
    w.String(i < sources.size() ? sources[i].c_str() : "");
    if (i < provenance.size()) WriteProvenance(w, provenance[i]);
    w.EndObject();
  }
}

// The optional "canary_reference" object: field name -> a positive, finite
// value, each a known field at most once.
absl::Status ReadCanaryReference(
    const rapidjson::Value& root,
    std::vector<std::pair<std::string, double>>& out) {
  auto ref = root.FindMember("canary_reference");
  if (ref == root.MemberEnd()) return absl::OkStatus();
  if (!ref->value.IsObject()) {
    return Bad(
        "calibration: \"canary_reference\" is not an object; accepted: "
        "{\"<field>\": <positive number>, ...}");
  }
  std::vector<bool> seen(sim::CalibrationFields().size(), false);
  for (auto m = ref->value.MemberBegin(); m != ref->value.MemberEnd(); ++m) {
    const std::string key(View(m->name));
    const sim::CalibrationField* field = FindField(key);
    const std::string where =
        absl::StrCat("calibration canary_reference '", key, "'");
    if (field == nullptr) {
      return Bad(absl::StrCat(where, " is unknown; accepted: ", FieldNames()));
    }
    const size_t index =
        static_cast<size_t>(field - sim::CalibrationFields().data());
    if (seen[index]) {
      return Bad(absl::StrCat(where, " appears twice; accepted: each once"));
    }
    seen[index] = true;
    if (!m->value.IsNumber() || !std::isfinite(m->value.GetDouble()) ||
        !(m->value.GetDouble() > 0)) {
      return Bad(absl::StrCat(where,
                              " is not a number > 0; accepted: a positive, "
                              "finite number"));
    }
    out.emplace_back(key, m->value.GetDouble());
  }
  return absl::OkStatus();
}

// The optional "postgres" section: every field of sim::PostgresFields()
// once, as "fields" entries are, or the reason they were not measured.
absl::Status ReadPostgres(const rapidjson::Value& root, CalibrationFile& file) {
  auto pg = root.FindMember("postgres");
  if (pg == root.MemberEnd()) return absl::OkStatus();
  const std::string shape =
      "accepted: {\"fields\": {<every pg_* field>}} or {\"absent\": "
      "\"<why>\"}";
  const rapidjson::Value& v = pg->value;
  if (!v.IsObject() || v.MemberCount() != 1) {
    return Bad(
        absl::StrCat("calibration: \"postgres\" is not an object of "
                     "one key; ",
                     shape));
  }
  if (auto absent = v.FindMember("absent"); absent != v.MemberEnd()) {
    if (!absent->value.IsString() || absent->value.GetStringLength() == 0) {
      return Bad(absl::StrCat(
          "calibration: \"postgres\" \"absent\" is not a non-empty string; ",
          shape));
    }
    file.postgres_absent.assign(View(absent->value));
    return absl::OkStatus();
  }
  auto fields = v.FindMember("fields");
  if (fields == v.MemberEnd() || !fields->value.IsObject()) {
    return Bad(
        absl::StrCat("calibration: \"postgres\" has neither "
                     "\"fields\" nor \"absent\"; ",
                     shape));
  }
  const std::vector<sim::CalibrationField>& all = sim::PostgresFields();
  file.postgres_sources.assign(all.size(), "");
  file.postgres_provenance.assign(all.size(), sim::Provenance{});
  std::vector<bool> seen(all.size(), false);
  for (auto m = fields->value.MemberBegin(); m != fields->value.MemberEnd();
       ++m) {
    const std::string_view key = View(m->name);
    size_t index = 0;
    while (index < all.size() && all[index].name != key) ++index;
    if (index == all.size() || seen[index]) {
      return Bad(
          absl::StrCat("calibration postgres field '", std::string(key),
                       index == all.size() ? "' is unknown" : "' appears twice",
                       "; accepted: pg_round_trip_ms, "
                       "pg_item_statement_us, each once"));
    }
    seen[index] = true;
    absl::Status s = ReadField(all[index], m->value, file.values,
                               file.postgres_sources[index],
                               file.postgres_provenance[index]);
    if (!s.ok()) return s;
  }
  for (size_t i = 0; i < all.size(); ++i) {
    if (!seen[i]) {
      return Bad(absl::StrCat("calibration postgres field '",
                              std::string(all[i].name),
                              "' is missing; accepted: every pg_* field"));
    }
  }
  file.postgres_measured = true;
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<CalibrationFile> ParseCalibration(std::string_view json) {
  rapidjson::Document doc;
  const rapidjson::ParseResult parsed =
      core::ParseJson<rapidjson::kParseFullPrecisionFlag>(doc, json);
  if (parsed.IsError()) {
    return Bad(absl::StrCat("calibration: malformed JSON at byte ",
                            parsed.Offset(), " (", core::JsonErrorText(parsed),
                            "); accepted: a ", std::string(kCalibrationFormat),
                            " object"));
  }
  // A const view: RapidJSON 1.1's non-const iterators compare ambiguously
  // in C++20.
  const rapidjson::Value& root = doc;
  if (!root.IsObject()) {
    return Bad(absl::StrCat("calibration: not a JSON object; accepted: a ",
                            std::string(kCalibrationFormat), " object"));
  }
  for (auto m = root.MemberBegin(); m != root.MemberEnd(); ++m) {
    std::string_view key(m->name.GetString(), m->name.GetStringLength());
    if (key != "format" && key != "name" && key != "description" &&
        key != "fields" && key != "canary_reference" && key != "postgres") {
      return Bad(absl::StrCat("calibration: unknown key '", std::string(key),
                              "'; accepted: format, name, description, "
                              "fields, canary_reference, postgres"));
    }
  }
  absl::StatusOr<std::string> format = TopString(root, "format", true);
  if (!format.ok()) return format.status();
  if (*format != std::string(kCalibrationFormat)) {
    return Bad(absl::StrCat("calibration: format '", *format,
                            "' is not supported; accepted: '",
                            std::string(kCalibrationFormat), "'"));
  }
  CalibrationFile file;
  absl::StatusOr<std::string> name = TopString(root, "name", true);
  if (!name.ok()) return name.status();
  file.name = *name;
  absl::StatusOr<std::string> description =
      TopString(root, "description", false);
  if (!description.ok()) return description.status();
  file.description = *description;

  auto fields = root.FindMember("fields");
  if (fields == root.MemberEnd() || !fields->value.IsObject()) {
    return Bad(
        "calibration: missing \"fields\" object; accepted: an object with "
        "one entry per field");
  }
  const std::vector<sim::CalibrationField>& all = sim::CalibrationFields();
  std::vector<bool> seen(all.size(), false);
  file.sources.assign(all.size(), "");
  file.provenance.assign(all.size(), sim::Provenance{});
  for (auto m = fields->value.MemberBegin(); m != fields->value.MemberEnd();
       ++m) {
    std::string_view key(m->name.GetString(), m->name.GetStringLength());
    const sim::CalibrationField* field = FindField(key);
    if (field == nullptr) {
      return Bad(absl::StrCat("calibration field '", std::string(key),
                              "' is unknown; accepted: ", FieldNames()));
    }
    const size_t index = static_cast<size_t>(field - all.data());
    if (seen[index]) {
      return Bad(absl::StrCat("calibration field '", std::string(key),
                              "' appears twice; accepted: each field once"));
    }
    seen[index] = true;
    absl::Status s = ReadField(*field, m->value, file.values,
                               file.sources[index], file.provenance[index]);
    if (!s.ok()) return s;
  }
  for (size_t i = 0; i < all.size(); ++i) {
    if (!seen[i]) {
      return Bad(absl::StrCat("calibration field '", std::string(all[i].name),
                              "' is missing; accepted: every field of the ",
                              "schema (fixtures/calibration/README.md)"));
    }
  }
  absl::Status s = ReadCanaryReference(root, file.canary_reference);
  if (!s.ok()) return s;
  s = ReadPostgres(root, file);
  if (!s.ok()) return s;
  return file;
}

absl::StatusOr<CalibrationFile> ReadCalibrationFile(const std::string& path) {
  // Bounded, and a FIFO or device is refused at once rather than read for
  // ever (core/input_file.h).
  absl::StatusOr<std::string> text =
      core::ReadInputFile("calibration file", path);
  if (!text.ok()) return text.status();
  absl::StatusOr<CalibrationFile> file = ParseCalibration(*text);
  if (!file.ok()) {
    return Bad(absl::StrCat(path, ": ", file.status().message()));
  }
  return file;
}

std::string WriteCalibration(const CalibrationFile& file) {
  rapidjson::StringBuffer buffer;
  rapidjson::PrettyWriter<rapidjson::StringBuffer> w(buffer);
  w.SetIndent(' ', 2);
  w.StartObject();
  w.Key("format");
  w.String(kCalibrationFormat.data(),
           static_cast<rapidjson::SizeType>(kCalibrationFormat.size()));
  w.Key("name");
  w.String(file.name.c_str());
  w.Key("description");
  w.String(file.description.c_str());
  w.Key("fields");
  w.StartObject();
  WriteFields(w, sim::CalibrationFields(), file.values, file.sources,
              file.provenance);
  w.EndObject();
  if (!file.canary_reference.empty()) {
    w.Key("canary_reference");
    w.StartObject();
    for (const auto& [name, value] : file.canary_reference) {
      w.Key(name.c_str());
      w.Double(value);
    }
    w.EndObject();
  }
  // Only files that measured or tried: older ones are written back as read.
  if (file.postgres_measured || !file.postgres_absent.empty()) {
    w.Key("postgres");
    w.StartObject();
    if (file.postgres_measured) {
      w.Key("fields");
      w.StartObject();
      WriteFields(w, sim::PostgresFields(), file.values, file.postgres_sources,
                  file.postgres_provenance);
      w.EndObject();
    } else {
      w.Key("absent");
      w.String(file.postgres_absent.c_str());
    }
    w.EndObject();
  }
  w.EndObject();
  return std::string(buffer.GetString(), buffer.GetSize()) + "\n";
}

std::string ContentHash(std::string_view bytes) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  EVP_Digest(bytes.data(), bytes.size(), digest, &length, EVP_sha256(),
             nullptr);
  return absl::StrCat("sha256:",
                      absl::BytesToHexString(absl::string_view(
                          reinterpret_cast<const char*>(digest), length)));
}

}  // namespace perflab::capstone
