// bench_contention: what the order service's shared parts cost when its
// worker threads share them, each part alone, with the service's own code.
// Every thread of a run uses ONE instance of the part, as the service's 16
// workers do:
//   BM_Contention_Cache     one lookup in the page cache (TtlLruCache,
//                           a hit: its mutex, map, LRU list and the shared
//                           pointer's count)
//   BM_Contention_Pool      one borrow and return of a database connection
//                           (BorrowPool, the handler's pool of 8)
//   BM_Contention_PageAlloc one page's object graph built and freed on the
//                           global heap (MaterialisePage, 20 orders)
//   BM_Contention_Stats     one page's updates of the counters behind /stats
//                           (RequestCounters)
// Arguments: cores:C pins every thread to the first C CPUs the process may
// use (1: the service's --cores 1); threads:T runs T threads at once.
// Counter cpu_per_op_us: the CPU of all threads over their loops (each
// thread's own clock) divided by the iterations of all threads, so the
// figure at T threads minus the one at 1 thread is the CPU that sharing adds
// to one request's use of the part.
#include <benchmark/benchmark.h>
#include <pthread.h>
#include <sched.h>
#include <time.h>

#include <cstdint>
#include <memory>
#include <memory_resource>
#include <string>
#include <thread>
#include <vector>

#include "bench/order_service/alloc.h"
#include "bench/order_service/borrow_pool.h"
#include "bench/order_service/handler.h"
#include "bench/order_service/orders.h"
#include "bench/order_service/payload.h"
#include "bench/order_service/ttl_lru_cache.h"
#include "core/case_study.h"

namespace perflab::orders {
namespace {

int64_t ThreadCpuNs() {
  timespec t;
  ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<int64_t>(t.tv_sec) * 1'000'000'000 + t.tv_nsec;
}

// Pins the calling thread to the first `cores` CPUs of its allowed set and
// gives its mask back on Restore (or when destroyed).
class PinnedToFirst {
 public:
  explicit PinnedToFirst(int cores) {
    CPU_ZERO(&saved_);
    if (::pthread_getaffinity_np(::pthread_self(), sizeof saved_, &saved_) !=
        0) {
      why_ = "pthread_getaffinity_np failed";
      return;
    }
    cpu_set_t first;
    CPU_ZERO(&first);
    int taken = 0;
    for (int c = 0; c < CPU_SETSIZE && taken < cores; ++c) {
      if (CPU_ISSET(c, &saved_)) {
        CPU_SET(c, &first);
        ++taken;
      }
    }
    if (taken < cores) {
      why_ = "cores:" + std::to_string(cores) + " needs " +
             std::to_string(cores) + " CPUs; this process may run on " +
             std::to_string(CPU_COUNT(&saved_));
      return;
    }
    if (::pthread_setaffinity_np(::pthread_self(), sizeof first, &first) != 0) {
      why_ = "pthread_setaffinity_np failed";
      return;
    }
    pinned_ = true;
  }
  ~PinnedToFirst() { Restore(); }
  PinnedToFirst(const PinnedToFirst&) = delete;
  PinnedToFirst& operator=(const PinnedToFirst&) = delete;

  void Restore() {
    if (!pinned_) return;
    ::pthread_setaffinity_np(::pthread_self(), sizeof saved_, &saved_);
    pinned_ = false;
  }
  bool ok() const { return why_.empty(); }
  const std::string& why() const { return why_; }

 private:
  cpu_set_t saved_;
  bool pinned_ = false;
  std::string why_;
};

// Runs `one_request(i)` for every iteration i of this thread, pinned as
// cores:C says, and reports cpu_per_op_us.
template <typename Fn>
void RunContended(benchmark::State& state, Fn&& one_request) {
  PinnedToFirst pin(static_cast<int>(state.range(0)));
  if (!pin.ok()) {
    state.SkipWithError(pin.why().c_str());
    // Every thread fails alike and still passes the loop's start and stop
    // barriers, with no iteration.
    for (auto _ : state) {
    }
    return;
  }
  const int64_t start = ThreadCpuNs();
  int64_t i = 0;
  for (auto _ : state) one_request(i++);
  const int64_t cpu_ns = ThreadCpuNs() - start;
  pin.Restore();
  // Each thread reports its own CPU; Google Benchmark sums a counter over
  // the threads and kAvgIterations divides that sum by the iterations of
  // all threads, so the figure is the ratio of the sums (all CPU over all
  // requests), not an average of per-thread ratios, which would weigh a
  // thread that ran few iterations as much as one that ran many.
  // Named *_us: perflab calibrate reads a counter so named in microseconds.
  state.counters["cpu_per_op_us"] = benchmark::Counter(
      static_cast<double>(cpu_ns) / 1e3, benchmark::Counter::kAvgIterations);
  state.SetItemsProcessed(state.iterations());
}

// Customers in the cache, all hits: within its 10,000 entries, so nothing
// expires or is evicted during a run.
constexpr int64_t kCachedCustomers = 1000;

TtlLruCache<Page>& SharedCache() {
  static auto* cache = [] {
    auto* c = new TtlLruCache<Page>();
    for (int64_t id = 1; id <= kCachedCustomers; ++id) {
      Page p;
      p.customer_id = id;
      c->Put(id, std::make_shared<const Page>(std::move(p)));
    }
    return c;
  }();
  return *cache;
}

void BM_Contention_Cache(benchmark::State& state) {
  TtlLruCache<Page>& cache = SharedCache();
  // Threads start at different customers, as different clients ask.
  const int64_t offset = int64_t{state.thread_index()} * 7919;
  RunContended(state, [&](int64_t i) {
    std::shared_ptr<const Page> hit =
        cache.Get(1 + (offset + i) % kCachedCustomers);
    benchmark::DoNotOptimize(hit.get());
  });
}

// The handler's pool holds what it lends by pointer; the connections
// themselves are not touched between borrow and return here.
struct Connection {
  int64_t id = 0;
};

BorrowPool<Connection>& SharedPool() {
  static auto* pool = [] {
    auto* p = new BorrowPool<Connection>();
    static Connection connections[case_study::kTunedDbPool];
    for (Connection& c : connections) p->Add(&c);
    return p;
  }();
  return *pool;
}

void BM_Contention_Pool(benchmark::State& state) {
  BorrowPool<Connection>& pool = SharedPool();
  bool timed_out = false;
  RunContended(state, [&](int64_t) {
    // The handler's 30 s bound: a borrow never waits that long here.
    Connection* c = pool.Acquire(30'000);
    if (c == nullptr) {
      timed_out = true;
      return;
    }
    benchmark::DoNotOptimize(c->id);
    pool.Release(c);
  });
  if (timed_out) state.SkipWithError("a borrow timed out after 30 s");
}

void BM_Contention_PageAlloc(benchmark::State& state) {
  // The page as the database hands it to the thread, its own copy; the
  // global heap behind new/delete is what the threads share.
  Page page;
  page.customer_id = 42;
  page.orders = ToDto(MakeFullOrders(kPageOrders));
  uint64_t sum = 0;
  RunContended(state, [&](int64_t) {
    sum += MaterialisePage(page, std::pmr::new_delete_resource());
  });
  benchmark::DoNotOptimize(sum);
}

RequestCounters& SharedCounters() {
  static auto* counters = new RequestCounters();
  return *counters;
}

void BM_Contention_Stats(benchmark::State& state) {
  RequestCounters& c = SharedCounters();
  // A page loaded on a cache miss with the join (one statement): the
  // handler's updates on that path, in its order.
  RunContended(state, [&](int64_t) {
    ++c.requests;
    ++c.misses;
    c.queries += 1;
    ++c.inventory_calls;
    ++c.pages;
  });
}

void Arguments(benchmark::internal::Benchmark* b) {
  b->ArgNames({"cores"})->Arg(1)->Arg(2);
  for (int threads : {1, 2, 4, 8, 16}) b->Threads(threads);
  b->Unit(benchmark::kMicrosecond);
}

BENCHMARK(BM_Contention_Cache)->Apply(Arguments);
BENCHMARK(BM_Contention_Pool)->Apply(Arguments);
BENCHMARK(BM_Contention_PageAlloc)->Apply(Arguments);
BENCHMARK(BM_Contention_Stats)->Apply(Arguments);

}  // namespace
}  // namespace perflab::orders

int main(int argc, char** argv) {
  // The service always runs many threads. A process that has never started
  // one lets glibc and libstdc++ skip atomics (__libc_single_threaded: plain
  // shared-pointer counts, unlocked malloc arenas), which would make a
  // threads:1 run measured first cheaper than the same code in the service
  // and inflate every difference against it. A thread started and joined
  // ends that mode for the process's life.
  std::thread([] {}).join();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
