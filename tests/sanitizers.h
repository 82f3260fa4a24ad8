// Whether this test binary runs under AddressSanitizer (the asan-ubsan
// preset, clang or GCC). Tests that simulate long runs or time real
// work scale down or widen their bounds there, and say why.
#ifndef PERFLAB_TESTS_SANITIZERS_H_
#define PERFLAB_TESTS_SANITIZERS_H_

namespace perflab::testing {

#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool kSanitized = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
inline constexpr bool kSanitized = true;
#else
inline constexpr bool kSanitized = false;
#endif
#else
inline constexpr bool kSanitized = false;
#endif

}  // namespace perflab::testing

#endif  // PERFLAB_TESTS_SANITIZERS_H_
