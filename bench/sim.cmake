# bench_sim: the engine speed benchmark, and the order-service model's.
perflab_benchmark(bench_sim SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/bench_sim.cc
  DEPS perflab::sim perflab::scenarios)
