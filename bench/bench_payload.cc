// bench_payload: the response body of 100 orders as the full object graph vs
// the slim DTO (what the client uses).
//   BM_Serialize_{Graph,Dto}        RapidJSON writer; counter bytes_out
//   BM_Serialize_Page               the order service's response: its 20
//                                   newest orders as DTO records (the case
//                                   study's Page), SerializePage
//   BM_MaterialisePage/arena:A      the object graph the order service
//                                   builds from each page it loads (20
//                                   orders as entities, MaterialisePage) on
//                                   the heap (A = 0) or on its per-request
//                                   arena (A = 1, the --arena heap step);
//                                   counter bytes_allocated per page
//   BM_Parse_OnDemand_{Graph,Dto}   simdjson on-demand, client fields only
//   BM_Parse_Dom_{Graph,Dto}        RapidJSON DOM of the whole body
//   BM_Gzip_{Graph,Dto}/level:L     zlib gzip at levels 1, 6, 9; counters
//                                   bytes_in, compressed_bytes
// Every body benchmark also reports the transfer time of its output at a few
// link speeds (bytes x 8 / speed, no latency or TCP effects): xfer_us_10Mbps,
// xfer_us_100Mbps, xfer_us_1Gbps, so gzip CPU can be set against it.
#include <benchmark/benchmark.h>

#include <array>
#include <memory_resource>
#include <string>
#include <vector>

#include "bench/order_service/alloc.h"
#include "bench/order_service/payload.h"

namespace perflab::orders {
namespace {

constexpr int kOrders = 100;

struct Bodies {
  std::vector<FullOrder> graph = MakeFullOrders(kOrders);
  std::vector<Order> dto = ToDto(graph);
  std::string graph_json = PadForSimdjson(SerializeGraph(graph));
  std::string dto_json = PadForSimdjson(SerializeOrders(dto));
};
const Bodies& Data() {
  static const Bodies* bodies = new Bodies();
  return *bodies;
}

void TransferCounters(benchmark::State& state, double bytes) {
  for (auto [name, bits_per_s] :
       {std::pair{"xfer_us_10Mbps", 10e6}, std::pair{"xfer_us_100Mbps", 100e6},
        std::pair{"xfer_us_1Gbps", 1e9}}) {
    state.counters[name] = bytes * 8.0 / bits_per_s * 1e6;
  }
}

template <bool kGraph>
void BM_Serialize(benchmark::State& state) {
  const Bodies& d = Data();
  size_t bytes = 0;
  for (auto _ : state) {
    std::string body =
        kGraph ? SerializeGraph(d.graph) : SerializeOrders(d.dto);
    bytes = body.size();
    benchmark::DoNotOptimize(body);
  }
  state.counters["bytes_out"] = static_cast<double>(bytes);
  TransferCounters(state, static_cast<double>(bytes));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * bytes));
}
BENCHMARK(BM_Serialize<true>)
    ->Name("BM_Serialize_Graph")
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Serialize<false>)
    ->Name("BM_Serialize_Dto")
    ->Unit(benchmark::kMicrosecond);

// What the order service writes per response (the composer's serialize_us):
// one customer's page of kPageOrders DTO orders with their items, through
// the service's own SerializePage.
void BM_Serialize_Page(benchmark::State& state) {
  Page page;
  page.customer_id = 42;
  const std::vector<Order>& dto = Data().dto;
  page.orders.assign(dto.begin(), dto.begin() + kPageOrders);
  size_t bytes = 0;
  for (auto _ : state) {
    std::string body = SerializePage(page);
    bytes = body.size();
    benchmark::DoNotOptimize(body);
  }
  state.counters["bytes_out"] = static_cast<double>(bytes);
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * bytes));
}
BENCHMARK(BM_Serialize_Page)->Unit(benchmark::kMicrosecond);

// The page's object graph as the order service's handler builds it on every
// miss: the same page as BM_Serialize_Page through the service's own
// MaterialisePage, on the global heap or (arena:1) on a monotonic arena over
// a reused per-thread buffer of the handler's size (256 KiB).
void BM_MaterialisePage(benchmark::State& state) {
  const bool arena = state.range(0) == 1;
  Page page;
  page.customer_id = 42;
  const std::vector<Order>& dto = Data().dto;
  page.orders.assign(dto.begin(), dto.begin() + kPageOrders);
  constexpr size_t kArenaBytes = size_t{256} * 1024;
  alignas(std::max_align_t) thread_local std::array<std::byte, kArenaBytes>
      buffer;
  uint64_t sum = 0;
  for (auto _ : state) {
    if (arena) {
      std::pmr::monotonic_buffer_resource mr(buffer.data(), buffer.size());
      sum += MaterialisePage(page, &mr);
    } else {
      sum += MaterialisePage(page, std::pmr::new_delete_resource());
    }
  }
  benchmark::DoNotOptimize(sum);
  // What the graph asks for, counted once outside the timed loop.
  CountingResource counting(std::pmr::new_delete_resource());
  MaterialisePage(page, &counting);
  state.counters["bytes_allocated"] = static_cast<double>(counting.bytes());
  state.counters["allocations"] = static_cast<double>(counting.allocations());
  state.SetItemsProcessed(state.iterations());
  state.SetBytesProcessed(state.iterations() * counting.bytes());
}
BENCHMARK(BM_MaterialisePage)
    ->ArgName("arena")
    ->Arg(0)
    ->Arg(1)
    ->Unit(benchmark::kMicrosecond);

template <bool kGraph, bool kOnDemand>
void BM_Parse(benchmark::State& state) {
  const std::string& body = kGraph ? Data().graph_json : Data().dto_json;
  for (auto _ : state) {
    auto orders = kOnDemand ? ParseOrdersOnDemand(body) : ParseOrdersDom(body);
    if (!orders.ok() || orders->size() != kOrders) {
      state.SkipWithError("parse failed");
      break;
    }
    benchmark::DoNotOptimize(orders);
  }
  state.counters["bytes_in"] = static_cast<double>(body.size());
  state.SetBytesProcessed(
      static_cast<int64_t>(state.iterations() * body.size()));
}
BENCHMARK(BM_Parse<true, true>)
    ->Name("BM_Parse_OnDemand_Graph")
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Parse<false, true>)
    ->Name("BM_Parse_OnDemand_Dto")
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Parse<true, false>)
    ->Name("BM_Parse_Dom_Graph")
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Parse<false, false>)
    ->Name("BM_Parse_Dom_Dto")
    ->Unit(benchmark::kMicrosecond);

template <bool kGraph>
void BM_Gzip(benchmark::State& state) {
  const std::string& body = kGraph ? Data().graph_json : Data().dto_json;
  int level = static_cast<int>(state.range(0));
  size_t compressed = 0;
  for (auto _ : state) {
    auto z = Gzip(body, level);
    if (!z.ok()) {
      state.SkipWithError(z.status().ToString().c_str());
      break;
    }
    compressed = z->size();
    benchmark::DoNotOptimize(z);
  }
  state.counters["bytes_in"] = static_cast<double>(body.size());
  state.counters["compressed_bytes"] = static_cast<double>(compressed);
  TransferCounters(state, static_cast<double>(compressed));
  state.SetBytesProcessed(
      static_cast<int64_t>(state.iterations() * body.size()));
}
BENCHMARK(BM_Gzip<true>)
    ->Name("BM_Gzip_Graph")
    ->ArgName("level")
    ->Arg(1)
    ->Arg(6)
    ->Arg(9)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Gzip<false>)
    ->Name("BM_Gzip_Dto")
    ->ArgName("level")
    ->Arg(1)
    ->Arg(6)
    ->Arg(9)
    ->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace perflab::orders

BENCHMARK_MAIN();
