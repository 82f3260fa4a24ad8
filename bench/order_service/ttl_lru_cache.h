// A bounded LRU map with expire-after-write: the shape of the case study's
// Caffeine cache (maximumSize 10,000, expireAfterWrite 30 s). Values are
// immutable and shared, so a hit hands out a pointer without copying.
//
// Real code under test (a mutex, a wall clock unless one is injected), kept
// apart from the simulator's sim/cache.h, which models one in virtual time.
// Thread-safe: every method takes the one mutex.
#ifndef PERFLAB_BENCH_ORDER_SERVICE_TTL_LRU_CACHE_H_
#define PERFLAB_BENCH_ORDER_SERVICE_TTL_LRU_CACHE_H_

#include <chrono>
#include <cstdint>
#include <functional>
#include <list>
#include <memory>
#include <unordered_map>
#include <utility>

#include "absl/base/thread_annotations.h"
#include "core/mutex.h"

namespace perflab::orders {

struct TtlLruCacheOptions {
  // Entries kept; the least recently used is evicted beyond this (Caffeine
  // uses W-TinyLFU, which differs only when the working set exceeds it).
  size_t capacity = 10'000;
  // Expire-after-write, in nanoseconds.
  int64_t ttl_ns = 30'000'000'000;
  // Clock in nanoseconds; null reads steady_clock. Tests and the simulation
  // pass a virtual clock. Must be thread-safe if the cache is shared.
  std::function<int64_t()> now_ns = nullptr;
};

template <typename V>
class TtlLruCache {
 public:
  using Value = std::shared_ptr<const V>;

  explicit TtlLruCache(TtlLruCacheOptions options = {})
      : options_(std::move(options)) {}

  // The fresh value for `key`, or null (absent or expired; expired entries
  // are dropped). Counts a hit or a miss.
  Value Get(int64_t key) {
    const int64_t now = Now();
    core::MutexLock lock(&mu_);
    auto it = map_.find(key);
    if (it != map_.end() && now - it->second.written_ns >= options_.ttl_ns) {
      lru_.erase(it->second.lru);
      map_.erase(it);
      it = map_.end();
    }
    if (it == map_.end()) {
      ++misses_;
      return nullptr;
    }
    lru_.splice(lru_.begin(), lru_, it->second.lru);
    ++hits_;
    return it->second.value;
  }

  void Put(int64_t key, Value value) {
    const int64_t now = Now();
    core::MutexLock lock(&mu_);
    auto it = map_.find(key);
    if (it != map_.end()) {
      it->second.value = std::move(value);
      it->second.written_ns = now;
      lru_.splice(lru_.begin(), lru_, it->second.lru);
      return;
    }
    if (options_.capacity == 0) return;
    if (map_.size() >= options_.capacity) {
      map_.erase(lru_.back());
      lru_.pop_back();
    }
    lru_.push_front(key);
    map_.emplace(key, Entry{std::move(value), now, lru_.begin()});
  }

  // Drops entries and counters.
  void Clear() {
    core::MutexLock lock(&mu_);
    map_.clear();
    lru_.clear();
    hits_ = misses_ = 0;
  }

  int64_t hits() const {
    core::MutexLock lock(&mu_);
    return hits_;
  }
  int64_t misses() const {
    core::MutexLock lock(&mu_);
    return misses_;
  }
  size_t size() const {
    core::MutexLock lock(&mu_);
    return map_.size();
  }

 private:
  int64_t Now() const {
    if (options_.now_ns) return options_.now_ns();
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
  }
  struct Entry {
    Value value;
    int64_t written_ns;
    std::list<int64_t>::iterator lru;
  };
  const TtlLruCacheOptions options_;
  mutable core::Mutex mu_;
  std::list<int64_t> lru_ ABSL_GUARDED_BY(mu_);  // front: most recently used
  std::unordered_map<int64_t, Entry> map_ ABSL_GUARDED_BY(mu_);
  int64_t hits_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t misses_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace perflab::orders

#endif  // PERFLAB_BENCH_ORDER_SERVICE_TTL_LRU_CACHE_H_
