# install.external: `cmake --install` the build into a fresh prefix, then
# configure, build and run tests/install/external (a model outside the
# repository that uses find_package(perflab) and perflab::sim) against it.
# Also: the installed CLI runs, holds neither the checkout's nor the build
# tree's path, and finds its data (calibrate's map) under the prefix.
# Run by ctest with -DBUILD_DIR= -DSOURCE_DIR= -DEXTERNAL_DIR= -DWORK_DIR=
# -DGENERATOR= -DBUILD_TYPE= -DCXX_COMPILER= -DCXX_FLAGS= -DLINKER_FLAGS= (the build's).
cmake_minimum_required(VERSION 3.25)

function(run what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out
                  ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${what} failed (${rc}):\n${out}\n${err}")
  endif()
  set(out "${out}" PARENT_SCOPE)
endfunction()

file(REMOVE_RECURSE ${WORK_DIR})
set(prefix ${WORK_DIR}/prefix)
run("cmake --install" ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix}
    --strip)

foreach(f bin/perflab include/perflab/sim/engine.h
          include/perflab/sim/internal/event_queue.h
          include/perflab/models/little.h include/perflab/core/json.h
          share/perflab/bench/benchmarks.json
          share/perflab/fixtures/calibration/seed-h2.json
          share/perflab/tools/bench-commits
          share/perflab/tools/plots/history.py
          share/perflab/tools/plots/style.py)
  if(NOT EXISTS ${prefix}/${f})
    message(FATAL_ERROR "not installed: ${prefix}/${f}")
  endif()
endforeach()
file(GLOB config ${prefix}/lib*/cmake/perflab/perflabConfig.cmake)
if(NOT config)
  message(FATAL_ERROR "no perflabConfig.cmake under ${prefix}/lib*/cmake/perflab")
endif()

run("installed perflab --help" ${prefix}/bin/perflab --help)
# Nothing of this machine's paths is compiled in: the dataset directory
# comes from a flag or the XDG cache, the rest from core/data_paths.h.
# Checked on the builds one installs (NDEBUG): a Debug or sanitizer build
# names its sources on purpose, in assert() and in UBSan's reports.
set(checked_dirs ${SOURCE_DIR} ${BUILD_DIR})
if(BUILD_TYPE STREQUAL "Debug")
  set(checked_dirs "")
endif()
foreach(dir ${checked_dirs})
  string(REGEX REPLACE "([][+.*?()^$|\\])" "\\\\\\1" pattern "${dir}")
  file(STRINGS ${prefix}/bin/perflab leaked REGEX "${pattern}")
  if(leaked)
    message(FATAL_ERROR "the installed perflab names ${dir}: ${leaked}")
  endif()
endforeach()

# Run from outside any checkout, it reads the installed benchmark map ...
file(MAKE_DIRECTORY ${WORK_DIR}/elsewhere)
execute_process(COMMAND ${prefix}/bin/perflab calibrate --schema --format csv
  WORKING_DIRECTORY ${WORK_DIR}/elsewhere
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT out MATCHES "bench_db")
  message(FATAL_ERROR "installed perflab calibrate --schema (${rc}) did not "
                      "read share/perflab/bench/benchmarks.json:\n${out}${err}")
endif()
# ... and, having no benchmark binaries, ends with one line asking for them
# (after its progress lines), exit 2, writing nothing.
execute_process(COMMAND ${prefix}/bin/perflab calibrate --out cal.json
  WORKING_DIRECTORY ${WORK_DIR}/elsewhere
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 2
   OR NOT err MATCHES "(^|\n)perflab calibrate: --bench-dir: [^\n]*\n$"
   OR EXISTS ${WORK_DIR}/elsewhere/cal.json)
  message(FATAL_ERROR "installed perflab calibrate without --bench-dir "
                      "exited ${rc}, expected 2 and one line:\n${err}")
endif()

set(build ${WORK_DIR}/external-build)
run("configure the external project" ${CMAKE_COMMAND} -S ${EXTERNAL_DIR}
    -B ${build} -G ${GENERATOR} -DCMAKE_BUILD_TYPE=Release
    -DCMAKE_CXX_COMPILER=${CXX_COMPILER} "-DCMAKE_CXX_FLAGS=${CXX_FLAGS}"
    "-DCMAKE_EXE_LINKER_FLAGS=${LINKER_FLAGS}" -DCMAKE_PREFIX_PATH=${prefix})
run("build the external project" ${CMAKE_COMMAND} --build ${build})
run("run the external model" ${build}/external_model)
set(expected "departures_ms 5 10 15\nmean_wait_ms 5\nceiling_per_s 200\n")
if(NOT out STREQUAL expected)
  message(FATAL_ERROR "external_model printed\n${out}\nexpected\n${expected}")
endif()
message(STATUS "install.external: installed, built and ran against ${prefix}")
file(REMOVE_RECURSE ${WORK_DIR})
