# tools.startup_libraries: the libraries the dynamic loader maps before
# perflab's main runs are a fixed cost of every perflab process (a scenario,
# a sweep cell, a capstone step). Fails when perflab's ELF header asks for
# one that only a rarely used command needs and that it loads itself when
# asked for (libpq: bench/order_service/pg_libpq.h), or one the build linked
# from its static archive. Run by ctest with -DREADELF= -DPERFLAB=
# -DABSENT=libpq,libssl,... (the libraries' names, comma-separated).
cmake_minimum_required(VERSION 3.25)

execute_process(COMMAND ${READELF} --dynamic ${PERFLAB}
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT out MATCHES "\\(NEEDED\\)")
  message(FATAL_ERROR "readelf --dynamic ${PERFLAB} failed (${rc}):\n${err}")
endif()
string(REGEX MATCHALL "Shared library: \\[[^]]*\\]" needed "${out}")
string(REPLACE "," ";" absent "${ABSENT}")
foreach(lib IN LISTS absent)
  if(needed MATCHES "\\[${lib}\\.so")
    message(FATAL_ERROR "perflab links ${lib} at start-up:\n${needed}")
  endif()
endforeach()

# The static TLS block: the loader allocates and zeroes it at start-up for
# the main thread, and again for every thread, so a large thread_local
# array in the executable is paid by every process (a 256 KiB arena was).
execute_process(COMMAND ${READELF} --program-headers --wide ${PERFLAB}
  RESULT_VARIABLE rc OUTPUT_VARIABLE out)
if(out MATCHES "\n *TLS +0x[0-9a-f]+ 0x[0-9a-f]+ 0x[0-9a-f]+ 0x[0-9a-f]+ 0x([0-9a-f]+)")
  math(EXPR tls_bytes "0x${CMAKE_MATCH_1}")
  if(tls_bytes GREATER 16384)
    message(FATAL_ERROR "perflab's static TLS block is ${tls_bytes} bytes "
                        "(at most 16384): a large thread_local belongs on the heap")
  endif()
endif()
