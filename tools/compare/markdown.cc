#include "tools/compare/markdown.h"

#include <cmath>
#include <variant>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_replace.h"

namespace perflab::compare {
namespace {

std::string Cell(const core::Value& v, int decimals) {
  struct Visitor {
    int decimals;
    std::string operator()(std::monostate) const { return "-"; }
    std::string operator()(int64_t i) const { return absl::StrCat(i); }
    std::string operator()(double d) const {
      if (!std::isfinite(d)) return absl::StrCat(d);
      return absl::StrFormat("%.*f", decimals, d);
    }
    std::string operator()(const std::string& s) const {
      return absl::StrReplaceAll(s, {{"|", "\\|"}});
    }
    std::string operator()(bool b) const { return b ? "yes" : "no"; }
  };
  return std::visit(Visitor{decimals}, v);
}

}  // namespace

std::string ToMarkdown(const core::Document& doc) {
  std::string out = absl::StrCat("### ", doc.title(), "\n\n");
  for (const core::Field& f : doc.fields()) {
    if (!core::ForReaders(f)) continue;
    absl::StrAppend(&out, "- ", f.label, ": **", Cell(f.value, f.decimals),
                    "**\n");
  }
  for (const core::Table& t : doc.tables()) {
    if (t.rows.empty()) continue;
    out += "\n";
    if (!t.title.empty()) absl::StrAppend(&out, "**", t.title, "**\n\n");
    std::string header = "|", rule = "|";
    for (size_t c = 0; c < t.columns.size(); ++c) {
      bool text = std::holds_alternative<std::string>(t.rows[0][c]);
      absl::StrAppend(&header, " ", t.columns[c].header, " |");
      absl::StrAppend(&rule, text ? " :--- |" : " ---: |");
    }
    absl::StrAppend(&out, header, "\n", rule, "\n");
    for (const auto& row : t.rows) {
      out += "|";
      for (size_t c = 0; c < row.size(); ++c) {
        absl::StrAppend(&out, " ", Cell(row[c], t.columns[c].decimals), " |");
      }
      out += "\n";
    }
  }
  if (!doc.notes().empty()) out += "\n";
  for (const std::string& n : doc.notes()) absl::StrAppend(&out, "> ", n, "\n");
  return out;
}

std::string RenderAs(const core::Document& doc, std::string_view format) {
  if (format == "md") return ToMarkdown(doc);
  const absl::StatusOr<core::Format> parsed = core::ParseFormat(format);
  return core::Render(doc, parsed.ok() ? *parsed : core::Format::kTable);
}

}  // namespace perflab::compare
