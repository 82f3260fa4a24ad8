// A number as a user types it on a command line or in a key=value setting,
// read one way everywhere: decimal only. strtod and absl::SimpleAtod also
// take hexadecimal ("0x10", "0x1p3"), "inf", "nan", a leading '+' and
// spaces, each a different value from what most readers of "0x10" expect or
// a non-number slipping past a range check; one parser refuses them all, so
// every flag and key agrees on what a number is.
//
// Stateless and thread-safe.
#ifndef PERFLAB_CORE_NUMBER_H_
#define PERFLAB_CORE_NUMBER_H_

#include <cstdint>
#include <optional>
#include <string_view>

namespace perflab::core {

// What ParseDecimal accepts, for messages and help texts.
inline constexpr char kDecimalText[] =
    "a decimal number (such as 12, -0.5 or 2.5e-3)";

// `text` as a finite double when it is, whole, an optional '-', decimal
// digits with an optional fraction ("12", "0.5", ".5", "5.") and an optional
// exponent ("2.5e-3", "1E6"); std::nullopt otherwise: empty, spaces, '+',
// hexadecimal, inf or nan in any spelling, and a magnitude past a double's
// range either way (1e400, and 1e-400, which would read as 0).
std::optional<double> ParseDecimal(std::string_view text);

// `text` as an int64 when it is, whole, an optional '-' and decimal digits;
// std::nullopt otherwise (empty, spaces, '+', hexadecimal, a fraction or an
// exponent, a value past int64's range).
std::optional<int64_t> ParseDecimalInteger(std::string_view text);

// `text` as a uint64 when it is, whole, decimal digits (no sign at all);
// std::nullopt otherwise, and past 2^64 - 1. Seeds use it: they span the
// whole unsigned range, which ParseDecimalInteger's int64 does not.
std::optional<uint64_t> ParseDecimalUnsigned(std::string_view text);

}  // namespace perflab::core

#endif  // PERFLAB_CORE_NUMBER_H_
