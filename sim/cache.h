// A bounded cache with a time-to-live and least-recently-used eviction (the
// shape of Caffeine/Guava with maximumSize + expireAfterWrite), in virtual
// time, and the key streams that feed it: uniform, the case study's skewed
// 1 + n u^3, or Zipf. Lookups use a hash map but nothing is ever iterated
// from it, so results cannot depend on hash order.
// Kept apart from bench/order_service/cache.h on purpose: that one is the real
// cache the benchmarks time; this one models hits and expiry in virtual time
// only. Single-threaded, like the Simulation it belongs to.
#ifndef PERFLAB_SIM_CACHE_H_
#define PERFLAB_SIM_CACHE_H_

#include <cstdint>
#include <list>
#include <optional>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "core/case_study.h"
#include "sim/engine.h"
#include "sim/random.h"

namespace perflab::sim {

struct CacheOptions {
  int64_t max_entries =
      case_study::kCacheEntries;  // LRU eviction past this many entries
  Time ttl = case_study::kCacheTtlS *
             kSec;  // an entry expires this long after its write
};

struct CacheStats {
  int64_t hits = 0;
  int64_t misses = 0;
  int64_t evictions = 0;    // removed to make room
  int64_t expirations = 0;  // found expired on lookup
  double hit_ratio() const {
    const int64_t n = hits + misses;
    return n > 0 ? static_cast<double>(hits) / static_cast<double>(n) : 0;
  }
};

class Cache {
 public:
  explicit Cache(CacheOptions options) : options_(options) {}

  // True on a fresh hit (and marks the entry recently used). A miss leaves
  // it to the caller to load the value and Put it.
  bool Get(int64_t key, Time now);
  void Put(int64_t key, Time now);

  int64_t size() const { return static_cast<int64_t>(index_.size()); }
  const CacheStats& stats() const { return stats_; }
  void ResetStats() { stats_ = {}; }

 private:
  struct Entry {
    int64_t key;
    Time written;
  };
  CacheOptions options_;
  std::list<Entry> lru_;  // front = most recently used
  absl::flat_hash_map<int64_t, std::list<Entry>::iterator> index_;
  CacheStats stats_;
};

// Where keys come from: 1..n uniform, skewed 1 + n u^3, or Zipf(s).
class KeyStream {
 public:
  enum class Kind { kUniform, kSkewed, kZipf };
  static absl::StatusOr<KeyStream> Create(Kind kind, int64_t n,
                                          double zipf_s = 1.0);
  int64_t Next(Rng& rng) const;

 private:
  Kind kind_ = Kind::kUniform;
  int64_t n_ = 1;
  std::optional<Zipf> zipf_;
};

}  // namespace perflab::sim

#endif  // PERFLAB_SIM_CACHE_H_
