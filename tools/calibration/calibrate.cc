#include "tools/calibration/calibrate.h"

#include <unistd.h>  // access, gethostname

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <thread>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "core/data_paths.h"
#include "core/env.h"
#include "core/input_file.h"
#include "core/interrupt.h"
#include "core/json.h"
#include "core/subprocess.h"
#include "models/median.h"
#include "rapidjson/document.h"
#include "rapidjson/stringbuffer.h"
#include "rapidjson/writer.h"
#include "tools/calibration/seed_h2.h"
#include "tools/compare/gbench_json.h"

namespace perflab::capstone {
namespace {

absl::Status Bad(const std::string& what) {
  return absl::InvalidArgumentError(what);
}

// `what` names the input (an option, or the benchmark's output); the
// message adds the path itself.
absl::StatusOr<std::string> ReadText(absl::string_view what,
                                     const std::string& path) {
  return core::ReadInputFile(what, path);
}

// "BM_X/iterations:12/real_time" -> "BM_X/real_time" (run names in the map
// leave out the fixed iteration count).
std::string StripIterations(std::string name) {
  const size_t at = name.find("/iterations:");
  if (at == std::string::npos) return name;
  size_t end = name.find('/', at + 1);
  if (end == std::string::npos) end = name.size();
  return name.erase(at, end - at);
}

// A benchmark filter matching exactly `name`, with or without /iterations:N
// before /real_time or at the end.
std::string FilterFor(const std::string& name) {
  std::string escaped;
  for (char ch : name) {
    if (std::string_view(".^$|()[]{}*+?\\").find(ch) != std::string::npos) {
      escaped += '\\';
    }
    escaped += ch;
  }
  const std::string it = "(/iterations:[0-9]+)?";
  const size_t rt = escaped.find("/real_time");
  if (rt != std::string::npos) {
    escaped.insert(rt, it);
  } else {
    escaped += it;
  }
  return "^" + escaped + "$";
}

// The last non-empty line of `text`, without its line end.
std::string LastLineOf(std::string_view text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) {
    text.remove_suffix(1);
  }
  const size_t at = text.rfind('\n');
  return std::string(at == std::string_view::npos ? text : text.substr(at + 1));
}

// Runs bench_<family> on `names` into a JSON file; returns its text. With
// `why_failed`, the binary's stderr is captured (its table discarded) and
// a failure's last line of it is put there.
absl::StatusOr<std::string> RunFamily(const CalibrateOptions& options,
                                      const std::string& family,
                                      const std::vector<std::string>& names,
                                      std::string* why_failed = nullptr) {
  if (options.bench_dir.empty()) {
    return Bad(absl::StrCat(
        "--bench-dir: none given, and this perflab is not in a build tree; "
        "accepted: --bench-dir DIR (a build's bench/, with bench_",
        family, ") or --from DIR"));
  }
  const std::string binary = absl::StrCat(options.bench_dir, "/bench_", family);
  if (access(binary.c_str(), X_OK) != 0) {
    return Bad(absl::StrCat("benchmark binary '", binary,
                            "' not found; accepted: a built bench dir "
                            "(tools/lab build) or --from DIR"));
  }
  std::vector<std::string> filters;
  filters.reserve(names.size());
  for (const std::string& n : names) filters.push_back(FilterFor(n));
  absl::StatusOr<std::string> made =
      core::MakeTempFile(core::TempDirBase() + "/perflab-calibrate-");
  if (!made.ok()) return absl::InternalError(made.status().message());
  const std::string out = *made;
  std::vector<std::string> args = {
      binary,
      absl::StrCat("--benchmark_filter=", absl::StrJoin(filters, "|")),
      absl::StrCat("--benchmark_repetitions=", options.quick ? 3 : 5),
      absl::StrCat("--benchmark_min_time=", options.quick ? "0.05" : "0.5"),
      "--benchmark_out_format=json",
      absl::StrCat("--benchmark_out=", out)};
  // The benchmark's console table goes to our stderr: progress, not output.
  const bool capture = why_failed != nullptr;
  absl::StatusOr<core::Subprocess> child = core::Subprocess::Spawn(
      std::move(args),
      {.stdout_to = options.quiet || capture ? core::Output::kDiscard
                                             : core::Output::kToStderr,
       .stderr_to = capture         ? core::Output::kCapture
                    : options.quiet ? core::Output::kDiscard
                                    : core::Output::kInherit});
  absl::StatusOr<core::ExitStatus> status =
      child.ok() ? child->Wait() : child.status();
  if (!status.ok() || !status->ok()) {
    core::RemoveTempPath(out);
    if (capture && child.ok()) *why_failed = LastLineOf(child->output());
    return absl::InternalError(
        absl::StrCat("benchmark binary '", binary, "' failed (",
                     status.ok() ? status->ToString()
                                 : std::string(status.status().message()),
                     ")"));
  }
  absl::StatusOr<std::string> text = ReadText("benchmark output", out);
  core::RemoveTempPath(out);
  return text;
}

// Google Benchmark writes NaN (a cv of a constant counter) and Infinity,
// which strict JSON readers refuse; they only ever appear in aggregate rows,
// which the reader skips, so they become null.
std::string WithoutNonFinite(std::string text) {
  for (const char* word : {"-NaN", "NaN", "-Infinity", "Infinity"}) {
    const std::string from = absl::StrCat(": ", word);
    for (size_t at = text.find(from); at != std::string::npos;
         at = text.find(from, at)) {
      text.replace(at, from.size(), ": null");
    }
  }
  return text;
}

// The family's results cut down to the runs of benchmark `name`, so that a
// counter only some benchmarks report (server_cpu_us) can be read from
// them; the text itself when it is not Google Benchmark's JSON (the parser
// then says what is wrong with it).
std::string OnlyRunsOf(const std::string& text, const std::string& name) {
  rapidjson::Document doc;
  if (core::ParseJson<rapidjson::kParseDefaultFlags>(doc, text).IsError() ||
      !doc.IsObject() || !doc.HasMember("benchmarks") ||
      !doc["benchmarks"].IsArray()) {
    return text;
  }
  rapidjson::Value kept(rapidjson::kArrayType);
  for (rapidjson::Value& b : doc["benchmarks"].GetArray()) {
    if (!b.IsObject()) continue;
    const char* key = b.HasMember("run_name") ? "run_name" : "name";
    if (b.HasMember(key) && b[key].IsString() &&
        StripIterations(b[key].GetString()) == name) {
      kept.PushBack(b, doc.GetAllocator());
    }
  }
  if (kept.Empty()) return text;  // "not found" is said by the caller
  doc["benchmarks"] = kept;
  rapidjson::StringBuffer out;
  rapidjson::Writer<rapidjson::StringBuffer> writer(out);
  doc.Accept(writer);
  return out.GetString();
}

struct Measured {
  double median = 0;
  std::string unit;
};

}  // namespace

std::string DefaultMapPath() {
  return core::FindDataPaths(core::Env::Default()).Data(kMapPath);
}
std::string DefaultSeedPath() {
  return core::FindDataPaths(core::Env::Default()).Data(kSeedPath);
}
std::string DefaultBenchDir() {
  return core::FindDataPaths(core::Env::Default()).bench_dir;
}

namespace {

// A factor beyond this is a unit mistake, not a conversion.
constexpr double kMaxMultiply = 1e9;

// A field's "conversion": what to subtract (a benchmark's name), a factor
// and why. A negative or zero factor would turn a cost into nothing (the
// result is clamped at 0 as noise), so it is refused, as is any value of
// the wrong kind, rather than ignored.
absl::Status ReadConversion(const rapidjson::Value& e, FieldSource& s) {
  auto conv = e.FindMember("conversion");
  if (conv == e.MemberEnd()) return absl::OkStatus();
  const std::string where =
      absl::StrCat("benchmark map: field '", s.field, "': conversion");
  if (!conv->value.IsObject()) {
    return Bad(absl::StrCat(where, " is not an object; accepted: {\"minus\": ",
                            "NAME, \"multiply\": FACTOR, \"why\": TEXT}"));
  }
  const rapidjson::Value& c = conv->value;
  for (const char* key : {"minus", "why"}) {
    if (auto m = c.FindMember(key); m != c.MemberEnd()) {
      if (!m->value.IsString() || m->value.GetStringLength() == 0) {
        return Bad(absl::StrCat(where, ".", key,
                                " is not a non-empty string; accepted: text"));
      }
      (key[0] == 'm' ? s.minus : s.why) = m->value.GetString();
    }
  }
  if (auto m = c.FindMember("multiply"); m != c.MemberEnd()) {
    const double v = m->value.IsNumber() ? m->value.GetDouble() : -1;
    if (!m->value.IsNumber() || !std::isfinite(v) || v <= 0 ||
        v > kMaxMultiply) {
      return Bad(absl::StrCat(
          where, ".multiply is ",
          m->value.IsNumber() ? absl::StrCat(v) : std::string("not a number"),
          "; accepted: a number in (0, ", kMaxMultiply, "]"));
    }
    s.multiply = v;
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::vector<FieldSource>> ParseCalibrationMap(
    std::string_view json, std::string_view section_name) {
  const bool postgres = section_name == kPostgresMapSection;
  rapidjson::Document doc;
  if (core::ParseJson<rapidjson::kParseDefaultFlags>(doc, json).IsError() ||
      !doc.IsObject()) {
    return Bad(
        "benchmark map: malformed JSON; accepted: bench/benchmarks.json");
  }
  // A const view: RapidJSON 1.1's non-const iterators compare ambiguously
  // in C++20.
  const rapidjson::Value& root = doc;
  const std::string key(section_name);
  auto section = root.FindMember(key.c_str());
  // The PostgreSQL section is optional: a map without it measures none.
  if (postgres && section == root.MemberEnd()) {
    return std::vector<FieldSource>{};
  }
  if (section == root.MemberEnd() || !section->value.IsObject()) {
    return Bad(absl::StrCat("benchmark map: no \"", key,
                            "\" object; accepted: bench/benchmarks.json with "
                            "a ",
                            key, " section"));
  }
  std::vector<FieldSource> out;
  for (auto m = section->value.MemberBegin(); m != section->value.MemberEnd();
       ++m) {
    const rapidjson::Value& e = m->value;
    if (!e.IsObject()) return Bad("benchmark map: an entry is not an object");
    auto text = [&e](const char* key) -> std::string {
      auto it = e.FindMember(key);
      return it != e.MemberEnd() && it->value.IsString() ? it->value.GetString()
                                                         : "";
    };
    FieldSource s;
    s.field = m->name.GetString();
    s.family = text("family");
    s.benchmark = text("benchmark");
    s.metric = text("metric");
    bool known = false;
    for (const sim::CalibrationField& f :
         postgres ? sim::PostgresFields() : sim::CalibrationFields()) {
      known = known || f.name == s.field;
    }
    if (!known) {
      return Bad(absl::StrCat("benchmark map: ", key, " field '", s.field,
                              "' is not a calibration field; accepted: the "
                              "names in fixtures/calibration/README.md"));
    }
    for (const FieldSource& o : out) {
      if (o.field == s.field) {
        return Bad(absl::StrCat("benchmark map: field '", s.field,
                                "' is mapped twice; accepted: once"));
      }
    }
    if (s.family.empty() || s.benchmark.empty() || s.metric.empty()) {
      return Bad(absl::StrCat("benchmark map: field '", s.field,
                              "' needs family, benchmark and metric"));
    }
    if (absl::Status c = ReadConversion(e, s); !c.ok()) return c;
    out.push_back(std::move(s));
  }
  return out;
}

absl::StatusOr<double> ConvertUnit(double value, std::string_view from_unit,
                                   std::string_view field_unit) {
  static const std::map<std::string, double, std::less<>> kToNs = {
      {"ns", 1}, {"us", 1e3}, {"ms", 1e6}, {"s", 1e9}};
  auto from = kToNs.find(from_unit);
  auto to = kToNs.find(field_unit);
  if (from != kToNs.end() && to != kToNs.end()) {
    return value * from->second / to->second;
  }
  if (from_unit.empty() && field_unit == "MiB") return value / (1 << 20);
  if (from_unit.empty() && field_unit == "KiB") return value / (1 << 10);
  if (from_unit.empty() && from_unit == field_unit) return value;
  return Bad(
      absl::StrCat("cannot convert '", std::string(from_unit), "' to '",
                   std::string(field_unit),
                   "'; accepted: a time unit to us/ms, bytes to MiB or KiB"));
}

namespace {

std::string CopiedReason(std::string_view field) {
  // Fields chosen or fitted on the case study's own stack (its JVM, its H2,
  // its rig) hold here only by assumption; the others are the scenario's.
  static constexpr std::pair<std::string_view, std::string_view> kWhy[] = {
      {"effective_cores",
       "the case study's hardware, fitted on its table: this table models its "
       "8 vCPUs (as the cores they delivered) with this machine's costs"},
      {"other_cpu_us",
       "the case study's JVM framework (Tomcat, routing, Spring), from its "
       "table and JFR profile: no C++ benchmark measures a framework this "
       "service does not run"},
      {"gc_concurrent_cpu_per_mib_us",
       "the case study's G1 concurrent marking, from its heap step: no C++ "
       "benchmark measures a JVM collector"},
      {"live_set_mib", "the case study's JVM heap, from its GC log"},
      {"young_pause_base_ms", "the case study's G1 pauses, from its GC logs"},
      {"young_pause_per_mib_ms",
       "the case study's G1 pauses, from its GC logs"},
      {"generator_cpu_per_request_us",
       "the case study's load generator, fitted on its last row: the rig, "
       "not this machine's service"},
      {"generator_cores", "the case study's rig (taskset 8-11)"},
      {"inventory_service_ms", "the scenario's stub sleeps 5 ms anywhere"},
      {"db_round_trip_ms", "the scenario's database is embedded anywhere"},
      {"gzip_us", "the scenario does not compress"},
      {"work_cv",
       "an assumed spread of the work; no benchmark here measures the "
       "case study's"},
  };
  for (const auto& [name, why] : kWhy) {
    if (name == field) return std::string(why);
  }
  if (field.starts_with("contention_")) {
    return "the contention benchmarks (bench_contention) did not run for "
           "this file; 0 adds nothing to each shared part's cost alone";
  }
  return "no benchmark of this machine measures it";
}

// The map's entries for `fields` only, when there are any.
void KeepOnly(const std::vector<std::string>& fields,
              std::vector<FieldSource>& map) {
  if (fields.empty()) return;
  std::erase_if(map, [&](const FieldSource& s) {
    return std::find(fields.begin(), fields.end(), s.field) == fields.end();
  });
}

// A seed-h2 field that does not hold on this machine, so CopyUnmeasured sets
// it to 0, assumed, saying why.
struct NotCopied {
  std::string_view source;
  std::string_view why;
};

const NotCopied* NotCopiedField(std::string_view name) {
  // Fitted on the H2/JDBC stack's TCP_NODELAY row and chosen on its pool
  // step; this machine's join is in-process SQLite measured as CPU.
  static constexpr NotCopied kHold = {
      "not measured here, and not copied: seed-h2's hold was fitted to the "
      "case study's H2/JDBC stack; this machine's join is in-process SQLite "
      "whose cost is its measured CPU (0)",
      "seed-h2's hold is fitted on the case study's H2/JDBC stack (its "
      "TCP_NODELAY row, chosen on its pool step); an in-process SQLite join "
      "holds nothing beyond its measured CPU"};
  // Stated for the case study's kernel on 8 vCPUs; a machine whose
  // scheduler was not measured keeps the ideal limit.
  static constexpr NotCopied kScheduling = {
      "not measured here, and not copied: seed-h2's scheduling is assumed "
      "for the case study's 8 vCPUs; 0, processor sharing",
      "the sched benchmarks did not run; seed-h2's slice, switch and refill "
      "are stated for another kernel and machine, so this calibration keeps "
      "processor sharing (0)"};
  if (name == "join_hold_ms") return &kHold;
  if (name.starts_with("sched_") || name == "handler_working_set_kib") {
    return &kScheduling;
  }
  return nullptr;
}

}  // namespace

void CopyUnmeasured(const CalibrationFile& seed, CalibrationFile& file) {
  const std::vector<sim::CalibrationField>& fields = sim::CalibrationFields();
  file.values = seed.values;
  file.sources.assign(fields.size(), "");
  file.provenance = seed.provenance;
  for (size_t i = 0; i < fields.size(); ++i) {
    sim::Provenance& p = file.provenance[i];
    if (const NotCopied* n = NotCopiedField(fields[i].name); n != nullptr) {
      file.values.*fields[i].member = 0;
      file.sources[i] = n->source;
      p = sim::Provenance{};
      p.kind = sim::SourceKind::kAssumed;
      p.why = n->why;
      continue;
    }
    file.sources[i] =
        absl::StrCat("not measured here; ", seed.name, ": ", seed.sources[i]);
    if (p.from.empty()) p.from = seed.name;
    const std::string there =
        p.why.empty() ? "" : absl::StrCat(" (", seed.name, ": ", p.why, ")");
    p.kind = sim::SourceKind::kAssumed;
    p.why = absl::StrCat("copied from ", seed.name, ": ",
                         CopiedReason(fields[i].name), there);
  }
}

namespace {

// Where the results came from, for each measured field's source text.
std::string RigText(const CalibrateOptions& options) {
  return options.from_dir.empty()
             ? absl::StrCat("this machine, ",
                            options.quick ? "3 x 0.05 s" : "5 x 0.5 s",
                            " repetitions")
             : absl::StrCat("read from ", options.from_dir);
}

// The median of `metric` of benchmark `name` in its family's results.
absl::StatusOr<Measured> Find(const std::map<std::string, std::string>& texts,
                              const std::string& family,
                              const std::string& metric,
                              const std::string& name) {
  auto text = texts.find(family);
  absl::StatusOr<std::vector<compare::BenchmarkSamples>> samples =
      compare::ParseGbenchJson(
          OnlyRunsOf(text == texts.end() ? "" : text->second, name), metric);
  if (!samples.ok()) {
    return Bad(absl::StrCat("bench_", family,
                            " results: ", samples.status().message()));
  }
  for (const compare::BenchmarkSamples& s : *samples) {
    if (StripIterations(s.name) == name && !s.values.empty()) {
      // A counter has no unit in the JSON; one named *_us is in us.
      const bool us_counter = s.unit.empty() && metric.ends_with("_us");
      return Measured{models::Median(s.values), us_counter ? "us" : s.unit};
    }
  }
  return Bad(absl::StrCat("benchmark '", name, "' (", metric,
                          ") not found in the ", family,
                          " results; accepted: the names of "
                          "bench/benchmarks.json"));
}

// One field of the map from its family's results: its value (a median, the
// subtraction, the factor, the unit), source text and provenance.
absl::Status MeasureField(const std::map<std::string, std::string>& texts,
                          const FieldSource& s,
                          const sim::CalibrationField& field,
                          const std::string& rig, sim::Calibration& values,
                          std::string& source, sim::Provenance& p) {
  absl::StatusOr<Measured> a = Find(texts, s.family, s.metric, s.benchmark);
  if (!a.ok()) return a.status();
  double value = a->median;
  std::string arithmetic =
      absl::StrFormat("bench_%s %s median %s %.6g %s", s.family, s.benchmark,
                      s.metric, a->median, a->unit.empty() ? "bytes" : a->unit);
  if (!s.minus.empty()) {
    absl::StatusOr<Measured> b = Find(texts, s.family, s.metric, s.minus);
    if (!b.ok()) return b.status();
    value -= b->median;
    absl::StrAppendFormat(&arithmetic, " - %s %.6g", s.minus, b->median);
  }
  if (s.multiply != 1) absl::StrAppendFormat(&arithmetic, " x %g", s.multiply);
  value *= s.multiply;
  absl::StatusOr<double> converted = ConvertUnit(value, a->unit, field.unit);
  if (!converted.ok()) {
    return Bad(
        absl::StrCat("field '", s.field, "': ", converted.status().message()));
  }
  if (*converted < 0) {
    absl::StrAppend(&arithmetic, " (negative: noise; clamped to 0)");
    *converted = 0;
  }
  values.*field.member = *converted;
  p = sim::Provenance{};
  p.kind = sim::SourceKind::kMeasured;
  p.benchmarks = {absl::StrCat("bench_", s.family, " ", s.benchmark)};
  if (!s.minus.empty()) {
    p.benchmarks.push_back(absl::StrCat("bench_", s.family, " ", s.minus));
  }
  p.formula =
      absl::StrCat("median ", s.metric, " of ", s.benchmark,
                   s.minus.empty() ? "" : absl::StrCat(" - ", s.minus),
                   s.multiply == 1 ? "" : absl::StrCat(" x ", s.multiply),
                   ", in ", std::string(field.unit));
  source = absl::StrFormat("%s = %.6g %s%s (%s)", arithmetic, *converted,
                           std::string(field.unit),
                           s.why.empty() ? "" : absl::StrCat("; ", s.why), rig);
  return absl::OkStatus();
}

// bench_pg's results for `map`'s fields (one family), or why there are
// none: the reason, with `text` left empty.
absl::StatusOr<std::string> PostgresResults(
    const CalibrateOptions& options, const std::vector<FieldSource>& map,
    std::string& absent, const std::function<void(std::string_view)>& log) {
  const std::string& family = map.front().family;
  std::vector<std::string> names;
  for (const FieldSource& s : map) {
    names.push_back(s.benchmark);
    if (!s.minus.empty()) names.push_back(s.minus);
  }
  if (!options.from_dir.empty()) {
    const std::string path =
        absl::StrCat(options.from_dir, "/", family, ".json");
    if (!std::filesystem::exists(path)) {
      absent = absl::StrCat("not measured: ", path,
                            " is missing (tools/bench/run_families "
                            "--families pg writes it)");
      return std::string();
    }
    return ReadText("--from", path);
  }
  if (options.bench_dir.empty()) {
    absent =
        "not measured: no --bench-dir (this perflab is not in a build "
        "tree)";
    return std::string();
  }
  const std::string binary = absl::StrCat(options.bench_dir, "/bench_", family);
  if (access(binary.c_str(), X_OK) != 0) {
    absent = absl::StrCat("not measured: ", binary,
                          " was not built (libpq, Debian's libpq-dev, was "
                          "not found when the build was configured)");
    return std::string();
  }
  if (log) log(absl::StrCat("calibrate: running bench_", family));
  std::string why;
  absl::StatusOr<std::string> text = RunFamily(options, family, names, &why);
  if (!text.ok()) {
    // No server binaries (exit 2, the package named) or a server that did
    // not start (its log's last line): the other fields still hold.
    // bench_pg's line starts with its name.
    absent = why.empty() ? absl::StrCat("not measured: bench_", family, ": ",
                                        text.status().message())
                         : absl::StrCat("not measured: ", why);
    return std::string();
  }
  return text;
}

}  // namespace

absl::Status MeasurePostgres(const CalibrateOptions& options,
                             std::string_view map_text, CalibrationFile& file,
                             const std::function<void(std::string_view)>& log) {
  absl::StatusOr<std::vector<FieldSource>> map =
      ParseCalibrationMap(map_text, kPostgresMapSection);
  if (!map.ok()) return map.status();
  KeepOnly(options.only_fields, *map);
  if (map->empty()) return absl::OkStatus();
  const std::vector<sim::CalibrationField>& fields = sim::PostgresFields();
  for (const sim::CalibrationField& f : fields) file.values.*f.member = 0;
  file.postgres_measured = false;
  file.postgres_absent.clear();
  file.postgres_sources.assign(fields.size(), "");
  file.postgres_provenance.assign(fields.size(), sim::Provenance{});
  std::string absent;
  absl::StatusOr<std::string> text =
      PostgresResults(options, *map, absent, log);
  if (!text.ok()) return text.status();
  if (!absent.empty()) {
    if (log) log(absl::StrCat("calibrate: PostgreSQL ", absent));
    file.postgres_absent = absent;
    file.postgres_sources.clear();
    file.postgres_provenance.clear();
    return absl::OkStatus();
  }
  const std::map<std::string, std::string> texts = {
      {map->front().family, WithoutNonFinite(*std::move(text))}};
  for (const FieldSource& s : *map) {
    size_t index = 0;
    while (fields[index].name != s.field) ++index;
    absl::Status m = MeasureField(texts, s, fields[index], RigText(options),
                                  file.values, file.postgres_sources[index],
                                  file.postgres_provenance[index]);
    if (!m.ok()) return m;
  }
  // A map naming only some pg_* fields leaves the rest unmeasured: the
  // section is all or nothing.
  for (size_t i = 0; i < fields.size(); ++i) {
    if (file.postgres_provenance[i].kind != sim::SourceKind::kMeasured) {
      return Bad(absl::StrCat("benchmark map: ", kPostgresMapSection,
                              " does not map '", std::string(fields[i].name),
                              "'; accepted: every pg_* field"));
    }
  }
  file.postgres_measured = true;
  return absl::OkStatus();
}

absl::StatusOr<CalibrationFile> Calibrate(
    const CalibrateOptions& options,
    const std::function<void(std::string_view)>& log) {
  absl::StatusOr<std::string> map_text = ReadText("--map", options.map_path);
  if (!map_text.ok()) return map_text.status();
  absl::StatusOr<std::vector<FieldSource>> map = ParseCalibrationMap(*map_text);
  if (!map.ok()) return map.status();
  KeepOnly(options.only_fields, *map);

  // Unmeasured fields: the seed-h2 calibration's value and provenance (from
  // its file when it is there, else derived), marked as copied.
  CalibrationFile file;
  const std::vector<sim::CalibrationField>& fields = sim::CalibrationFields();
  CalibrationFile seed;
  if (!options.seed_path.empty() &&
      std::filesystem::exists(options.seed_path)) {
    absl::StatusOr<CalibrationFile> read =
        ReadCalibrationFile(options.seed_path);
    if (!read.ok()) return read.status();
    seed = *std::move(read);
  } else {
    seed = DeriveSeedH2(CaseStudyFigures());
  }
  CopyUnmeasured(seed, file);

  // Families in map order; each runs (or is read) once for all its names.
  std::vector<std::string> families;
  std::map<std::string, std::vector<std::string>> names;
  for (const FieldSource& s : *map) {
    if (std::find(families.begin(), families.end(), s.family) ==
        families.end()) {
      families.push_back(s.family);
    }
    names[s.family].push_back(s.benchmark);
    if (!s.minus.empty()) names[s.family].push_back(s.minus);
  }
  std::map<std::string, std::string> texts;
  for (const std::string& family : families) {
    absl::StatusOr<std::string> text;
    if (!options.from_dir.empty()) {
      text = ReadText("--from",
                      absl::StrCat(options.from_dir, "/", family, ".json"));
    } else {
      if (log) log(absl::StrCat("calibrate: running bench_", family));
      text = RunFamily(options, family, names[family]);
    }
    if (!text.ok()) return text.status();
    texts[family] = WithoutNonFinite(*std::move(text));
  }
  const std::string rig = RigText(options);
  for (const FieldSource& s : *map) {
    size_t index = 0;
    while (fields[index].name != s.field) ++index;
    absl::Status m = MeasureField(texts, s, fields[index], rig, file.values,
                                  file.sources[index], file.provenance[index]);
    if (!m.ok()) return m;
  }
  if (absl::Status pg = MeasurePostgres(options, *map_text, file, log);
      !pg.ok()) {
    return pg;
  }
  char host[256] = {0};
  gethostname(host, sizeof(host) - 1);
  file.name = "this-machine";
  file.description =
      absl::StrCat("perflab calibrate", options.quick ? " --quick" : "", " on ",
                   host, " (", std::thread::hardware_concurrency(),
                   " hardware threads); unmeasured fields from seed-h2");
  return file;
}

}  // namespace perflab::capstone
