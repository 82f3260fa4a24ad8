# bench_sim: the engine speed benchmark (issue 3).
perflab_benchmark(bench_sim SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/bench_sim.cc DEPS perflab::sim)
