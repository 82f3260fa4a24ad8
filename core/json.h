// Parsing JSON from outside with RapidJSON, safely and boundedly.
//
// Depth: arrays and objects nested deeper than kMaxJsonDepth are refused
// before parsing (a pre-scan of brackets outside strings), and the parse is
// iterative (kParseIterativeFlag), so neither the parser nor any reader that
// walks the document recursively (diffs, writers) can run out of stack on
// hostile input. No file perflab reads or writes nests more than ten deep.
//
// Numbers: RapidJSON 1.1.0 (Debian 12) asserts in its full-precision strtod,
// and so aborts any build with assertions, on a number beyond the largest
// double whose integer digits its exponent check does not count (21 digits
// then e308); later releases report kParseErrorNumberTooBig instead.
// ParseJson reports that error first, at the number's offset.
//
// Stateless and thread-safe.
#ifndef PERFLAB_CORE_JSON_H_
#define PERFLAB_CORE_JSON_H_

#include <cstddef>
#include <optional>
#include <string_view>

#include "rapidjson/document.h"
#include "rapidjson/error/error.h"

namespace perflab::core {

inline constexpr int kMaxJsonDepth = 64;

// The offset of the first '[' or '{' outside strings that opens level
// max_depth + 1, if any. Malformed text is left to the parser: the scan
// reads every prefix the parser accepts as the parser does.
std::optional<size_t> FirstTooDeep(std::string_view json,
                                   int max_depth = kMaxJsonDepth);

// The offset of the first number outside strings whose value overflows a
// double (|x| > DBL_MAX), if any. Malformed text is left to the parser.
std::optional<size_t> FirstNumberTooBig(std::string_view json);

// The offset of the first NaN, Inf or Infinity outside strings that a '.',
// 'e' or 'E' follows, if any. With kParseNanAndInfFlag, RapidJSON 1.1.0 reads
// on into a fraction or exponent after such a word, and its full-precision
// strtod then asserts on the empty digit string ("NaNe9").
std::optional<size_t> FirstNanOrInfWithExponent(std::string_view json);

// doc.Parse<kFlags | kParseIterativeFlag>(json) unless the text nests too
// deep (kParseErrorTermination at the bracket) or a number is too big
// (kParseErrorNumberTooBig at the number) or, with kParseNanAndInfFlag, a
// NaN or Infinity runs on into an exponent (kParseErrorValueInvalid at the
// word); the doc is then left empty.
// Returns the parse result to test and report (JsonErrorText, Offset()).
template <unsigned kFlags>
rapidjson::ParseResult ParseJson(rapidjson::Document& doc,
                                 std::string_view json) {
  if (std::optional<size_t> at = FirstTooDeep(json)) {
    doc.SetNull();
    return rapidjson::ParseResult(rapidjson::kParseErrorTermination, *at);
  }
  if (std::optional<size_t> at = FirstNumberTooBig(json)) {
    doc.SetNull();
    return rapidjson::ParseResult(rapidjson::kParseErrorNumberTooBig, *at);
  }
  if constexpr ((kFlags & rapidjson::kParseNanAndInfFlag) != 0) {
    if (std::optional<size_t> at = FirstNanOrInfWithExponent(json)) {
      doc.SetNull();
      return rapidjson::ParseResult(rapidjson::kParseErrorValueInvalid, *at);
    }
  }
  doc.Parse<kFlags | rapidjson::kParseIterativeFlag>(json.data(), json.size());
  return doc;
}

// What went wrong, in words, for a ParseJson error: RapidJSON's own text,
// but "nested deeper than 64 levels" for the depth limit; no offset.
const char* JsonErrorText(const rapidjson::ParseResult& result);

}  // namespace perflab::core

#endif  // PERFLAB_CORE_JSON_H_
