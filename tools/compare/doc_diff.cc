#include "tools/compare/doc_diff.h"

#include <charconv>
#include <cmath>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "rapidjson/stringbuffer.h"
#include "rapidjson/writer.h"

namespace perflab::compare {
namespace {

std::string Text(const rapidjson::Value& v) {
  if (v.IsDouble()) {  // shortest round-trip text, as perflab printed it
    char buf[64];
    auto res = std::to_chars(buf, buf + sizeof buf, v.GetDouble());
    return std::string(buf, res.ptr);
  }
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  v.Accept(w);
  std::string s(buf.GetString(), buf.GetSize());
  // Long nested values would swamp the table; the path says where to look.
  return s.size() > 40 ? s.substr(0, 37) + "..." : s;
}

std::optional<double> HalfWidth(const rapidjson::Value& object,
                                const std::string& key) {
  if (!object.IsObject()) return std::nullopt;
  std::vector<std::string> names = {key + "_ci95", key + "_ci95_half_width",
                                    key + "_half_width"};
  if (size_t cut = key.rfind('_'); cut != std::string::npos && cut > 0) {
    names.push_back(key.substr(0, cut) + "_ci95" + key.substr(cut));
  }
  for (const std::string& n : names) {
    auto it = object.FindMember(n.c_str());
    if (it != object.MemberEnd() && it->value.IsNumber()) {
      return std::abs(it->value.GetDouble());
    }
  }
  return std::nullopt;
}

std::string Join(const std::string& path, const std::string& key) {
  return path.empty() ? key : absl::StrCat(path, ".", key);
}

// The path of the first number in `v` that is not finite, if any: the JSON
// reader takes NaN and Infinity for Google Benchmark's files, but a perflab
// result never holds them, and no change can be computed from one.
std::optional<std::string> NonFinitePath(const rapidjson::Value& v,
                                         const std::string& path) {
  if (v.IsNumber()) {
    if (std::isfinite(v.GetDouble())) return std::nullopt;
    return path.empty() ? std::string("the top level") : path;
  }
  if (v.IsObject()) {
    for (auto it = v.MemberBegin(); it != v.MemberEnd(); ++it) {
      if (auto p = NonFinitePath(it->value, Join(path, it->name.GetString()))) {
        return p;
      }
    }
  }
  if (v.IsArray()) {
    for (rapidjson::SizeType i = 0; i < v.Size(); ++i) {
      if (auto p = NonFinitePath(v[i], absl::StrCat(path, "[", i, "]"))) {
        return p;
      }
    }
  }
  return std::nullopt;
}

class Walker {
 public:
  explicit Walker(DocDiff& out)
      : out_(out),
        table_(out.doc.AddTable("fields", "fields that differ",
                                {{"path", "field", 0},
                                 {"base", "base", 0},
                                 {"contender", "contender", 0},
                                 {"change", "change", 6},
                                 {"change_pct", "change (%)", 2},
                                 {"verdict", "verdict", 0}})) {}

  int compared() const { return compared_; }
  // Not OK once a change could not be computed: the first such field.
  const absl::Status& status() const { return status_; }

  // `bp`/`cp`: the objects holding base/contender (for half-width lookups).
  void Walk(const std::string& path, const std::string& key,
            const rapidjson::Value* bp, const rapidjson::Value* cp,
            const rapidjson::Value& b, const rapidjson::Value& c) {
    if (b.IsObject() && c.IsObject()) {
      for (auto it = b.MemberBegin(); it != b.MemberEnd(); ++it) {
        std::string k = it->name.GetString();
        std::string p = Join(path, k);
        auto jt = c.FindMember(it->name);
        if (jt == c.MemberEnd()) {
          Only(p, &it->value, nullptr);
        } else {
          Walk(p, k, &b, &c, it->value, jt->value);
        }
      }
      for (auto jt = c.MemberBegin(); jt != c.MemberEnd(); ++jt) {
        if (!b.HasMember(jt->name)) {
          std::string k = jt->name.GetString();
          Only(Join(path, k), nullptr, &jt->value);
        }
      }
      return;
    }
    if (b.IsArray() && c.IsArray()) {
      for (rapidjson::SizeType i = 0; i < std::max(b.Size(), c.Size()); ++i) {
        std::string p = absl::StrCat(path, "[", i, "]");
        if (i >= c.Size()) {
          Only(p, &b[i], nullptr);
        } else if (i >= b.Size()) {
          Only(p, nullptr, &c[i]);
        } else {
          Walk(p, "", nullptr, nullptr, b[i], c[i]);
        }
      }
      return;
    }
    ++compared_;
    if (b.IsNumber() && c.IsNumber()) {
      const double x = b.GetDouble(), y = c.GetDouble();
      if (x == y) return;
      // Both finite, yet the change (-1.7e308 to 1.7e308) or its percentage
      // (1e-300 to 1) can be past a double's range: refused, never inf.
      const double change = y - x;
      const double ratio = x != 0 ? change / std::abs(x) : 0;
      if (!std::isfinite(change) || !std::isfinite(ratio * 100)) {
        Refuse(path, b, c);
        return;
      }
      core::Value pct;
      if (x != 0) pct = ratio * 100;
      std::string verdict = "differs";
      std::optional<double> hb = bp ? HalfWidth(*bp, key) : std::nullopt;
      std::optional<double> hc = cp ? HalfWidth(*cp, key) : std::nullopt;
      if (hb && hc && std::abs(change) <= *hb && std::abs(change) <= *hc) {
        verdict = "same";  // inside both 95 % intervals: sampling noise
      } else {
        out_.differs = true;
      }
      table_.Add({path, Text(b), Text(c), change, pct, verdict});
      return;
    }
    if (b == c) return;
    out_.differs = true;
    table_.Add({path, Text(b), Text(c), {}, {}, std::string("differs")});
  }

 private:
  void Refuse(const std::string& path, const rapidjson::Value& b,
              const rapidjson::Value& c) {
    if (!status_.ok()) return;
    status_ = absl::InvalidArgumentError(absl::StrCat(
        path, ": ", Text(b), " (BASE) to ", Text(c),
        " (CONTENDER): the change or its percentage is past a double's range "
        "(1.8e308); accepted: values whose difference and change in percent "
        "a double holds"));
  }

  void Only(const std::string& path, const rapidjson::Value* b,
            const rapidjson::Value* c) {
    ++compared_;
    out_.differs = true;
    table_.Add({path,
                b ? Text(*b) : "-",
                c ? Text(*c) : "-",
                {},
                {},
                std::string(b ? "only in base" : "only in contender")});
  }

  DocDiff& out_;
  core::Table& table_;
  int compared_ = 0;
  absl::Status status_;
};

}  // namespace

absl::StatusOr<DocDiff> DiffResults(const rapidjson::Value& base,
                                    const rapidjson::Value& contender) {
  for (const auto& [role, doc] :
       {std::pair{"BASE", &base}, std::pair{"CONTENDER", &contender}}) {
    if (std::optional<std::string> at = NonFinitePath(*doc, "")) {
      return absl::InvalidArgumentError(
          absl::StrCat(role, " holds NaN or Infinity at ", *at,
                       "; accepted: finite numbers (a perflab result has "
                       "no other)"));
    }
  }
  DocDiff out;
  Walker walker(out);
  walker.Walk("", "", nullptr, nullptr, base, contender);
  if (!walker.status().ok()) return walker.status();
  const auto& rows = out.doc.tables().front().rows;
  out.doc.Set("identical", "identical", rows.empty());
  out.doc.Set("fields_compared", "values compared",
              static_cast<int64_t>(walker.compared()));
  out.doc.Set("fields_differing", "values that differ",
              static_cast<int64_t>(rows.size()));
  out.doc.Note(
      "a numeric difference inside both 95 % confidence half-widths "
      "(x_ci95, x_half_width, stem_ci95_unit) is `same`");
  return out;
}

}  // namespace perflab::compare
