#include "tools/sweep/partial.h"

#include <cmath>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string_view>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "core/json.h"
#include "core/number.h"
#include "models/hdr_codec.h"
#include "models/histogram.h"
#include "rapidjson/document.h"
#include "rapidjson/stringbuffer.h"
#include "rapidjson/writer.h"

namespace perflab::sweep {
namespace {

// 2: the fingerprint covers the shard count too.
constexpr int kFormatVersion = 2;
using Writer = rapidjson::Writer<rapidjson::StringBuffer, rapidjson::UTF8<>,
                                 rapidjson::UTF8<>, rapidjson::CrtAllocator,
                                 rapidjson::kWriteNanAndInfFlag>;

void Str(Writer& w, const std::string& s) {
  w.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
}

absl::Status Bad(const std::string& name, const std::string& what) {
  return absl::InvalidArgumentError(
      absl::StrCat(name, ": not a perflab sweep partial (", what,
                   "); accepted: a file written by perflab sweep --shard"));
}

// A seed as the writer spells it, decimal digits (core/number.h): " 16",
// "+16" or "0x10" would read as 16 with SimpleAtoi and pass the checks.
std::optional<uint64_t> ParseSeed(std::string_view text) {
  return core::ParseDecimalUnsigned(text);
}
std::string BadSeed(const std::string& whose, std::string_view text) {
  const std::string_view shown = text.substr(0, 40);
  return absl::StrCat(whose, " seed is '",
                      absl::string_view(shown.data(), shown.size()),
                      "', not an integer in [0, 18446744073709551615]");
}

// A metric key as RunResult makes them: a field key, or a table cell
// "table[row].column"; anything else was not written by perflab sweep.
bool IsWord(absl::string_view w) {
  if (w.empty() || w.size() > 128) return false;
  for (char c : w) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                    (c >= '0' && c <= '9') || c == '_';
    if (!ok) return false;
  }
  return true;
}

bool IsMetricKey(absl::string_view key) {
  const size_t open = key.find('[');
  if (open == absl::string_view::npos) return IsWord(key) && key != "seed";
  const size_t close = key.find("].", open);
  if (close == absl::string_view::npos || close == open + 1 ||
      close - open > 10) {
    return false;
  }
  for (size_t i = open + 1; i < close; ++i) {
    if (key[i] < '0' || key[i] > '9') return false;
  }
  return IsWord(key.substr(0, open)) && IsWord(key.substr(close + 2));
}

std::string ParseErrorText(const rapidjson::ParseResult& r) {
  return absl::StrCat("invalid JSON: ", core::JsonErrorText(r));
}

}  // namespace

std::string PartialFingerprint(
    const Experiment& e, int64_t shards,
    const std::vector<std::vector<std::string>>& run_keys) {
  uint64_t h = 0xcbf29ce484222325ULL;  // FNV-1a, as Fingerprint
  auto mix = [&h](absl::string_view text) {
    for (unsigned char c : text) {
      h ^= c;
      h *= 0x100000001b3ULL;
    }
  };
  mix(absl::StrCat(Describe(e), " shards=", shards));
  // Counts and lengths before the text, so no two key lists read the same
  // whatever bytes a key holds (keys are checked only after this).
  for (const std::vector<std::string>& keys : run_keys) {
    mix(absl::StrCat("\n", keys.size()));
    for (const std::string& k : keys) mix(absl::StrCat(" ", k.size(), ":", k));
  }
  return absl::StrFormat("%016x", h);
}

std::string PartialFingerprint(const Experiment& e, int64_t shards,
                               const std::vector<RunResult>& runs) {
  std::vector<std::vector<std::string>> run_keys;
  run_keys.reserve(runs.size());
  for (const RunResult& r : runs) {
    std::vector<std::string>& keys = run_keys.emplace_back();
    keys.reserve(r.values.size());
    for (const auto& [k, v] : r.values) keys.push_back(k);
  }
  return PartialFingerprint(e, shards, run_keys);
}

std::string PartialToJson(const Partial& part) {
  rapidjson::StringBuffer buf;
  Writer w(buf);
  const Experiment& e = part.experiment;
  w.StartObject();
  w.Key("perflab_sweep_partial");
  w.Int(kFormatVersion);
  w.Key("fingerprint");
  Str(w, PartialFingerprint(e, part.shard.count, part.runs));
  w.Key("experiment");
  Str(w, Describe(e));
  w.Key("scenario");
  Str(w, e.scenario);
  w.Key("axes");
  w.StartArray();
  for (const Axis& a : e.axes) {
    w.StartObject();
    w.Key("key");
    Str(w, a.key);
    w.Key("values");
    w.StartArray();
    for (const std::string& v : a.values) Str(w, v);
    w.EndArray();
    w.EndObject();
  }
  w.EndArray();
  w.Key("replications");
  w.Int64(e.replications);
  w.Key("seed");
  Str(w, absl::StrCat(e.seed));  // a string: JSON readers lose uint64 bits
  w.Key("shard");
  w.Int64(part.shard.index);
  w.Key("shards");
  w.Int64(part.shard.count);
  w.Key("runs");
  w.StartArray();
  for (const RunResult& r : part.runs) {
    w.StartObject();
    w.Key("run");
    w.Int64(r.run);
    w.Key("seed");
    Str(w, absl::StrCat(r.seed));
    w.Key("values");
    w.StartObject();
    for (const auto& [k, v] : r.values) {
      Str(w, k);  // keys repeat in document order; JSON objects keep it
      w.Double(v);
    }
    w.EndObject();
    if (!r.histogram_hdr.empty()) {
      w.Key("latency_histogram_hdr_v2");
      Str(w, r.histogram_hdr);
    }
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  return std::string(buf.GetString(), buf.GetSize()) + "\n";
}

namespace {

const char* StrMember(const rapidjson::Value& o, const char* key) {
  return o.IsObject() && o.HasMember(key) && o[key].IsString()
             ? o[key].GetString()
             : nullptr;
}

bool Int64Member(const rapidjson::Value& o, const char* key, int64_t* out) {
  if (!o.IsObject() || !o.HasMember(key) || !o[key].IsInt64()) return false;
  *out = o[key].GetInt64();
  return true;
}

// The header: the format, the shard and the experiment (its axes), checked
// as the command line would check them, before anything is sized by them.
absl::Status ReadHeader(const rapidjson::Document& d, const std::string& name,
                        Partial& p) {
  if (!d.HasMember("perflab_sweep_partial") ||
      !d["perflab_sweep_partial"].IsInt() ||
      d["perflab_sweep_partial"].GetInt() != kFormatVersion) {
    return Bad(name,
               absl::StrCat("no perflab_sweep_partial = ", kFormatVersion));
  }
  const char* scenario = StrMember(d, "scenario");
  const char* seed = StrMember(d, "seed");
  int64_t replications = 0;
  if (scenario == nullptr || seed == nullptr ||
      !Int64Member(d, "replications", &replications) ||
      !Int64Member(d, "shard", &p.shard.index) ||
      !Int64Member(d, "shards", &p.shard.count) || !d.HasMember("axes") ||
      !d["axes"].IsArray() || !d.HasMember("runs") || !d["runs"].IsArray()) {
    return Bad(name, "a header field is missing");
  }
  const std::optional<uint64_t> base_seed = ParseSeed(seed);
  if (!base_seed) return Bad(name, BadSeed("its", seed));
  if (p.shard.count < 1 || p.shard.count > kMaxShards || p.shard.index < 1 ||
      p.shard.index > p.shard.count) {
    return Bad(name, absl::StrCat("shard ", p.shard.index, "/", p.shard.count,
                                  " outside 1 <= I <= N <= ", kMaxShards));
  }
  Experiment& e = p.experiment;
  e.scenario = scenario;
  e.replications = replications;
  e.seed = *base_seed;
  for (const rapidjson::Value& a : d["axes"].GetArray()) {
    Axis axis;
    const char* key = StrMember(a, "key");
    if (key == nullptr || !a.HasMember("values") || !a["values"].IsArray()) {
      return Bad(name, "an axis is malformed");
    }
    axis.key = key;
    for (const rapidjson::Value& v : a["values"].GetArray()) {
      if (!v.IsString()) return Bad(name, "an axis value is not a string");
      axis.values.emplace_back(v.GetString(), v.GetStringLength());
    }
    e.axes.push_back(std::move(axis));
  }
  return absl::OkStatus();
}

// The fingerprint against the contents, then the experiment's limits. The
// key names are read for the fingerprint before anything else of the runs;
// their number is bounded by the file's size.
absl::Status CheckFingerprint(const rapidjson::Document& d,
                              const std::string& name, const Partial& p) {
  const char* fp = StrMember(d, "fingerprint");
  if (fp == nullptr) return Bad(name, "a header field is missing");
  std::vector<std::vector<std::string>> run_keys;
  for (const rapidjson::Value& r : d["runs"].GetArray()) {
    if (!r.IsObject() || !r.HasMember("values") || !r["values"].IsObject()) {
      return Bad(name, "a run is malformed");
    }
    std::vector<std::string>& keys = run_keys.emplace_back();
    for (const auto& m : r["values"].GetObject()) {
      keys.emplace_back(m.name.GetString(), m.name.GetStringLength());
    }
  }
  if (PartialFingerprint(p.experiment, p.shard.count, run_keys) != fp) {
    return Bad(name, "its fingerprint does not match its contents");
  }
  Limits limits;
  limits.force = true;
  if (absl::Status s = CheckExperiment(p.experiment, limits); !s.ok()) {
    return Bad(name, std::string(s.message()));
  }
  return absl::OkStatus();
}

// The shard's i-th run, which must be run k = index - 1 + i x count.
absl::StatusOr<RunResult> ReadRun(const rapidjson::Value& r,
                                  rapidjson::SizeType i,
                                  const std::string& name, const Partial& p) {
  RunResult run;
  const char* rs = StrMember(r, "seed");
  if (!Int64Member(r, "run", &run.run) || rs == nullptr ||
      !r.HasMember("values") || !r["values"].IsObject()) {
    return Bad(name, "a run is malformed");
  }
  const std::optional<uint64_t> seed = ParseSeed(rs);
  if (!seed) {
    return Bad(name, BadSeed(absl::StrCat("run ", i, "'s"), rs));
  }
  run.seed = *seed;
  const int64_t k = p.shard.index - 1 + static_cast<int64_t>(i) * p.shard.count;
  if (run.run != k || run.seed != RunSeed(p.experiment, k)) {
    return Bad(name, absl::StrCat("run ", i, " of the shard is not run ", k,
                                  " with seed ", RunSeed(p.experiment, k)));
  }
  // A key given twice would be counted twice by the aggregate.
  std::set<absl::string_view> seen;
  for (const auto& m : r["values"].GetObject()) {
    const absl::string_view key(m.name.GetString(), m.name.GetStringLength());
    if (!seen.insert(key).second) {
      return Bad(name, absl::StrCat("run ", k, " gives value '", key,
                                    "' twice; accepted: each key once"));
    }
    if (!IsMetricKey(key)) {
      return Bad(name, absl::StrCat("run ", k,
                                    " has a value whose key is not a "
                                    "field or table[row].column name"));
    }
    if (!m.value.IsNumber() || !std::isfinite(m.value.GetDouble())) {
      return Bad(name, absl::StrCat("run ", k, " value '", key,
                                    "' is not a finite number"));
    }
    run.values.emplace_back(std::string(key), m.value.GetDouble());
  }
  if (r.HasMember("latency_histogram_hdr_v2")) {
    const char* h = StrMember(r, "latency_histogram_hdr_v2");
    if (h == nullptr) return Bad(name, "a run's histogram is not a string");
    run.histogram_hdr = h;
    absl::StatusOr<models::Histogram> decoded =
        models::DecodeHdrBase64(run.histogram_hdr);
    if (!decoded.ok()) {
      return Bad(name,
                 absl::StrCat("run ", k, ": ", decoded.status().message()));
    }
  }
  return run;
}

}  // namespace

absl::StatusOr<Partial> ParsePartial(const std::string& json,
                                     const std::string& name) {
  rapidjson::Document d;
  // NaN and Infinity are parsed so that they can be named, then refused.
  const rapidjson::ParseResult parsed =
      core::ParseJson<rapidjson::kParseFullPrecisionFlag |
                      rapidjson::kParseNanAndInfFlag>(d, json);
  if (parsed.IsError()) return Bad(name, ParseErrorText(parsed));
  if (!d.IsObject()) return Bad(name, "invalid JSON");
  Partial p;
  if (absl::Status s = ReadHeader(d, name, p); !s.ok()) return s;
  if (absl::Status s = CheckFingerprint(d, name, p); !s.ok()) return s;
  const rapidjson::Value& runs = d["runs"];
  const int64_t want = ShardSize(p.experiment, p.shard);
  if (static_cast<int64_t>(runs.Size()) != want) {
    return Bad(name, absl::StrCat("shard ", p.shard.index, "/", p.shard.count,
                                  " should hold ", want, " runs but holds ",
                                  runs.Size()));
  }
  p.runs.reserve(static_cast<size_t>(want));
  for (rapidjson::SizeType i = 0; i < runs.Size(); ++i) {
    absl::StatusOr<RunResult> run = ReadRun(runs[i], i, name, p);
    if (!run.ok()) return run.status();
    p.runs.push_back(std::move(*run));
  }
  return p;
}

absl::StatusOr<Merged> MergeParts(const std::vector<Partial>& parts,
                                  const std::vector<std::string>& names) {
  if (parts.empty()) {
    return absl::InvalidArgumentError(
        "sweep-merge: no parts given; accepted: one or more partial files");
  }
  const Partial& first = parts[0];
  std::map<int64_t, size_t> by_shard;
  for (size_t i = 0; i < parts.size(); ++i) {
    const Partial& p = parts[i];
    if (Fingerprint(p.experiment) != Fingerprint(first.experiment) ||
        p.shard.count != first.shard.count) {
      return absl::InvalidArgumentError(absl::StrCat(
          names[i], " is from a different experiment than ", names[0], " (",
          Describe(p.experiment), " shards=", p.shard.count, " vs ",
          Describe(first.experiment), " shards=", first.shard.count, ")"));
    }
    auto [it, fresh] = by_shard.try_emplace(p.shard.index, i);
    if (!fresh) {
      return absl::InvalidArgumentError(
          absl::StrCat("shard ", p.shard.index, "/", p.shard.count,
                       " given twice: ", names[it->second], " and ", names[i]));
    }
  }
  std::vector<std::string> missing;
  for (int64_t s = 1; s <= first.shard.count; ++s) {
    if (!by_shard.contains(s)) {
      missing.push_back(absl::StrCat(s, "/", first.shard.count));
    }
  }
  if (!missing.empty()) {
    // The first few name the gap; the line stays short for any N.
    constexpr size_t kNamed = 10;
    const size_t more = missing.size() > kNamed ? missing.size() - kNamed : 0;
    missing.resize(missing.size() - more);
    return absl::InvalidArgumentError(
        absl::StrCat("missing shard(s) ", absl::StrJoin(missing, ", "),
                     more > 0 ? absl::StrCat(" and ", more, " more") : "",
                     " of ", Describe(first.experiment)));
  }
  Merged m;
  m.experiment = first.experiment;
  const int64_t total = TotalRuns(m.experiment);
  m.runs.resize(static_cast<size_t>(total));
  for (size_t i = 0; i < parts.size(); ++i) {
    std::vector<int64_t> want = ShardRuns(parts[i].experiment, parts[i].shard);
    bool same = want.size() == parts[i].runs.size();
    for (size_t j = 0; same && j < want.size(); ++j) {
      same = parts[i].runs[j].run == want[j];
    }
    if (!same) {
      return absl::InvalidArgumentError(absl::StrCat(
          names[i], ": shard ", parts[i].shard.index, "/", parts[i].shard.count,
          " should hold ", want.size(), " runs (k mod N = I - 1) but holds ",
          parts[i].runs.size(), " or others"));
    }
    for (const RunResult& r : parts[i].runs) {
      m.runs[static_cast<size_t>(r.run)] = r;
    }
  }
  return m;
}

}  // namespace perflab::sweep
