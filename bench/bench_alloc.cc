// bench_alloc: allocator pressure of building one request's page (the full
// graph of 20 orders an ORM materialises), with one and two threads:
//   BM_BuildPage_NewDelete   every object and string from the global heap
//   BM_BuildPage_Arena       a per-request std::pmr::monotonic_buffer_resource
//                            (growing chunks from the heap, freed at once)
//   BM_BuildPage_ReusedBuffer the same arena over a per-thread buffer reused
//                            by every request (no heap calls at all)
// Counters per request (measured once, untimed, with a counting resource):
// bytes_allocated and allocations as the code asks for them (the composer's
// GC model reads bytes per request), heap_allocations that reach the heap.
#include <benchmark/benchmark.h>

#include <array>
#include <memory_resource>

#include "bench/order_service/alloc.h"

namespace perflab::orders {
namespace {

constexpr int kPageOrders = 20;

const std::vector<FullOrder>& Source() {
  static const auto* source =
      new std::vector<FullOrder>(MakeFullOrders(kPageOrders));
  return *source;
}

enum class Mode { kNewDelete, kArena, kReused };

// One request's page on the resource a mode uses. `heap` stands where the
// global heap would, so callers can count what reaches it.
template <typename Fn>
void WithResource(Mode mode, std::pmr::memory_resource* heap, Fn&& fn) {
  alignas(std::max_align_t) thread_local std::array<std::byte, 1 << 18> buffer;
  switch (mode) {
    case Mode::kNewDelete:
      fn(heap);
      break;
    case Mode::kArena: {
      std::pmr::monotonic_buffer_resource arena(heap);
      fn(&arena);
      break;
    }
    case Mode::kReused: {
      std::pmr::monotonic_buffer_resource arena(buffer.data(), buffer.size(),
                                                heap);
      fn(&arena);
      break;
    }
  }
}

template <Mode kMode>
void BM_BuildPage(benchmark::State& state) {
  const auto& source = Source();
  // Correctness, untimed: a page built on this mode's resource holds the same
  // content as one built on the global heap. (Inside the loop, a byte-by-byte
  // checksum of the page took most of the time and hid the allocator.)
  uint64_t want = 0, got = 0;
  WithResource(Mode::kNewDelete, std::pmr::new_delete_resource(),
               [&](std::pmr::memory_resource* mr) {
                 PmrPage* page = BuildPage(source, mr);
                 want = Checksum(*page);
                 DestroyPage(page, mr);
               });
  WithResource(kMode, std::pmr::new_delete_resource(),
               [&](std::pmr::memory_resource* mr) {
                 PmrPage* page = BuildPage(source, mr);
                 got = Checksum(*page);
                 DestroyPage(page, mr);
               });
  if (got != want) {
    state.SkipWithError("page built on this resource differs from the heap's");
    return;
  }
  for (auto _ : state) {
    WithResource(kMode, std::pmr::new_delete_resource(),
                 [&](std::pmr::memory_resource* mr) {
                   PmrPage* page = BuildPage(source, mr);
                   // The page escapes: its stores cannot be elided.
                   benchmark::DoNotOptimize(page);
                   benchmark::ClobberMemory();
                   DestroyPage(page, mr);
                 });
  }
  // Counting, outside the timed loop: what the code asks for, and what
  // reaches the heap in this mode.
  CountingResource heap(std::pmr::new_delete_resource());
  int64_t bytes = 0, allocations = 0;
  WithResource(kMode, &heap, [&](std::pmr::memory_resource* mr) {
    CountingResource front(mr);
    DestroyPage(BuildPage(source, &front), &front);
    bytes = front.bytes();
    allocations = front.allocations();
  });
  // Every thread reports the same per-request values: average, not sum.
  using benchmark::Counter;
  state.counters["bytes_allocated"] =
      Counter(static_cast<double>(bytes), Counter::kAvgThreads);
  state.counters["allocations"] =
      Counter(static_cast<double>(allocations), Counter::kAvgThreads);
  state.counters["heap_allocations"] =
      Counter(static_cast<double>(heap.allocations()), Counter::kAvgThreads);
  state.SetItemsProcessed(state.iterations());
}

BENCHMARK(BM_BuildPage<Mode::kNewDelete>)
    ->Name("BM_BuildPage_NewDelete")
    ->Threads(1)
    ->Threads(2)
    ->UseRealTime()
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_BuildPage<Mode::kArena>)
    ->Name("BM_BuildPage_Arena")
    ->Threads(1)
    ->Threads(2)
    ->UseRealTime()
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_BuildPage<Mode::kReused>)
    ->Name("BM_BuildPage_ReusedBuffer")
    ->Threads(1)
    ->Threads(2)
    ->UseRealTime()
    ->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace perflab::orders

BENCHMARK_MAIN();
