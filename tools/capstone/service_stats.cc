#include "tools/capstone/service_stats.h"

#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "bench/http/net.h"
#include "core/json.h"
#include "rapidjson/document.h"
#include "rapidjson/error/en.h"

namespace perflab::capstone {
namespace {

constexpr char kAccepted[] =
    "; accepted: a JSON object with whole numbers >= 0 for requests, "
    "queries, cache_hits and cache_misses";

absl::Status Bad(const std::string& what) {
  return absl::InvalidArgumentError(
      absl::StrCat("orders-service /stats: ", what, kAccepted));
}

const char* TypeName(const rapidjson::Value& v) {
  if (v.IsNull()) return "null";
  if (v.IsBool()) return "a boolean";
  if (v.IsString()) return "a string";
  if (v.IsArray()) return "an array";
  if (v.IsObject()) return "an object";
  return "a number that is not a whole number >= 0";
}

}  // namespace

absl::StatusOr<ServiceCounters> ParseServiceStats(std::string_view body) {
  rapidjson::Document doc;
  const rapidjson::ParseResult parsed =
      core::ParseJson<rapidjson::kParseDefaultFlags>(doc, body);
  if (!parsed) {
    return Bad(absl::StrCat("not JSON (",
                            rapidjson::GetParseError_En(parsed.Code()),
                            " at offset ", parsed.Offset(), ")"));
  }
  if (!doc.IsObject()) return Bad("not a JSON object");
  ServiceCounters c;
  const struct {
    const char* name;
    int64_t ServiceCounters::*field;
  } kFields[] = {{"requests", &ServiceCounters::requests},
                 {"queries", &ServiceCounters::queries},
                 {"cache_hits", &ServiceCounters::cache_hits},
                 {"cache_misses", &ServiceCounters::cache_misses}};
  // A const view: RapidJSON 1.1's non-const iterators compare ambiguously
  // in C++20.
  const rapidjson::Value& root = doc;
  for (const auto& f : kFields) {
    const auto it = root.FindMember(f.name);
    if (it == root.MemberEnd()) return Bad(absl::StrCat("no \"", f.name, "\""));
    const rapidjson::Value& v = it->value;
    if (!v.IsInt64() || v.GetInt64() < 0) {
      return Bad(absl::StrCat("\"", f.name, "\" is ", TypeName(v)));
    }
    c.*f.field = v.GetInt64();
  }
  return c;
}

absl::StatusOr<ServiceCounters> ReadServiceStats(uint16_t port) {
  http::HttpClient client(port, http::ClientOptions{.timeout_ms = 10'000});
  absl::StatusOr<http::HttpResponse> r = client.Get("/stats");
  if (!r.ok()) {
    return absl::Status(r.status().code(),
                        absl::StrCat("orders-service /stats on port ", port,
                                     ": ", r.status().message()));
  }
  if (r->status != 200) {
    return absl::InternalError(absl::StrCat("orders-service /stats on port ",
                                            port, ": HTTP ", r->status));
  }
  return ParseServiceStats(r->body);
}

}  // namespace perflab::capstone
