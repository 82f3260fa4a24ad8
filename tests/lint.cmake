# Lint checks run by ctest under the label "lint" (ctest -L lint).
# lint.clang-format: tracked *.cc/*.h files must match .clang-format; skipped
# (not failed) where git or clang-format is not installed.
add_test(NAME lint.clang-format
  COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/lint/clang_format_check ${PROJECT_SOURCE_DIR})
set_tests_properties(lint.clang-format PROPERTIES
  LABELS lint SKIP_RETURN_CODE 77 TIMEOUT 120)

# lint.layers: includes only point down the layers (core < models < sim <
# sim/scenarios < bench < tools); see tests/lint/layers_check.
add_test(NAME lint.layers
  COMMAND python3 ${CMAKE_CURRENT_SOURCE_DIR}/lint/layers_check ${PROJECT_SOURCE_DIR})
set_tests_properties(lint.layers PROPERTIES LABELS lint TIMEOUT 60)

# lint.clang_tidy: .clang-tidy holds for every tracked *.cc this build
# compiles (clean results are remembered per preprocessed file, so only what
# changed is analysed again); skipped where clang-tidy is not installed.
add_test(NAME lint.clang_tidy
  COMMAND python3 ${CMAKE_CURRENT_SOURCE_DIR}/lint/clang_tidy_check
          ${PROJECT_SOURCE_DIR} ${PROJECT_BINARY_DIR})
set_tests_properties(lint.clang_tidy PROPERTIES
  LABELS lint SKIP_RETURN_CODE 77 TIMEOUT 1800)
add_test(NAME lint.clang_tidy.selftest
  COMMAND python3 ${CMAKE_CURRENT_SOURCE_DIR}/lint/clang_tidy_check_test.py)
set_tests_properties(lint.clang_tidy.selftest PROPERTIES LABELS lint TIMEOUT 60)

# lint.function_length: no function over 100 lines in core/ models/ sim/
# bench/ tools/ beyond tests/lint/function_length_allowlist, whose entries may
# only shrink; lint.function_length.selftest runs the checker on a fixture.
add_test(NAME lint.function_length
  COMMAND python3 ${CMAKE_CURRENT_SOURCE_DIR}/lint/function_length_check
          ${PROJECT_SOURCE_DIR})
set_tests_properties(lint.function_length PROPERTIES LABELS lint TIMEOUT 120)
add_test(NAME lint.function_length.selftest
  COMMAND python3 ${CMAKE_CURRENT_SOURCE_DIR}/lint/function_length_check_test.py)
set_tests_properties(lint.function_length.selftest PROPERTIES
  LABELS lint TIMEOUT 60)

# lint.unit_tests: every unit of core/ models/ sim/ bench/order_service bench/http
# tools/ has NAME_test.cc in its mirrored test folder, or an entry in
# tests/lint/unit_test_allowlist naming the tests that cover it (tests/README.md);
# lint.unit_tests.selftest runs the checker on trees it writes.
add_test(NAME lint.unit_tests
  COMMAND python3 ${CMAKE_CURRENT_SOURCE_DIR}/lint/unit_test_check
          ${PROJECT_SOURCE_DIR})
set_tests_properties(lint.unit_tests PROPERTIES LABELS lint TIMEOUT 60)
add_test(NAME lint.unit_tests.selftest
  COMMAND python3 ${CMAKE_CURRENT_SOURCE_DIR}/lint/unit_test_check_test.py)
set_tests_properties(lint.unit_tests.selftest PROPERTIES LABELS lint TIMEOUT 60)
