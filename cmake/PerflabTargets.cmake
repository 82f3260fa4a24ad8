# Helpers that give every perflab target the same flags, include roots and labels.
include_guard(GLOBAL)

# Include roots. Headers are included by their path from the repository root
# ("sim/engine.h"), yet a target sees only the headers of the libraries it
# links: each library's headers are symbolic links, at that path, in a tree
# of its own (PERFLAB_STAGE_DIR/<library>/, made at configure time), and that
# tree is the library's include directory. A header of a library a target
# does not link does not resolve, so a missing dependency fails the build
# instead of hiding behind the repository's root. The sources stay where
# they are, and an edit to a header is seen through its link.
set(PERFLAB_STAGE_DIR ${PROJECT_BINARY_DIR}/include)

# perflab_stage_headers(STAGE BASE PATTERN...): links the headers matching
# each glob PATTERN (relative to BASE; each must match) into STAGE at their
# repository paths. A header belongs to one tree: a second claim is an error.
function(perflab_stage_headers stage base)
  file(REMOVE_RECURSE ${stage})  # a header moved away leaves no stale link
  foreach(pattern IN LISTS ARGN)
    file(GLOB headers CONFIGURE_DEPENDS ${base}/${pattern})
    if(NOT headers)
      message(FATAL_ERROR "perflab: no header matches ${base}/${pattern}")
    endif()
    foreach(header IN LISTS headers)
      file(RELATIVE_PATH path ${PROJECT_SOURCE_DIR} ${header})
      get_property(owner GLOBAL PROPERTY perflab_header_owner:${path})
      if(owner AND NOT owner STREQUAL stage)
        message(FATAL_ERROR "perflab: ${path} is claimed by ${owner} and ${stage}")
      endif()
      set_property(GLOBAL PROPERTY perflab_header_owner:${path} ${stage})
      get_filename_component(folder ${stage}/${path} DIRECTORY)
      file(MAKE_DIRECTORY ${folder})
      file(CREATE_LINK ${header} ${stage}/${path} SYMBOLIC)
    endforeach()
  endforeach()
endfunction()

# The tests' shared helpers (tests/sanitizers.h, tests/*/..._support.h):
# every target defined under tests/ sees them, nothing else does.
set(PERFLAB_TEST_STAGE ${PERFLAB_STAGE_DIR}/perflab_test_support)
perflab_stage_headers(${PERFLAB_TEST_STAGE} ${PROJECT_SOURCE_DIR}/tests *.h */*.h)

# Warnings are errors for our code only; -ffp-contract=off keeps floating-point
# results identical across optimisation levels (no fused multiply-add).
# Executables get their include roots from what they link.
function(perflab_defaults target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Werror -ffp-contract=off)
  string(FIND "${CMAKE_CURRENT_SOURCE_DIR}/" "${PROJECT_SOURCE_DIR}/tests/" at)
  if(at EQUAL 0)
    target_include_directories(${target} PRIVATE ${PERFLAB_TEST_STAGE})
  endif()
endfunction()

# Where `cmake --install` puts the public headers: they are included by their
# path from the repository root ("sim/engine.h"), so they keep that layout
# under a folder of perflab's own rather than spreading core/ and sim/ over
# the prefix's include/.
set(PERFLAB_INSTALL_INCLUDEDIR include/perflab)

# perflab_library(NAME ALIAS SOURCES ... HEADERS ... DEPS ...): a static
# library with a namespaced alias, e.g. perflab_library(perflab_models ALIAS
# perflab::models ...). HEADERS (globs in the calling folder) are its own
# headers, public and internal: its include root while building is their
# staged tree (PERFLAB_STAGE_DIR/NAME), once installed the installed
# headers' folder (cmake/PerflabInstall.cmake). An installed library is
# exported under its alias's name (perflab::sim), and carries C++20 to
# whoever links it.
function(perflab_library name)
  cmake_parse_arguments(ARG "" "ALIAS" "SOURCES;HEADERS;DEPS" ${ARGN})
  if(NOT ARG_HEADERS)
    message(FATAL_ERROR "perflab_library(${name}): no HEADERS")
  endif()
  add_library(${name} STATIC ${ARG_SOURCES})
  target_compile_options(${name} PRIVATE -Wall -Wextra -Werror -ffp-contract=off)
  perflab_stage_headers(${PERFLAB_STAGE_DIR}/${name} ${CMAKE_CURRENT_SOURCE_DIR}
                        ${ARG_HEADERS})
  target_include_directories(${name} PUBLIC
    $<BUILD_INTERFACE:${PERFLAB_STAGE_DIR}/${name}>
    $<INSTALL_INTERFACE:${PERFLAB_INSTALL_INCLUDEDIR}>)
  target_compile_features(${name} PUBLIC cxx_std_20)
  target_link_libraries(${name} PUBLIC ${ARG_DEPS})
  if(ARG_ALIAS)
    add_library(${ARG_ALIAS} ALIAS ${name})
    string(REPLACE "perflab::" "" export_name ${ARG_ALIAS})
    set_target_properties(${name} PROPERTIES EXPORT_NAME ${export_name})
  endif()
endfunction()

# Tests and benchmark smoke runs keep their generated databases in the build
# tree rather than the user's cache.
set(PERFLAB_TEST_DATASET_ENV
    PERFLAB_DATASET_DIR=${PROJECT_BINARY_DIR}/fixtures/datasets)

# perflab_test(NAME LABELS ... SOURCES ... DEPS ...): a GoogleTest binary whose
# tests are registered with ctest under the given labels (see
# perflab_register_gtest below).
include(GoogleTest)

# GoogleTest's and GoogleMock's headers are parsed once per build tree, into
# one precompiled header every test binary reuses: they are about a second
# of each test file's compile (a 3.6 s file takes 2.7 s with it, GCC -O2;
# 5.5 s and 4.0 s under clang's ASan). The host links nothing but GoogleTest,
# so the macros it was built with are defined in every test file too (GCC's
# and clang's condition for using it); a test may define more.
function(perflab_test_pch_host)
  if(TARGET perflab_test_pch)
    return()
  endif()
  add_library(perflab_test_pch OBJECT ${PROJECT_SOURCE_DIR}/tests/pch_host.cc)
  # The flags of the tests that reuse it: clang uses a precompiled header only
  # at the optimisation level it was built with.
  target_compile_options(perflab_test_pch PRIVATE -Wall -Wextra -Werror -ffp-contract=off
                         ${PERFLAB_TEST_CXX_FLAGS})
  target_link_libraries(perflab_test_pch PRIVATE GTest::gmock GTest::gtest)
  target_precompile_headers(perflab_test_pch PRIVATE
    <gmock/gmock.h> <gtest/gtest.h> <string> <vector> <memory> <utility>)
endfunction()

# Under the sanitizers a test process costs about 0.09 s before its first
# test (ASan's shadow memory, LSan's scan at exit), more than most of its
# 885 tests take themselves (core_test's 86: 8.6 s one by one, 0.74 s as one
# process; the asan-ubsan tests 294 s cold as processes, 173 s as two shards
# a binary). PERFLAB_TEST_SHARDS > 0 (the sanitizer presets)
# runs each binary as that many GoogleTest shards instead, one ctest test
# each (NAME/shard-K), so both cores still share a long binary.
set(PERFLAB_TEST_SHARDS 0 CACHE STRING
    "0: one ctest test per GoogleTest test; N: each test binary as N shards")

# perflab_register_gtest(NAME LABELS PREFIX): NAME's tests with ctest, one by
# one or as PERFLAB_TEST_SHARDS shards. PREFIX starts every test's name.
# NO_PRETTY_VALUES: a parameterized test is named by its
# INSTANTIATE_TEST_SUITE_P name generator (or index), never by a dump of its
# parameter's bytes.
function(perflab_register_gtest name labels prefix)
  if(PERFLAB_TEST_SHARDS GREATER 0)
    math(EXPR last "${PERFLAB_TEST_SHARDS} - 1")
    foreach(k RANGE ${last})
      set(test ${prefix}${name}/shard-${k})
      add_test(NAME ${test} COMMAND ${name} --gtest_brief=1
        WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
      set_tests_properties(${test} PROPERTIES LABELS "${labels}"
        ENVIRONMENT "${PERFLAB_TEST_DATASET_ENV};GTEST_TOTAL_SHARDS=${PERFLAB_TEST_SHARDS};GTEST_SHARD_INDEX=${k}")
    endforeach()
    return()
  endif()
  gtest_discover_tests(${name}
    TEST_PREFIX "${prefix}"
    WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
    TEST_LIST ${name}_TESTS
    NO_PRETTY_VALUES
    DISCOVERY_TIMEOUT 60)
  # Labels are set by a script ctest includes after the discovered tests:
  # passed through gtest_discover_tests' PROPERTIES, a list of two labels
  # ("sim;unit") is split on the way and only the first one survives.
  # The generated databases stay in the build tree under ctest (the binaries
  # themselves default to the XDG cache; see bench/order_service/dataset.h).
  set(labels_file ${CMAKE_CURRENT_BINARY_DIR}/${name}_labels.cmake)
  file(WRITE ${labels_file}
    "if(${name}_TESTS)\n"
    "  set_tests_properties(\${${name}_TESTS} PROPERTIES LABELS \"${labels}\"\n"
    "    ENVIRONMENT \"${PERFLAB_TEST_DATASET_ENV}\")\n"
    "endif()\n")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES ${labels_file})
endfunction()

# Flags for the tests' own code, after the build's: the sanitizer presets
# build it at -O0, as a test file at -O1 under ASan + UBSan spends most of
# its compile in the optimiser (cli_test's first unit: 47 s, at -O0 19 s) and
# the test files are half of that build. The code under test is in the
# libraries, which keep the build's flags.
set(PERFLAB_TEST_CXX_FLAGS "" CACHE STRING
    "Extra compiler flags for the tests' own code (perflab_test without OPTIMISED)")

# perflab_test(NAME [OPTIMISED] LABELS ... SOURCES ... DEPS ...): OPTIMISED
# keeps the build's flags for a binary whose own loops run a library's inline
# code millions of times (samplers, the event queue, histograms): at -O0 its
# tests would take longer than its compile saves.
function(perflab_test name)
  cmake_parse_arguments(ARG "OPTIMISED" "" "LABELS;SOURCES;DEPS" ${ARGN})
  perflab_test_pch_host()
  add_executable(${name} ${ARG_SOURCES})
  perflab_defaults(${name})
  target_link_libraries(${name} PRIVATE ${ARG_DEPS} GTest::gmock GTest::gtest_main)
  if(NOT ARG_OPTIMISED)
    target_compile_options(${name} PRIVATE ${PERFLAB_TEST_CXX_FLAGS})
  endif()
  # The shared header is built with the tests' flags.
  if(NOT ARG_OPTIMISED OR NOT PERFLAB_TEST_CXX_FLAGS)
    target_precompile_headers(${name} REUSE_FROM perflab_test_pch)
  endif()
  perflab_register_gtest(${name} "${ARG_LABELS}" "")
  # Multi-threaded tests (label threads) also build under one target, so the
  # tsan preset builds only them: `cmake --build --preset tsan`.
  if("threads" IN_LIST ARG_LABELS)
    if(NOT TARGET perflab_threads_tests)
      add_custom_target(perflab_threads_tests)
    endif()
    add_dependencies(perflab_threads_tests ${name})
  endif()
endfunction()

# perflab_benchmark(NAME SOURCES ... DEPS ...): a Google Benchmark binary, also
# run by ctest in smoke mode (label bench-smoke) with a tiny min time so it never rots.
# The asan-ubsan preset turns PERFLAB_BENCHMARKS off: timing sanitised code teaches nothing.
option(PERFLAB_BENCHMARKS "Build the Google Benchmark binaries" ON)
function(perflab_benchmark name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS" ${ARGN})
  if(NOT PERFLAB_BENCHMARKS)
    return()
  endif()
  add_executable(${name} ${ARG_SOURCES})
  perflab_defaults(${name})
  target_link_libraries(${name} PRIVATE ${ARG_DEPS} benchmark::benchmark)
  # Every benchmark binary under one target: what `perflab calibrate` and
  # `tools/lab bench` run, built without the tests.
  if(NOT TARGET perflab_benchmarks)
    add_custom_target(perflab_benchmarks)
  endif()
  add_dependencies(perflab_benchmarks ${name})
  add_test(NAME ${name}.smoke
    COMMAND ${name} --benchmark_min_time=0.001 --benchmark_repetitions=1)
  set_tests_properties(${name}.smoke PROPERTIES LABELS bench-smoke TIMEOUT 300
    ENVIRONMENT ${PERFLAB_TEST_DATASET_ENV})
endfunction()

# perflab_fuzz(NAME SOURCES ... DEPS ...): a libFuzzer binary, built only with
# PERFLAB_FUZZ=ON (preset `asan-ubsan`, whose compiler flags already carry
# -fsanitize=fuzzer-no-link,address,undefined). ctest NAME (label fuzz) runs it
# for PERFLAB_FUZZ_SECONDS over tests/fuzz/corpus/NAME/ (with NAME.dict if
# present); new inputs go to a scratch corpus in the build tree so the
# committed seeds stay as they are. 8 s a target: every committed seed is
# replayed first whatever the time; the rest is new search, which a longer
# run by hand (-DPERFLAB_FUZZ_SECONDS=600) extends.
# The aggregate target perflab_fuzz_targets builds every fuzz binary.
option(PERFLAB_FUZZ "Build the libFuzzer targets (needs clang)" OFF)
set(PERFLAB_FUZZ_SECONDS 8 CACHE STRING "Seconds each fuzz ctest runs")
function(perflab_fuzz name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS" ${ARGN})
  if(NOT PERFLAB_FUZZ)
    return()
  endif()
  if(NOT TARGET perflab_fuzz_targets)
    add_custom_target(perflab_fuzz_targets)
  endif()
  add_executable(${name} ${ARG_SOURCES})
  perflab_defaults(${name})
  target_link_libraries(${name} PRIVATE ${ARG_DEPS})
  target_link_options(${name} PRIVATE -fsanitize=fuzzer)
  add_dependencies(perflab_fuzz_targets ${name})
  set(scratch ${CMAKE_CURRENT_BINARY_DIR}/corpus/${name})
  file(MAKE_DIRECTORY ${scratch} ${CMAKE_CURRENT_BINARY_DIR}/artifacts)
  # An optional NAME.dict (libFuzzer dictionary) beside the source is used.
  set(dict)
  if(EXISTS ${CMAKE_CURRENT_SOURCE_DIR}/${name}.dict)
    set(dict -dict=${CMAKE_CURRENT_SOURCE_DIR}/${name}.dict)
  endif()
  # A fixed -seed: CI mutates the same way each run (time still bounds how
  # far it gets); explore with another seed by hand. A find goes into the
  # corpus, so every later run replays it.
  add_test(NAME fuzz.${name}
    COMMAND ${name} -seed=1 -max_total_time=${PERFLAB_FUZZ_SECONDS} -rss_limit_mb=2048
            -timeout=10 -print_final_stats=1 ${dict}
            -artifact_prefix=${CMAKE_CURRENT_BINARY_DIR}/artifacts/${name}-
            ${scratch} ${CMAKE_CURRENT_SOURCE_DIR}/corpus/${name})
  set_tests_properties(fuzz.${name} PROPERTIES
    LABELS fuzz TIMEOUT ${PERFLAB_FUZZ_SECONDS}0)
endfunction()
