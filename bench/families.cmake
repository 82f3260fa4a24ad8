# The cost families bench_db, bench_payload, bench_net, bench_cache, bench_alloc, bench_runtime (issue 4).
