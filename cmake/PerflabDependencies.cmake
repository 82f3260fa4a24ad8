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

# Static archives where Debian ships them (libssl-dev, zlib1g-dev and
# libsqlite3-dev do): every shared library is mapped and relocated by the
# dynamic loader at each start of every perflab process, a fixed cost that a
# scenario, a sweep cell or a capstone step pays whole (OpenSSL alone was
# about 7 ms of it). A build tree configured before this caches the shared
# libraries' paths: those entries are forgotten so that they are searched
# for again.
set(OPENSSL_USE_STATIC_LIBS TRUE)
set(ZLIB_USE_STATIC_LIBS TRUE)
foreach(cached OPENSSL_CRYPTO_LIBRARY OPENSSL_SSL_LIBRARY ZLIB_LIBRARY_RELEASE
               SQLite3_LIBRARY)
  if(DEFINED CACHE{${cached}} AND NOT "$CACHE{${cached}}" MATCHES "\\.a$")
    unset(${cached} CACHE)
  endif()
endforeach()

perflab_require(benchmark libbenchmark-dev)
perflab_require(GTest "libgtest-dev libgmock-dev")
# FindSQLite3 has no static switch: the archive is preferred by its suffix
# (the shared library still serves where there is none), and given what
# SQLite itself calls (libm, dlopen for extensions, threads).
set(perflab_saved_suffixes ${CMAKE_FIND_LIBRARY_SUFFIXES})
list(PREPEND CMAKE_FIND_LIBRARY_SUFFIXES .a)
perflab_require(SQLite3 libsqlite3-dev)
set(CMAKE_FIND_LIBRARY_SUFFIXES ${perflab_saved_suffixes})
if(SQLite3_LIBRARY MATCHES "\\.a$")
  find_package(Threads REQUIRED)
  set_property(TARGET SQLite::SQLite3 APPEND PROPERTY INTERFACE_LINK_LIBRARIES
               m ${CMAKE_DL_LIBS} Threads::Threads)
endif()
perflab_require(simdjson libsimdjson-dev)
perflab_require(RapidJSON rapidjson-dev)
perflab_require(ZLIB zlib1g-dev)
perflab_require(absl libabsl-dev)
# Abseil from its archives as well: its 27 shared libraries were about 8 ms
# of every start (a trivial main linked against the five perflab needs
# directly: 11-13 ms, against libstdc++ alone 4-5 ms). Debian's CMake package
# imports only the shared libraries, though libabsl-dev ships an archive of
# each, so every imported library target is pointed at its archive, all of
# them or (an archive missing) none, never a mix of the two copies.
get_directory_property(perflab_imported IMPORTED_TARGETS)
set(perflab_absl_archives "")
foreach(target IN LISTS perflab_imported)
  if(NOT target MATCHES "^absl::")
    continue()
  endif()
  get_target_property(type ${target} TYPE)
  if(NOT type STREQUAL "SHARED_LIBRARY")
    continue()
  endif()
  get_target_property(location ${target} IMPORTED_LOCATION_NONE)
  if(NOT location)  # not Debian's package: left as it is
    set(perflab_absl_archives "")
    break()
  endif()
  string(REGEX REPLACE "\\.so[.0-9]*$" ".a" archive "${location}")
  if(NOT EXISTS "${archive}")
    set(perflab_absl_archives "")
    message(STATUS "perflab: no ${archive}: Abseil stays shared")
    break()
  endif()
  list(APPEND perflab_absl_archives ${target} ${archive})
endforeach()
while(perflab_absl_archives)
  list(POP_FRONT perflab_absl_archives target archive)
  set_target_properties(${target} PROPERTIES IMPORTED_LOCATION_NONE ${archive}
                        IMPORTED_NO_SONAME TRUE)
  set_property(TARGET ${target} PROPERTY IMPORTED_SONAME_NONE)
endwhile()
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
