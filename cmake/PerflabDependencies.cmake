# Every third-party dependency comes from a Debian package and is found here.
# A missing one stops the configure step with the exact package to install.
include_guard(GLOBAL)

macro(perflab_require package debian_package)
  find_package(${package} ${ARGN} QUIET)
  if(NOT ${package}_FOUND)
    message(FATAL_ERROR
      "perflab: dependency '${package}' not found. "
      "Install it with: apt-get install ${debian_package}  "
      "(or run tools/lab build, which installs what is missing).")
  endif()
endmacro()

perflab_require(benchmark libbenchmark-dev)
perflab_require(GTest "libgtest-dev libgmock-dev")
perflab_require(SQLite3 libsqlite3-dev)
perflab_require(simdjson libsimdjson-dev)
perflab_require(RapidJSON rapidjson-dev)
perflab_require(ZLIB zlib1g-dev)
perflab_require(absl libabsl-dev)
perflab_require(CLI11 libcli11-dev)
perflab_require(OpenSSL libssl-dev)
perflab_require(Threads libc6-dev)

# RapidJSON's Debian config only sets an include directory; give it a target.
if(NOT TARGET perflab_rapidjson)
  add_library(perflab_rapidjson INTERFACE)
  target_include_directories(perflab_rapidjson SYSTEM INTERFACE ${RAPIDJSON_INCLUDE_DIRS})
  add_library(RapidJSON::RapidJSON ALIAS perflab_rapidjson)
endif()

# libpq, for the order service on PostgreSQL (bench/order_service/pg_*, bench_pg, the pg tests).
# Optional: without it the rest builds, and those targets are left out.
find_package(PostgreSQL QUIET)
if(PostgreSQL_FOUND)
  set(PERFLAB_POSTGRESQL ON)
  # Its headers only: perflab::orders_pg loads the library at run time
  # (bench/order_service/pg_libpq.h).
  if(NOT TARGET perflab_libpq_headers)
    add_library(perflab_libpq_headers INTERFACE)
    target_include_directories(perflab_libpq_headers SYSTEM INTERFACE
      $<TARGET_PROPERTY:PostgreSQL::PostgreSQL,INTERFACE_INCLUDE_DIRECTORIES>)
  endif()
else()
  set(PERFLAB_POSTGRESQL OFF)
  message(STATUS "perflab: libpq not found (apt-get install libpq-dev): "
                 "the order service on PostgreSQL is not built")
endif()
