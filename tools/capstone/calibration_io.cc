#include "tools/capstone/calibration_io.h"

#include <openssl/evp.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>

#include "absl/status/status.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
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

// Reads one entry of "fields" into `out` and its source.
absl::Status ReadField(const sim::CalibrationField& field,
                       const rapidjson::Value& entry, sim::Calibration& out,
                       std::string& source) {
  const std::string where =
      absl::StrCat("calibration field '", std::string(field.name), "'");
  if (!entry.IsObject()) {
    return Bad(absl::StrCat(where, ": not an object; accepted: {\"value\": ",
                            "number, \"unit\": \"", std::string(field.unit),
                            "\", \"source\": string}"));
  }
  for (auto m = entry.MemberBegin(); m != entry.MemberEnd(); ++m) {
    std::string_view key(m->name.GetString(), m->name.GetStringLength());
    if (key != "value" && key != "unit" && key != "source") {
      return Bad(absl::StrCat(where, ": unknown key '", std::string(key),
                              "'; accepted: value, unit, source"));
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
  out.*field.member = v;
  source.assign(src->value.GetString(), src->value.GetStringLength());
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
        key != "fields") {
      return Bad(absl::StrCat("calibration: unknown key '", std::string(key),
                              "'; accepted: format, name, description, "
                              "fields"));
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
    absl::Status s =
        ReadField(*field, m->value, file.values, file.sources[index]);
    if (!s.ok()) return s;
  }
  for (size_t i = 0; i < all.size(); ++i) {
    if (!seen[i]) {
      return Bad(absl::StrCat("calibration field '", std::string(all[i].name),
                              "' is missing; accepted: every field of the ",
                              "schema (fixtures/calibration/README.md)"));
    }
  }
  return file;
}

absl::StatusOr<CalibrationFile> ReadCalibrationFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return Bad(absl::StrCat("calibration file '", path, "': cannot read (",
                            std::strerror(errno),
                            "); accepted: a readable JSON file"));
  }
  std::stringstream buffer;
  buffer << in.rdbuf();
  absl::StatusOr<CalibrationFile> file = ParseCalibration(buffer.str());
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
  const std::vector<sim::CalibrationField>& all = sim::CalibrationFields();
  for (size_t i = 0; i < all.size(); ++i) {
    const sim::CalibrationField& f = all[i];
    w.Key(f.name.data(), static_cast<rapidjson::SizeType>(f.name.size()));
    w.SetFormatOptions(rapidjson::kFormatSingleLineArray);
    w.StartObject();
    w.Key("value");
    w.Double(file.values.*f.member);
    w.Key("unit");
    w.String(f.unit.data(), static_cast<rapidjson::SizeType>(f.unit.size()));
    w.Key("source");
    w.String(i < file.sources.size() ? file.sources[i].c_str() : "");
    w.EndObject();
  }
  w.EndObject();
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
