// Renders a core::Document as GitHub-flavoured Markdown, ready to paste
// into a pull request: the title as a heading, fields as a list, tables as
// pipe tables (numbers right-aligned), notes as a quote. Thread-safe.
#ifndef PERFLAB_TOOLS_COMPARE_MARKDOWN_H_
#define PERFLAB_TOOLS_COMPARE_MARKDOWN_H_

#include <string>
#include <string_view>

#include "core/document.h"

namespace perflab::compare {

std::string ToMarkdown(const core::Document& doc);

// `format` "md" is ToMarkdown's; "json" and "csv" core::Render's; anything
// else its table. The commands whose --format offers md render with it.
std::string RenderAs(const core::Document& doc, std::string_view format);

}  // namespace perflab::compare

#endif  // PERFLAB_TOOLS_COMPARE_MARKDOWN_H_
