#include "bench/order_service/cache.h"

#include <chrono>

#include "bench/order_service/customer_picker.h"
#include "bench/order_service/payload.h"

namespace perflab::orders {

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

}  // namespace perflab::orders
