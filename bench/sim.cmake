# bench_sim: the engine speed benchmark (issue 3), and the order-service
# model's (issue 9).
perflab_benchmark(bench_sim SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/bench_sim.cc
  DEPS perflab::sim perflab::scenarios)
