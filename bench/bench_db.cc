// bench_db: the database costs of GET /customers/{id}/orders on the case
// study's SQLite dataset (built once into DefaultDatasetDir of
// bench/order_service/dataset.h and checked before use).
//   BM_NewestOrders_{Scan,Index}      newest 20 orders: full table scan vs the
//                                     composite index, at scale 1 and 0.1
//   BM_Page_{NPlus1,Join}             the whole page: 81 statements vs one join
//   BM_Page_{NPlus1,Join}_Scan        the same without the index (the baseline)
//   BM_Page_{Join,NPlus1}_PreparePerCall  statements parsed on every call
// Counters are per page: statements, rows_read, fullscan_steps.
#include <benchmark/benchmark.h>

#include <map>
#include <memory>
#include <tuple>

#include "bench/order_service/bench_support.h"
#include "bench/order_service/customer_picker.h"
#include "bench/order_service/dataset.h"
#include "bench/order_service/orders.h"

namespace perflab::orders {
namespace {

constexpr uint64_t kKeySeed = 42;

// One repository per configuration for the whole process, so its page cache
// stays warm across Google Benchmark's repeated calls (single-threaded use).
OrderRepository* Repo(benchmark::State& state, double scale,
                      RepositoryOptions options) {
  using Key = std::tuple<double, int, bool>;
  static auto* repos = new std::map<Key, std::unique_ptr<OrderRepository>>();
  Key key{scale, static_cast<int>(options.access), options.prepare_per_call};
  auto it = repos->find(key);
  if (it != repos->end()) return it->second.get();
  auto path = BenchDataset(scale);
  if (!path.ok()) {
    state.SkipWithError(path.status().ToString().c_str());
    return nullptr;
  }
  auto repo = OrderRepository::Open(*path, options);
  if (!repo.ok()) {
    state.SkipWithError(repo.status().ToString().c_str());
    return nullptr;
  }
  OrderRepository* raw = repo->get();
  (*repos)[key] = std::move(*repo);
  return raw;
}

void PerPageCounters(benchmark::State& state, const QueryStats& s) {
  using benchmark::Counter;
  state.counters["statements"] =
      Counter(static_cast<double>(s.statements), Counter::kAvgIterations);
  state.counters["rows_read"] =
      Counter(static_cast<double>(s.rows_read), Counter::kAvgIterations);
  state.counters["fullscan_steps"] =
      Counter(static_cast<double>(s.fullscan_steps), Counter::kAvgIterations);
  state.SetItemsProcessed(state.iterations());  // items = pages
}

enum class Work { kHeads, kNPlusOne, kJoin };

// Args: {scale_pct, skewed}. Customer ids follow the seed: 1 + n*u^3 or 1 +
// n*u.
template <Work kWork, OrdersAccess kAccess, bool kPreparePerCall = false>
void BM_Db(benchmark::State& state) {
  double scale = static_cast<double>(state.range(0)) / 100.0;
  bool skewed = state.range(1) != 0;
  OrderRepository* repo = Repo(
      state, scale, {.access = kAccess, .prepare_per_call = kPreparePerCall});
  if (repo == nullptr) return;
  CustomerPicker pick(ShapeFor({.scale = scale})->customers, skewed, kKeySeed);
  repo->ResetStats();
  for (auto _ : state) {
    int64_t customer = pick.Next();
    bool ok = true;
    switch (kWork) {
      case Work::kHeads: {
        auto r = repo->NewestOrders(customer);
        ok = r.ok() && r->size() == kPageOrders;
        benchmark::DoNotOptimize(r);
        break;
      }
      case Work::kNPlusOne: {
        auto r = repo->LoadPageNPlusOne(customer);
        ok = r.ok() && r->orders.size() == kPageOrders;
        benchmark::DoNotOptimize(r);
        break;
      }
      case Work::kJoin: {
        auto r = repo->LoadPageJoin(customer);
        ok = r.ok() && r->orders.size() == kPageOrders;
        benchmark::DoNotOptimize(r);
        break;
      }
    }
    if (!ok) {
      state.SkipWithError("query failed or returned a short page");
      break;
    }
  }
  PerPageCounters(state, repo->stats());
}

void ScaleAndKeys(benchmark::internal::Benchmark* b) {
  b->ArgNames({"scale_pct", "skewed"});
  for (int scale : {100, 10}) {
    for (int skewed : {1, 0}) b->Args({scale, skewed});
  }
}
void Keys(benchmark::internal::Benchmark* b) {
  b->ArgNames({"scale_pct", "skewed"})->Args({100, 1})->Args({100, 0});
}
void SkewedOnly(benchmark::internal::Benchmark* b) {
  b->ArgNames({"scale_pct", "skewed"})->Args({100, 1});
}

// A scan of 200,000 rows costs milliseconds: the default min time already
// bounds it to a few hundred iterations.
BENCHMARK(BM_Db<Work::kHeads, OrdersAccess::kScan>)
    ->Name("BM_NewestOrders_Scan")
    ->Apply(ScaleAndKeys)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Db<Work::kHeads, OrdersAccess::kIndex>)
    ->Name("BM_NewestOrders_Index")
    ->Apply(ScaleAndKeys)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Db<Work::kNPlusOne, OrdersAccess::kIndex>)
    ->Name("BM_Page_NPlus1")
    ->Apply(Keys)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Db<Work::kJoin, OrdersAccess::kIndex>)
    ->Name("BM_Page_Join")
    ->Apply(Keys)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Db<Work::kNPlusOne, OrdersAccess::kScan>)
    ->Name("BM_Page_NPlus1_Scan")
    ->Apply(SkewedOnly)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Db<Work::kJoin, OrdersAccess::kScan>)
    ->Name("BM_Page_Join_Scan")
    ->Apply(SkewedOnly)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Db<Work::kJoin, OrdersAccess::kIndex, true>)
    ->Name("BM_Page_Join_PreparePerCall")
    ->Apply(SkewedOnly)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Db<Work::kNPlusOne, OrdersAccess::kIndex, true>)
    ->Name("BM_Page_NPlus1_PreparePerCall")
    ->Apply(SkewedOnly)
    ->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace perflab::orders

BENCHMARK_MAIN();
