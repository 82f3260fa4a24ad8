#include "bench/lab/cache.h"

#include <chrono>

#include "bench/lab/customer_picker.h"
#include "bench/lab/payload.h"

namespace perflab::lab {

PageCache::PageCache(PageCacheOptions options) : options_(std::move(options)) {}

int64_t PageCache::Now() const {
  if (options_.now_ns) return options_.now_ns();
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

Body PageCache::Get(int64_t key) {
  int64_t now = Now();
  std::lock_guard<std::mutex> lock(mu_);
  auto it = map_.find(key);
  if (it == map_.end()) {
    ++misses_;
    return nullptr;
  }
  if (now - it->second.written_ns >= options_.ttl_ns) {
    lru_.erase(it->second.lru);
    map_.erase(it);
    ++misses_;
    return nullptr;
  }
  lru_.splice(lru_.begin(), lru_, it->second.lru);
  ++hits_;
  return it->second.value;
}

void PageCache::Put(int64_t key, Body value) {
  int64_t now = Now();
  std::lock_guard<std::mutex> lock(mu_);
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

void PageCache::Clear() {
  std::lock_guard<std::mutex> lock(mu_);
  map_.clear();
  lru_.clear();
  hits_ = misses_ = 0;
}

int64_t PageCache::hits() const {
  std::lock_guard<std::mutex> lock(mu_);
  return hits_;
}
int64_t PageCache::misses() const {
  std::lock_guard<std::mutex> lock(mu_);
  return misses_;
}
size_t PageCache::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return map_.size();
}

absl::StatusOr<Body> PageService::Load(int64_t customer_id) {
  auto page = repo_->LoadPageJoin(customer_id);
  if (!page.ok()) return page.status();
  return std::make_shared<const std::string>(SerializePage(*page));
}

absl::StatusOr<Body> PageService::Get(int64_t customer_id) {
  if (cache_ != nullptr) {
    if (Body hit = cache_->Get(customer_id)) return hit;
  }
  auto body = Load(customer_id);
  if (body.ok() && cache_ != nullptr) cache_->Put(customer_id, *body);
  return body;
}

double SimulateHitRatio(const HitRatioOptions& options) {
  int64_t now = 0;
  PageCacheOptions cache_options = options.cache;
  cache_options.now_ns = [&now] { return now; };
  PageCache cache(cache_options);
  CustomerPicker pick(options.customers, options.skewed, options.seed);
  const double step_ns = 1e9 / options.rate_per_s;
  const auto warmup =
      static_cast<int64_t>(options.warmup_s * options.rate_per_s);
  const auto measured =
      static_cast<int64_t>(options.measure_s * options.rate_per_s);
  auto value = std::make_shared<const std::string>("page");
  int64_t hits = 0;
  for (int64_t i = 0; i < warmup + measured; ++i) {
    now = static_cast<int64_t>(static_cast<double>(i) * step_ns);
    int64_t key = pick.Next();
    bool hit = cache.Get(key) != nullptr;
    if (!hit) cache.Put(key, value);
    if (i >= warmup && hit) ++hits;
  }
  return measured > 0
             ? static_cast<double>(hits) / static_cast<double>(measured)
             : 0.0;
}

}  // namespace perflab::lab
