// The page cache of the case study's step 8 (Caffeine, maximumSize 10,000,
// expireAfterWrite 30 s) as a bounded LRU map with a TTL, the service that
// puts it in front of the miss path (join + serialisation), and a
// deterministic hit-ratio simulation in virtual time.
//
// Kept apart from sim/cache.h on purpose: this one is real code under test
// (real strings, a mutex, wall-clock TTL) that benchmarks time; the simulator's
// is a model in virtual time that stores no values.
//
// PageCache is thread-safe (one mutex; values are immutable shared strings).
// PageService is not (it owns a repository): one per thread, sharing a cache.
#ifndef PERFLAB_BENCH_LAB_CACHE_H_
#define PERFLAB_BENCH_LAB_CACHE_H_

#include <cstdint>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>

#include "absl/status/statusor.h"
#include "bench/lab/orders.h"

namespace perflab::lab {

using Body = std::shared_ptr<const std::string>;

struct PageCacheOptions {
  // Entries kept; the least recently used is evicted beyond this (Caffeine
  // uses W-TinyLFU, which differs only when the working set exceeds it).
  size_t capacity = 10'000;
  // Expire-after-write, in nanoseconds.
  int64_t ttl_ns = 30'000'000'000;
  // Clock in nanoseconds; null reads steady_clock. Tests and the simulation
  // pass a virtual clock. Must be thread-safe if the cache is shared.
  std::function<int64_t()> now_ns = nullptr;
};

class PageCache {
 public:
  explicit PageCache(PageCacheOptions options = {});

  // The fresh value for `key`, or null (absent or expired; expired entries
  // are dropped). Counts a hit or a miss.
  Body Get(int64_t key);
  void Put(int64_t key, Body value);
  void Clear();  // drops entries and counters

  int64_t hits() const;
  int64_t misses() const;
  size_t size() const;

 private:
  int64_t Now() const;
  struct Entry {
    Body value;
    int64_t written_ns;
    std::list<int64_t>::iterator lru;
  };
  PageCacheOptions options_;
  mutable std::mutex mu_;
  std::list<int64_t> lru_;  // front = most recently used
  std::unordered_map<int64_t, Entry> map_;
  int64_t hits_ = 0, misses_ = 0;
};

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

}  // namespace perflab::lab

#endif  // PERFLAB_BENCH_LAB_CACHE_H_
