// bench_cache: the cached page (a bounded LRU of 10,000 entries, 30 s TTL, as
// the seed's Caffeine cache) against the miss path it saves (the join on the
// full dataset + serialising the page), with one and two threads.
//   BM_Page_CacheMiss        join + serialise on every request (no cache)
//   BM_Page_CacheHit         every customer cached: lookup + shared pointer
//                            to the body (no bytes copied, so no byte rate);
//                            counter misses_during_run (0: TTL of a day)
//   BM_Page_Cached/skewed:S  the real mix from an empty cache at run start;
//                            counter hit_ratio of this run
//   BM_CacheHitRatio/skewed:S/rate_per_s:R  deterministic virtual-time hit
//                            ratio after a 60 s warm-up (counter hit_ratio)
#include <benchmark/benchmark.h>

#include <memory>

#include "bench/order_service/bench_support.h"
#include "bench/order_service/cache.h"
#include "bench/order_service/customer_picker.h"
#include "bench/order_service/dataset.h"

namespace perflab::orders {
namespace {

constexpr int kMaxThreads = 2;

// One repository (SQLite connection) per benchmark thread, kept for the
// process so its page cache stays warm; thread i only touches slot i.
OrderRepository* ThreadRepo(benchmark::State& state) {
  static std::unique_ptr<OrderRepository> repos[kMaxThreads];
  std::unique_ptr<OrderRepository>& slot = repos[state.thread_index()];
  if (slot == nullptr) {
    auto path = BenchDataset(1.0);
    if (!path.ok()) {
      state.SkipWithError(path.status().ToString().c_str());
      return nullptr;
    }
    auto repo = OrderRepository::Open(*path);
    if (!repo.ok()) {
      state.SkipWithError(repo.status().ToString().c_str());
      return nullptr;
    }
    slot = std::move(*repo);
  }
  return slot.get();
}

int64_t Customers() { return ShapeFor({})->customers; }

// `serialised_bytes`: report bytes_per_second of the bodies built per
// request. Only true where every request serialises its page: a cache hit
// hands out a shared pointer, and a byte rate there would count no work.
void Loop(benchmark::State& state, PageService& service, bool skewed,
          bool serialised_bytes) {
  CustomerPicker pick(Customers(), skewed, 42 + state.thread_index());
  int64_t bytes = 0;
  for (auto _ : state) {
    auto body = service.Get(pick.Next());
    if (!body.ok()) {
      state.SkipWithError(body.status().ToString().c_str());
      break;
    }
    bytes += static_cast<int64_t>((*body)->size());
    benchmark::DoNotOptimize(body);
  }
  state.SetItemsProcessed(state.iterations());
  if (serialised_bytes) state.SetBytesProcessed(bytes);
}

void BM_Page_CacheMiss(benchmark::State& state) {
  OrderRepository* repo = ThreadRepo(state);
  if (repo == nullptr) return;
  PageService service(repo, nullptr);
  Loop(state, service, /*skewed=*/true, /*serialised_bytes=*/true);
}
BENCHMARK(BM_Page_CacheMiss)
    ->Threads(1)
    ->Threads(2)
    ->UseRealTime()
    ->Unit(benchmark::kMicrosecond);

// Filled once per process for every customer. The fill outlives one run (the
// 1- and 2-thread runs and the rest of the binary share it), so the seed's
// 30 s TTL would expire entries mid-run and time misses as hits: the TTL here
// is a day, longer than any run, and misses_during_run shows it held.
PageCache& FullCache(benchmark::State& state) {
  static PageCache* cache = [&state] {
    auto* c = new PageCache(
        {.capacity = 10'000, .ttl_ns = int64_t{24} * 3600 * 1'000'000'000});
    auto path = BenchDataset(1.0);
    auto repo =
        path.ok()
            ? OrderRepository::Open(*path)
            : absl::StatusOr<std::unique_ptr<OrderRepository>>(path.status());
    if (!repo.ok()) {
      state.SkipWithError(repo.status().ToString().c_str());
      return c;
    }
    PageService loader(repo->get(), c);
    for (int64_t id = 1; id <= Customers(); ++id) (void)loader.Get(id);
    return c;
  }();
  return *cache;
}

void BM_Page_CacheHit(benchmark::State& state) {
  // Every thread waits here until the one-time fill is done (static init).
  PageCache& cache = FullCache(state);
  OrderRepository* repo = ThreadRepo(state);
  if (repo == nullptr) return;
  PageService service(repo, &cache);
  const int64_t misses_before = cache.misses();
  Loop(state, service, /*skewed=*/true, /*serialised_bytes=*/false);
  // Thread 0's window covers the run (threads start and stop together).
  if (state.thread_index() == 0) {
    state.counters["misses_during_run"] =
        static_cast<double>(cache.misses() - misses_before);
  }
}
BENCHMARK(BM_Page_CacheHit)
    ->Threads(1)
    ->Threads(2)
    ->UseRealTime()
    ->Unit(benchmark::kMicrosecond);

void BM_Page_Cached(benchmark::State& state) {
  static PageCache* cache = new PageCache();
  if (state.thread_index() == 0) cache->Clear();  // before the start barrier
  OrderRepository* repo = ThreadRepo(state);
  if (repo == nullptr) return;
  PageService service(repo, cache);
  Loop(state, service, state.range(0) != 0, /*serialised_bytes=*/false);
  if (state.thread_index() == 0) {
    double total = static_cast<double>(cache->hits() + cache->misses());
    state.counters["hit_ratio"] =
        total > 0 ? static_cast<double>(cache->hits()) / total : 0;
  }
}
BENCHMARK(BM_Page_Cached)
    ->ArgName("skewed")
    ->Arg(1)
    ->Arg(0)
    ->Threads(1)
    ->Threads(2)
    ->UseRealTime()
    ->Unit(benchmark::kMicrosecond);

void BM_CacheHitRatio(benchmark::State& state) {
  HitRatioOptions options{.skewed = state.range(0) != 0,
                          .rate_per_s = static_cast<double>(state.range(1))};
  double ratio = 0;
  for (auto _ : state) ratio = SimulateHitRatio(options);
  state.counters["hit_ratio"] = ratio;
}
BENCHMARK(BM_CacheHitRatio)
    ->ArgNames({"skewed", "rate_per_s"})
    ->ArgsProduct({{1, 0}, {40, 500, 5000}})
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace perflab::orders

BENCHMARK_MAIN();
