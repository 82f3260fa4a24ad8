# bench_sim: the engine speed benchmark (issue 3).
