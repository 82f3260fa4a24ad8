// The page cache of the case study's step 8 (Caffeine, maximumSize 10,000,
// expireAfterWrite 30 s: bench/order_service/ttl_lru_cache.h) holding
// serialised pages, the service that puts it in front of the miss path (join +
// serialisation), and a deterministic hit-ratio simulation in virtual time.
//
// Kept apart from sim/cache.h on purpose: this one is real code under test
// (real strings, a mutex, wall-clock TTL) that benchmarks time; the simulator's
// is a model in virtual time that stores no values.
//
// PageCache is thread-safe (one mutex; values are immutable shared strings).
// PageService is not (it owns a repository): one per thread, sharing a cache.
#ifndef PERFLAB_BENCH_ORDER_SERVICE_CACHE_H_
#define PERFLAB_BENCH_ORDER_SERVICE_CACHE_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "bench/order_service/orders.h"
#include "bench/order_service/ttl_lru_cache.h"

namespace perflab::orders {

// The case study's page cache holding serialised pages (the benchmarks time
// a hit as a pointer hand-out; the model charges serialisation separately).
using PageCache = TtlLruCache<std::string>;
using PageCacheOptions = TtlLruCacheOptions;
using Body = PageCache::Value;

// GET /customers/{id}/orders: from the cache if fresh, else the join and the
// DTO serialisation (the seed's miss path), stored for next time.
class PageService {
 public:
  // `cache` may be null: every request takes the miss path.
  PageService(OrderRepository* repo, PageCache* cache)
      : repo_(repo), cache_(cache) {}
  absl::StatusOr<Body> Get(int64_t customer_id);
  absl::StatusOr<Body> Load(int64_t customer_id);  // the miss path only

 private:
  OrderRepository* repo_;
  PageCache* cache_;
};

struct HitRatioOptions {
  int64_t customers = 5'000;
  bool skewed = true;         // 1 + n*u^3 (the seed) or uniform
  double rate_per_s = 5'000;  // requests per second of virtual time
  double warmup_s = 60;       // not counted: lets the cache reach steady state
  double measure_s = 60;      // counted
  uint64_t seed = 42;
  PageCacheOptions cache = {};  // its now_ns is replaced by the virtual clock
};

// Drives a real PageCache with a virtual clock and tiny values; returns the
// hit ratio over the measured window. Deterministic.
double SimulateHitRatio(const HitRatioOptions& options);

}  // namespace perflab::orders

#endif  // PERFLAB_BENCH_ORDER_SERVICE_CACHE_H_
