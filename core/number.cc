#include "core/number.h"

#include <charconv>
#include <cmath>
#include <system_error>

namespace perflab::core {

std::optional<double> ParseDecimal(std::string_view text) {
  // from_chars takes neither spaces nor '+', nor, with chars_format::general,
  // hexadecimal; it does take inf and nan, refused below as non-finite, and
  // reports a magnitude past a double's range (1e400, 1e-400) as out of
  // range.
  double v = 0;
  const char* end = text.data() + text.size();
  const std::from_chars_result r =
      std::from_chars(text.data(), end, v, std::chars_format::general);
  if (text.empty() || r.ec != std::errc() || r.ptr != end) return std::nullopt;
  if (!std::isfinite(v)) return std::nullopt;
  return v;
}

std::optional<int64_t> ParseDecimalInteger(std::string_view text) {
  // Base 10: no prefix, no '+', no spaces; out of range is an error.
  int64_t v = 0;
  const char* end = text.data() + text.size();
  const std::from_chars_result r = std::from_chars(text.data(), end, v, 10);
  if (text.empty() || r.ec != std::errc() || r.ptr != end) return std::nullopt;
  return v;
}

std::optional<uint64_t> ParseDecimalUnsigned(std::string_view text) {
  // from_chars takes no '-' for an unsigned type, and no '+' for any.
  uint64_t v = 0;
  const char* end = text.data() + text.size();
  const std::from_chars_result r = std::from_chars(text.data(), end, v, 10);
  if (text.empty() || r.ec != std::errc() || r.ptr != end) return std::nullopt;
  return v;
}

}  // namespace perflab::core
