# The cost families: one Google Benchmark binary per family of the
# case study's costs, each exercising perflab::orders. Names are documented in
# bench/README.md and are a stable interface for the capstone composer.
perflab_benchmark(bench_db
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/bench_db.cc DEPS perflab::orders)
perflab_benchmark(bench_net
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/bench_net.cc DEPS perflab::orders_server)
perflab_benchmark(bench_payload
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/bench_payload.cc DEPS perflab::orders)
perflab_benchmark(bench_cache
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/bench_cache.cc DEPS perflab::orders)
perflab_benchmark(bench_alloc
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/bench_alloc.cc DEPS perflab::orders)
perflab_benchmark(bench_runtime
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/bench_runtime.cc DEPS perflab::orders)
perflab_benchmark(bench_contention
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/bench_contention.cc
  DEPS perflab::orders_server Threads::Threads)
