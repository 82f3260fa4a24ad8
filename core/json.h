// Parsing JSON with RapidJSON at full precision, safely. RapidJSON 1.1.0
// (Debian 12) asserts in its full-precision strtod, and so aborts any build
// with assertions, on a number beyond the largest double whose integer
// digits its exponent check does not count (21 digits then e308); later
// releases report kParseErrorNumberTooBig instead. ParseJson reports that
// error first, at the number's offset, and otherwise parses as usual.
// Stateless and thread-safe.
#ifndef PERFLAB_CORE_JSON_H_
#define PERFLAB_CORE_JSON_H_

#include <cstddef>
#include <optional>
#include <string_view>

#include "rapidjson/document.h"
#include "rapidjson/error/error.h"

namespace perflab::core {

// The offset of the first number outside strings whose value overflows a
// double (|x| > DBL_MAX), if any. Malformed text is left to the parser.
std::optional<size_t> FirstNumberTooBig(std::string_view json);

// doc.Parse<kFlags>(json) unless a number is too big (the doc is then left
// empty); returns the parse result to test and report (Code(), Offset()).
template <unsigned kFlags>
rapidjson::ParseResult ParseJson(rapidjson::Document& doc,
                                 std::string_view json) {
  if (std::optional<size_t> at = FirstNumberTooBig(json)) {
    doc.SetNull();
    return rapidjson::ParseResult(rapidjson::kParseErrorNumberTooBig, *at);
  }
  doc.Parse<kFlags>(json.data(), json.size());
  return doc;
}

}  // namespace perflab::core

#endif  // PERFLAB_CORE_JSON_H_
