// bench_runtime: the runtime costs the contention chapter names, each against
// its fix.
//   BM_Counter_{Mutex,Atomic,Sharded}           a shared request counter under
//                                               two threads
//   BM_Log_{SyncUnderLock,DisabledCall,Background}  one formatted log line:
//       written to a file under a lock, a disabled DEBUG call (the level
//       check drops it before any formatting: a relaxed load and a branch,
//       nearly nothing), or handed to a background writer thread
//   BM_Clock_{Steady,System,Monotonic,MonotonicCoarse,Realtime,RealtimeCoarse}
//   BM_HeavyObject_{PerRequest,Reused}          costly initialisation per call
//                                               (the prototype bean) vs once
//   BM_Handoff_{Thread,DirectCall}              a task handed to another thread
//                                               and awaited vs called in place
//   BM_Handoff_SameCpu                          the same hand-off with both
//       threads on one CPU, as the order service's poller and workers are
//       under capstone --real: counter handoff_cpu_us, the CPU of one
//       hand-off (wake the other thread, switch to it)
//   BM_Wake_IdleCore                            a thread asleep on an idle
//       CPU woken from another CPU: counter woken_cpu_us, the CPU the woken
//       thread spends per wake on its own core
#include <benchmark/benchmark.h>
#include <fcntl.h>
#include <sched.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_format.h"
#include "core/cpu_time.h"
#include "core/random.h"

namespace perflab::orders {
namespace {

// ---- A shared counter ------------------------------------------------------

std::mutex counter_mu;
int64_t counter_plain = 0;
std::atomic<int64_t> counter_atomic{0};
struct alignas(64) Shard {  // one cache line each: no false sharing
  std::atomic<int64_t> value{0};
};
Shard shards[8];

void BM_Counter_Mutex(benchmark::State& state) {
  for (auto _ : state) {
    std::lock_guard<std::mutex> lock(counter_mu);
    ++counter_plain;
  }
  state.SetItemsProcessed(state.iterations());
}
void BM_Counter_Atomic(benchmark::State& state) {
  for (auto _ : state) counter_atomic.fetch_add(1, std::memory_order_relaxed);
  state.SetItemsProcessed(state.iterations());
}
void BM_Counter_Sharded(benchmark::State& state) {
  std::atomic<int64_t>& mine = shards[state.thread_index() % 8].value;
  for (auto _ : state) mine.fetch_add(1, std::memory_order_relaxed);
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_Counter_Mutex)->Threads(1)->Threads(2)->UseRealTime();
BENCHMARK(BM_Counter_Atomic)->Threads(1)->Threads(2)->UseRealTime();
BENCHMARK(BM_Counter_Sharded)->Threads(1)->Threads(2)->UseRealTime();

// ---- Logging
// -----------------------------------------------------------------

enum Level { kDebug = 0, kInfo = 1 };
std::atomic<int> log_level{kInfo};

int DevNull() {
  static const int fd = ::open("/dev/null", O_WRONLY | O_CLOEXEC);
  return fd;
}

std::string FormatLine(int64_t request, int thread) {
  return absl::StrFormat(
      "2026-11-30T12:00:00.000Z DEBUG [worker-%d] OrderController - loaded "
      "page customer=%d orders=%d items=%d took_us=%d\n",
      thread, request % 5000, 20, 60, request % 997);
}

std::mutex log_mu;
void BM_Log_SyncUnderLock(benchmark::State& state) {
  int64_t i = 0;
  for (auto _ : state) {
    std::string line = FormatLine(++i, state.thread_index());
    std::lock_guard<std::mutex> lock(log_mu);  // an appender's lock
    benchmark::DoNotOptimize(::write(DevNull(), line.data(), line.size()));
  }
  state.SetItemsProcessed(state.iterations());
}

void BM_Log_DisabledCall(benchmark::State& state) {
  int64_t i = 0;
  for (auto _ : state) {
    // The check comes first: nothing is formatted for a dropped DEBUG line.
    if (log_level.load(std::memory_order_relaxed) <= kDebug) {
      std::string line = FormatLine(++i, state.thread_index());
      benchmark::DoNotOptimize(line);
    }
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations());
}

// A background writer: producers format and enqueue; one thread writes
// batches. Bounded so that a slow sink pushes back instead of growing.
class BackgroundLog {
 public:
  BackgroundLog() : writer_([this] { Run(); }) {}
  ~BackgroundLog() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      done_ = true;
    }
    ready_.notify_one();
    writer_.join();
  }
  void Append(std::string line) {
    std::unique_lock<std::mutex> lock(mu_);
    space_.wait(lock, [this] { return queue_.size() < kCapacity; });
    queue_.push_back(std::move(line));
    if (queue_.size() == 1) ready_.notify_one();
  }

 private:
  static constexpr size_t kCapacity = 8192;
  void Run() {
    std::deque<std::string> batch;
    for (;;) {
      {
        std::unique_lock<std::mutex> lock(mu_);
        ready_.wait(lock, [this] { return done_ || !queue_.empty(); });
        if (queue_.empty() && done_) return;
        batch.swap(queue_);
      }
      space_.notify_all();
      std::string joined;
      for (std::string& s : batch) joined += s;
      benchmark::DoNotOptimize(
          ::write(DevNull(), joined.data(), joined.size()));
      batch.clear();
    }
  }
  std::mutex mu_;
  std::condition_variable ready_, space_;
  std::deque<std::string> queue_;
  bool done_ = false;
  std::thread writer_;
};

void BM_Log_Background(benchmark::State& state) {
  static BackgroundLog* log = new BackgroundLog();  // lives for the process
  int64_t i = 0;
  for (auto _ : state) log->Append(FormatLine(++i, state.thread_index()));
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_Log_SyncUnderLock)->Threads(1)->Threads(2)->UseRealTime();
BENCHMARK(BM_Log_DisabledCall)->Threads(1)->Threads(2)->UseRealTime();
BENCHMARK(BM_Log_Background)->Threads(1)->Threads(2)->UseRealTime();

// ---- Clocks
// -------------------------------------------------------------------

template <typename Clock>
void BM_ChronoClock(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(Clock::now());
  state.SetItemsProcessed(state.iterations());
}
template <clockid_t kId>
void BM_ClockGettime(benchmark::State& state) {
  timespec ts;
  for (auto _ : state) {
    clock_gettime(kId, &ts);
    benchmark::DoNotOptimize(ts);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_ChronoClock<std::chrono::steady_clock>)
    ->Name("BM_Clock_Steady")
    ->Threads(1)
    ->Threads(2)
    ->UseRealTime();
BENCHMARK(BM_ChronoClock<std::chrono::system_clock>)
    ->Name("BM_Clock_System")
    ->Threads(1)
    ->Threads(2)
    ->UseRealTime();
BENCHMARK(BM_ClockGettime<CLOCK_MONOTONIC>)
    ->Name("BM_Clock_Monotonic")
    ->Threads(1)
    ->Threads(2)
    ->UseRealTime();
BENCHMARK(BM_ClockGettime<CLOCK_MONOTONIC_COARSE>)
    ->Name("BM_Clock_MonotonicCoarse")
    ->Threads(1)
    ->Threads(2)
    ->UseRealTime();
BENCHMARK(BM_ClockGettime<CLOCK_REALTIME>)
    ->Name("BM_Clock_Realtime")
    ->Threads(1)
    ->Threads(2)
    ->UseRealTime();
BENCHMARK(BM_ClockGettime<CLOCK_REALTIME_COARSE>)
    ->Name("BM_Clock_RealtimeCoarse")
    ->Threads(1)
    ->Threads(2)
    ->UseRealTime();

// ---- A heavy per-request object
// ------------------------------------------------

// Stands for the contention chapter's prototype-scoped RedisMaster bean:
// building it parses configuration and precomputes tables; using it is one
// cheap lookup.
class HeavyClient {
 public:
  HeavyClient() {
    for (int i = 0; i < 256; ++i) {
      settings_[absl::StrFormat("redis.pool.option.%03d", i)] =
          absl::StrFormat("value-%d", i * 7);
    }
    table_.resize(4096);
    for (size_t i = 0; i < table_.size(); ++i) {
      table_[i] = static_cast<uint32_t>((i * 2654435761u) >> 7);
    }
  }
  uint32_t Slot(uint64_t key) const {
    return table_[key % table_.size()] +
           static_cast<uint32_t>(settings_.size());
  }

 private:
  std::map<std::string, std::string> settings_;
  std::vector<uint32_t> table_;
};

void BM_HeavyObject_PerRequest(benchmark::State& state) {
  uint64_t key = 0;
  for (auto _ : state) {
    HeavyClient client;
    benchmark::DoNotOptimize(client.Slot(++key));
  }
  state.SetItemsProcessed(state.iterations());
}
void BM_HeavyObject_Reused(benchmark::State& state) {
  static const HeavyClient* client = new HeavyClient();
  uint64_t key = 0;
  for (auto _ : state) benchmark::DoNotOptimize(client->Slot(++key));
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_HeavyObject_PerRequest)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_HeavyObject_Reused);

// ---- Thread hand-off
// -------------------------------------------------------------

// The task: sixteen dependent splitmix64 steps, each seeding the next, so the
// compiler cannot fold any away; a small fixed amount of pure arithmetic.
uint64_t SmallWork(uint64_t x) {
  for (int i = 0; i < 16; ++i) x = core::SplitMix64(x).Next();
  return x;
}

// One worker thread; Run() hands it a task and waits for the answer, the
// pattern of an executor in front of a blocking call.
// The worker's own CPU time is kept for the counters of the pinned runs.
class Worker {
 public:
  Worker() : thread_([this] { Loop(); }) {}
  ~Worker() { Stop(); }
  // Ends the thread; returns the CPU seconds it used.
  double Stop() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    if (thread_.joinable()) thread_.join();
    return cpu_s_;
  }
  uint64_t Run(uint64_t x) {
    std::unique_lock<std::mutex> lock(mu_);
    input_ = x;
    has_task_ = true;
    cv_.notify_all();
    cv_.wait(lock, [this] { return !has_task_; });
    return output_;
  }

 private:
  void Loop() {
    const double cpu0 = core::ThreadCpuSeconds();
    std::unique_lock<std::mutex> lock(mu_);
    for (;;) {
      cv_.wait(lock, [this] { return stop_ || has_task_; });
      if (stop_) {
        cpu_s_ = core::ThreadCpuSeconds() - cpu0;
        return;
      }
      output_ = SmallWork(input_);
      has_task_ = false;
      cv_.notify_all();
    }
  }
  std::mutex mu_;
  std::condition_variable cv_;
  uint64_t input_ = 0, output_ = 0;
  bool has_task_ = false, stop_ = false;
  double cpu_s_ = 0;  // written by the thread before it ends
  std::thread thread_;
};

void BM_Handoff_Thread(benchmark::State& state) {
  Worker worker;
  uint64_t x = 1;
  for (auto _ : state) x = worker.Run(x);
  benchmark::DoNotOptimize(x);
  state.SetItemsProcessed(state.iterations());
}
void BM_Handoff_DirectCall(benchmark::State& state) {
  uint64_t x = 1;
  for (auto _ : state) {
    x = SmallWork(x);
    benchmark::DoNotOptimize(x);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_Handoff_Thread)->UseRealTime();
BENCHMARK(BM_Handoff_DirectCall)->UseRealTime();

// Pins the calling thread (and the threads it starts afterwards) to the first
// or the last CPU it may run on; restores the saved mask when destroyed.
class Pinned {
 public:
  Pinned() {
    CPU_ZERO(&saved_);
    ::sched_getaffinity(0, sizeof saved_, &saved_);
    for (int c = 0; c < CPU_SETSIZE; ++c) {
      if (CPU_ISSET(c, &saved_)) cpus_.push_back(c);
    }
  }
  ~Pinned() { ::sched_setaffinity(0, sizeof saved_, &saved_); }
  Pinned(const Pinned&) = delete;
  Pinned& operator=(const Pinned&) = delete;
  bool split() const { return cpus_.size() > 1; }
  void To(bool last) const {
    if (cpus_.empty()) return;
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(last ? cpus_.back() : cpus_.front(), &one);
    ::sched_setaffinity(0, sizeof one, &one);
  }

 private:
  cpu_set_t saved_;
  std::vector<int> cpus_;
};

// The order service's poller handing a request to a worker, both on the one
// CPU capstone --real gives the service: every round trip is two hand-offs
// (there and back), each a wake-up and a switch on that CPU. Process CPU
// over the loop (both threads) per hand-off: on a loaded machine real time
// would count other processes' turns on the CPU too.
void BM_Handoff_SameCpu(benchmark::State& state) {
  Pinned pin;
  pin.To(/*last=*/true);
  Worker worker;  // starts pinned to the same CPU
  uint64_t x = 1;
  const double cpu0 = core::ProcessCpuSeconds();
  for (auto _ : state) x = worker.Run(x);
  const double cpu = core::ProcessCpuSeconds() - cpu0;
  worker.Stop();
  benchmark::DoNotOptimize(x);
  const double handoffs = 2.0 * static_cast<double>(state.iterations());
  state.counters["handoff_cpu_us"] = cpu * 1e6 / std::max(1.0, handoffs);
  state.SetItemsProcessed(static_cast<int64_t>(handoffs));
}
BENCHMARK(BM_Handoff_SameCpu)->UseRealTime();

// A request thread asleep on an idle core, woken from another core (a reply
// arriving, a timer firing): the worker sleeps on the last CPU, this thread
// wakes it from the first and waits for its answer, so the worker's CPU goes
// idle between wakes. The counter is the worker's own CPU per wake, what the
// service's core pays (with one CPU, both share it: no idle core to wake).
void BM_Wake_IdleCore(benchmark::State& state) {
  Pinned pin;
  pin.To(/*last=*/true);
  Worker worker;  // sleeps on the last CPU
  pin.To(/*last=*/false);
  uint64_t x = 1;
  for (auto _ : state) x = worker.Run(x);
  const double woken_s = worker.Stop();
  benchmark::DoNotOptimize(x);
  const double wakes = static_cast<double>(state.iterations());
  state.counters["woken_cpu_us"] = woken_s * 1e6 / std::max(1.0, wakes);
  state.counters["split"] = pin.split() ? 1 : 0;
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_Wake_IdleCore)->UseRealTime();

}  // namespace
}  // namespace perflab::orders

BENCHMARK_MAIN();
