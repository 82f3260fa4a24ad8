#include "tools/compare/gbench_json.h"

#include <cmath>
#include <map>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/json.h"
#include "rapidjson/document.h"
#include "rapidjson/error/en.h"

namespace perflab::compare {
namespace {

absl::Status Bad(const std::string& what) {
  return absl::InvalidArgumentError(what);
}

std::string_view Str(const rapidjson::Value& v) {
  return std::string_view(v.GetString(), v.GetStringLength());
}

}  // namespace

absl::StatusOr<std::vector<BenchmarkSamples>> ParseGbenchJson(
    std::string_view text, std::string_view metric) {
  rapidjson::Document doc;
  // kParseFullPrecisionFlag: read doubles exactly as written.
  // kParseNanAndInfFlag: Google Benchmark writes NaN for the cv of a constant
  // counter (aggregate rows, which are skipped, but the file must parse).
  const rapidjson::ParseResult parsed =
      core::ParseJson<rapidjson::kParseFullPrecisionFlag |
                      rapidjson::kParseNanAndInfFlag>(doc, text);
  if (parsed.IsError()) {
    return Bad(absl::StrCat("not JSON: ", core::JsonErrorText(parsed),
                            " at byte ", parsed.Offset()));
  }
  if (!doc.IsObject() || !doc.HasMember("benchmarks") ||
      !doc["benchmarks"].IsArray()) {
    return Bad(
        "not Google Benchmark JSON: no top-level \"benchmarks\" array "
        "(accepted: the output of --benchmark_format=json)");
  }
  const bool is_time = metric == "real_time" || metric == "cpu_time";
  std::vector<BenchmarkSamples> out;
  std::map<std::string, size_t, std::less<>> index;
  const rapidjson::Value& rows = doc["benchmarks"];
  for (rapidjson::SizeType i = 0; i < rows.Size(); ++i) {
    const rapidjson::Value& row = rows[i];
    const std::string where = absl::StrCat("benchmarks[", i, "]");
    if (!row.IsObject()) return Bad(absl::StrCat(where, " is not an object"));
    // Aggregates carry run_type "aggregate"; old versions have no run_type.
    if (row.HasMember("run_type") && row["run_type"].IsString() &&
        Str(row["run_type"]) != "iteration") {
      continue;
    }
    // A benchmark that called SkipWithError has no meaningful timing.
    if (row.HasMember("error_occurred") && row["error_occurred"].IsBool() &&
        row["error_occurred"].GetBool()) {
      continue;
    }
    const char* name_key = row.HasMember("run_name") ? "run_name" : "name";
    if (!row.HasMember(name_key) || !row[name_key].IsString()) {
      return Bad(absl::StrCat(where, " has no string \"name\""));
    }
    std::string name(Str(row[name_key]));
    auto m = row.FindMember(rapidjson::StringRef(
        metric.data(), static_cast<rapidjson::SizeType>(metric.size())));
    if (m == row.MemberEnd() || !m->value.IsNumber() ||
        !std::isfinite(m->value.GetDouble())) {
      return Bad(absl::StrCat(where, " (", name, ") has no finite number \"",
                              std::string(metric),
                              "\"; accepted --metric: real_time, cpu_time or "
                              "a counter present in every row"));
    }
    std::string unit;
    if (is_time && m->value.GetDouble() < 0) {
      return Bad(absl::StrCat(where, " (", name, ") has ", std::string(metric),
                              " ", m->value.GetDouble(),
                              "; accepted: a time >= 0"));
    }
    if (is_time) {
      if (!row.HasMember("time_unit") || !row["time_unit"].IsString()) {
        return Bad(absl::StrCat(where, " (", name, ") has no \"time_unit\""));
      }
      unit = std::string(Str(row["time_unit"]));
    }
    auto [it, fresh] = index.try_emplace(name, out.size());
    if (fresh) out.push_back(BenchmarkSamples{name, unit, {}});
    BenchmarkSamples& s = out[it->second];
    if (s.unit != unit) {
      return Bad(absl::StrCat(where, " (", name, ") is in time_unit '", unit,
                              "' but earlier rows are in '", s.unit,
                              "'; accepted: one unit per benchmark"));
    }
    s.values.push_back(m->value.GetDouble());
  }
  if (out.empty()) {
    return Bad(
        "no benchmark repetitions in \"benchmarks\" (empty, or only "
        "aggregates/errors); accepted: at least one iteration row");
  }
  return out;
}

}  // namespace perflab::compare
