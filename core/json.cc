#include "core/json.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "rapidjson/error/en.h"

namespace perflab::core {
namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// The offset of the quote that closes the string opened at `open`, escapes
// skipped, or json.size() if it never closes.
size_t StringEnd(std::string_view json, size_t open) {
  size_t i = open + 1;
  for (; i < json.size() && json[i] != '"'; ++i) {
    if (json[i] == '\\') ++i;
  }
  return std::min(i, json.size());
}

}  // namespace

std::optional<size_t> FirstTooDeep(std::string_view json, int max_depth) {
  const size_t n = json.size();
  int depth = 0;
  for (size_t i = 0; i < n; ++i) {
    const char c = json[i];
    if (c == '"') {
      i = StringEnd(json, i);
    } else if (c == '[' || c == '{') {
      if (++depth > max_depth) return i;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return std::nullopt;
}

std::optional<size_t> FirstNanOrInfWithExponent(std::string_view json) {
  const size_t n = json.size();
  for (size_t i = 0; i < n; ++i) {
    const char c = json[i];
    if (c == '"') {
      i = StringEnd(json, i);
      continue;
    }
    size_t end = 0;
    for (std::string_view word : {"Infinity", "Inf", "NaN"}) {
      if (json.substr(i, word.size()) == word) {
        end = i + word.size();
        break;
      }
    }
    if (end == 0) continue;
    if (end < n && (json[end] == '.' || json[end] == 'e' || json[end] == 'E')) {
      return i;
    }
    i = end - 1;
  }
  return std::nullopt;
}

const char* JsonErrorText(const rapidjson::ParseResult& result) {
  static_assert(kMaxJsonDepth == 64, "the text below names the limit");
  if (result.Code() == rapidjson::kParseErrorTermination) {
    return "nested deeper than 64 levels";
  }
  return rapidjson::GetParseError_En(result.Code());
}

std::optional<size_t> FirstNumberTooBig(std::string_view json) {
  const size_t n = json.size();
  size_t i = 0;
  while (i < n) {
    const char c = json[i];
    if (c == '"') {
      i = StringEnd(json, i) + 1;
      continue;
    }
    if (c != '-' && !IsDigit(c)) {
      ++i;
      continue;
    }
    const size_t start = i;
    if (c == '-') ++i;
    // An upper bound of the decimal magnitude: significant integer digits
    // plus the exponent. Only a number past 10^308 can overflow; strtod
    // (correctly rounded) decides those.
    int64_t digits = 0;
    while (i < n && json[i] == '0') ++i;
    for (; i < n && IsDigit(json[i]); ++i) ++digits;
    if (i < n && json[i] == '.') {
      for (++i; i < n && IsDigit(json[i]); ++i) {
      }
    }
    int64_t exp = 0;
    bool negative_exp = false;
    if (i < n && (json[i] == 'e' || json[i] == 'E')) {
      ++i;
      if (i < n && (json[i] == '+' || json[i] == '-')) {
        negative_exp = json[i] == '-';
        ++i;
      }
      for (; i < n && IsDigit(json[i]); ++i) {
        if (exp < 1'000'000) exp = exp * 10 + (json[i] - '0');
      }
    }
    if (i == start || (i == start + 1 && c == '-')) {  // "-" alone, -Infinity
      i = start + 1;
      continue;
    }
    if (digits + (negative_exp ? -exp : exp) > 308) {
      const std::string token(json.substr(start, i - start));
      errno = 0;
      const double v = std::strtod(token.c_str(), nullptr);
      if (errno == ERANGE && std::isinf(v)) return start;
    }
  }
  return std::nullopt;
}

}  // namespace perflab::core
