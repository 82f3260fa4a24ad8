// bench_sched: the kernel scheduler's costs, each measured alone on this
// machine, that the time-sliced sim::Cpu composes (its switch cost, refill
// curve and quantum):
//
//   BM_Switch_WorkingSet/ws_kib:N  two threads pinned to one CPU pass a byte
//       back and forth through two pipes, each touching N KiB of its own
//       between switches (lmbench lat_ctx's method). Counters: switch_ns, one
//       switch with the pipe I/O and the warm touch taken out; refill_ns, that
//       minus the same run's switch at working set 0 (the refill curve).
//   BM_Wake_BusyCore/spinners:N    a thread asleep on a CPU that N spinning
//       threads keep busy, woken through a pipe from another CPU: counter
//       wake_to_run_us, from the write to the woken thread running (median).
//   BM_Slice                       the kernel's slice: read from
//       /proc/sys/kernel/sched_base_slice_ns (or sched_min_granularity_ns, or
//       the same under /sys/kernel/debug/sched/) when present, else measured
//       as the median run of two spinning threads pinned to one CPU. Counters
//       slice_us and from_kernel_file (1 read, 0 measured).
//
// CPU times are process or thread CPU clocks, not wall time, where a busy
// machine's other processes would count: what is measured is this process's
// own work. Wake-up latency is wall time by nature, so it is noisy there.
#include <benchmark/benchmark.h>
#include <sched.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdint>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "core/cpu_time.h"

namespace {

int64_t MonotonicNs() {
  timespec t;
  ::clock_gettime(CLOCK_MONOTONIC, &t);
  return static_cast<int64_t>(t.tv_sec) * 1'000'000'000 + t.tv_nsec;
}

// The CPUs this process may run on, and the calling thread's mask restored
// when destroyed (benchmarks pin the thread that runs them).
class Affinity {
 public:
  Affinity() {
    CPU_ZERO(&saved_);
    ::sched_getaffinity(0, sizeof saved_, &saved_);
    for (int c = 0; c < CPU_SETSIZE; ++c) {
      if (CPU_ISSET(c, &saved_)) cpus_.push_back(c);
    }
  }
  ~Affinity() { ::sched_setaffinity(0, sizeof saved_, &saved_); }
  Affinity(const Affinity&) = delete;
  Affinity& operator=(const Affinity&) = delete;
  int first() const { return cpus_.empty() ? -1 : cpus_.front(); }
  int last() const { return cpus_.empty() ? -1 : cpus_.back(); }
  bool split() const { return cpus_.size() > 1; }

 private:
  cpu_set_t saved_;
  std::vector<int> cpus_;
};

// Pins the calling thread to `cpu` (no-op for -1).
void PinTo(int cpu) {
  if (cpu < 0) return;
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(cpu, &one);
  ::sched_setaffinity(0, sizeof one, &one);
}

double Median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

struct Pipe {
  int fd[2] = {-1, -1};
  Pipe() {
    if (::pipe(fd) != 0) fd[0] = fd[1] = -1;
  }
  ~Pipe() {
    for (int f : fd) {
      if (f >= 0) ::close(f);
    }
  }
  Pipe(const Pipe&) = delete;
  Pipe& operator=(const Pipe&) = delete;
  bool ok() const { return fd[0] >= 0; }
  // Retried only on EINTR; a reader sees 'q' (end) on EOF or an error.
  void Send(char c) const {
    while (::write(fd[1], &c, 1) < 0 && errno == EINTR) {
    }
  }
  char Receive() const {
    char c = 0;
    for (;;) {
      const ssize_t n = ::read(fd[0], &c, 1);
      if (n == 1) return c;
      if (n < 0 && errno == EINTR) continue;
      return 'q';
    }
  }
};

// ---- A switch, by working set ----------------------------------------------

// Reads one word of every 64-byte line: the working set's cache footprint.
uint64_t Touch(const std::vector<uint64_t>& ws) {
  uint64_t sum = 0;
  for (size_t i = 0; i < ws.size(); i += 8) sum += ws[i];
  return sum;
}

std::vector<uint64_t> WorkingSet(int64_t kib, uint64_t seed) {
  std::vector<uint64_t> ws(static_cast<size_t>(kib) * 1024 / 8);
  for (size_t i = 0; i < ws.size(); ++i) ws[i] = seed + i;
  return ws;
}

// CPU ns of one warm Touch() of `ws` (no switch in between): the median of
// seven batches, each long enough (0.2 ms) that the clock's own cost (a
// system call on some VMs) is spread thin and one interruption moves only
// one batch.
double WarmTouchNs(const std::vector<uint64_t>& ws) {
  uint64_t sink = Touch(ws);
  int64_t passes = 1;
  while (passes < (int64_t{1} << 24)) {
    const double t0 = perflab::core::ThreadCpuSeconds();
    for (int64_t i = 0; i < passes; ++i) sink += Touch(ws);
    if (perflab::core::ThreadCpuSeconds() - t0 >= 2e-4) break;
    passes *= 2;
  }
  std::vector<double> batches;
  for (int b = 0; b < 7; ++b) {
    const double t0 = perflab::core::ThreadCpuSeconds();
    for (int64_t i = 0; i < passes; ++i) sink += Touch(ws);
    batches.push_back((perflab::core::ThreadCpuSeconds() - t0) * 1e9 /
                      static_cast<double>(passes));
  }
  benchmark::DoNotOptimize(sink);
  return Median(batches);
}

// CPU ns of a 1-byte write and read of a pipe in one thread: the pipe I/O
// in a switch's round trip, without the switch.
double PipeIoNs() {
  Pipe p;
  constexpr int kPairs = 2000;
  const double t0 = perflab::core::ThreadCpuSeconds();
  for (int i = 0; i < kPairs; ++i) {
    p.Send('x');
    p.Receive();
  }
  return (perflab::core::ThreadCpuSeconds() - t0) * 1e9 / kPairs;
}

// The partner thread: on 'x' touches its working set and answers, on 'z'
// answers at once, on 'q' ends.
void Partner(int cpu, const Pipe& in, const Pipe& out,
             const std::vector<uint64_t>& ws) {
  PinTo(cpu);
  uint64_t sink = 0;
  for (;;) {
    const char c = in.Receive();
    if (c == 'q') break;
    if (c == 'x') sink += Touch(ws);
    out.Send(c);
  }
  benchmark::DoNotOptimize(sink);
}

// Process CPU ns of `n` round trips with ('x') or without ('z') touches.
double RoundTripsNs(const Pipe& to, const Pipe& from, char c, int64_t n,
                    const std::vector<uint64_t>& ws) {
  uint64_t sink = 0;
  const double t0 = perflab::core::ProcessCpuSeconds();
  for (int64_t i = 0; i < n; ++i) {
    to.Send(c);
    from.Receive();
    if (c == 'x') sink += Touch(ws);
  }
  benchmark::DoNotOptimize(sink);
  return (perflab::core::ProcessCpuSeconds() - t0) * 1e9;
}

void BM_Switch_WorkingSet(benchmark::State& state) {
  const int64_t kib = state.range(0);
  Affinity affinity;
  const int cpu = affinity.last();
  PinTo(cpu);
  const std::vector<uint64_t> mine = WorkingSet(kib, 1);
  const std::vector<uint64_t> theirs = WorkingSet(kib, 2);
  const double touch_ns = WarmTouchNs(mine);
  const double pipe_ns = PipeIoNs();
  Pipe to, from;
  if (!to.ok() || !from.ok()) {
    state.SkipWithError("pipe() failed");
    return;
  }
  std::thread partner(Partner, cpu, std::cref(to), std::cref(from),
                      std::cref(theirs));
  RoundTripsNs(to, from, 'x', 10, mine);  // both threads running, caches set
  uint64_t sink = 0;
  const double cpu0 = perflab::core::ProcessCpuSeconds();
  for (auto _ : state) {
    to.Send('x');
    from.Receive();
    sink += Touch(mine);
  }
  const double loop_ns = (perflab::core::ProcessCpuSeconds() - cpu0) * 1e9;
  benchmark::DoNotOptimize(sink);
  // The same run's switch without a working set, side by side.
  constexpr int64_t kBaseline = 1000;
  const double base_ns = RoundTripsNs(to, from, 'z', kBaseline, mine);
  to.Send('q');
  partner.join();
  const double trips = static_cast<double>(state.iterations());
  // A round trip is two switches, two pipe writes and reads, two touches.
  const double switch_ns = (loop_ns / trips - 2 * pipe_ns - 2 * touch_ns) / 2;
  const double switch0_ns = (base_ns / kBaseline - 2 * pipe_ns) / 2;
  state.counters["switch_ns"] = switch_ns;
  state.counters["switch0_ns"] = switch0_ns;
  state.counters["refill_ns"] = switch_ns - switch0_ns;
  // The same two in us, the unit perflab calibrate reads a counter in.
  state.counters["switch0_us"] = switch0_ns / 1e3;
  state.counters["refill_us"] = (switch_ns - switch0_ns) / 1e3;
  state.counters["warm_touch_ns"] = touch_ns;
  state.counters["pipe_io_ns"] = pipe_ns;
  state.counters["working_set_bytes"] = static_cast<double>(kib * 1024);
  state.SetItemsProcessed(2 * state.iterations());
}
BENCHMARK(BM_Switch_WorkingSet)
    ->ArgName("ws_kib")
    ->Arg(0)
    ->Arg(16)
    ->Arg(64)
    ->Arg(256)
    ->Arg(1024)
    ->Arg(4096)
    ->UseRealTime();

// ---- A wake onto a busy core -----------------------------------------------

void Spin(int cpu, const std::atomic<bool>& stop) {
  PinTo(cpu);
  while (!stop.load(std::memory_order_relaxed)) {
  }
}

// Sleeps on `in`; on each byte, notes when it runs and answers on `out`.
void Sleeper(int cpu, const Pipe& in, const Pipe& out,
             std::atomic<int64_t>& ran_at_ns) {
  PinTo(cpu);
  for (;;) {
    const char c = in.Receive();
    ran_at_ns.store(MonotonicNs(), std::memory_order_relaxed);
    if (c == 'q') break;
    out.Send(c);
  }
}

void BM_Wake_BusyCore(benchmark::State& state) {
  const int64_t spinners = state.range(0);
  Affinity affinity;
  const int busy_cpu = affinity.last();
  PinTo(affinity.first());  // the waker, on another CPU when there is one
  Pipe wake, answer;
  if (!wake.ok() || !answer.ok()) {
    state.SkipWithError("pipe() failed");
    return;
  }
  std::atomic<bool> stop{false};
  std::vector<std::thread> spinning;
  for (int64_t i = 0; i < spinners; ++i) {
    spinning.emplace_back(Spin, busy_cpu, std::cref(stop));
  }
  std::atomic<int64_t> ran_at_ns{0};
  std::thread sleeper(Sleeper, busy_cpu, std::cref(wake), std::cref(answer),
                      std::ref(ran_at_ns));
  std::vector<double> latency_us;
  for (auto _ : state) {
    const int64_t t0 = MonotonicNs();
    wake.Send('x');
    answer.Receive();
    latency_us.push_back(
        static_cast<double>(ran_at_ns.load(std::memory_order_relaxed) - t0) /
        1e3);
  }
  wake.Send('q');
  sleeper.join();
  stop.store(true);
  for (std::thread& t : spinning) t.join();
  double sum = 0;
  for (double v : latency_us) sum += v;
  state.counters["wake_to_run_us"] = Median(latency_us);
  state.counters["wake_to_run_mean_us"] =
      latency_us.empty() ? 0 : sum / static_cast<double>(latency_us.size());
  state.counters["split"] = affinity.split() ? 1 : 0;
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_Wake_BusyCore)
    ->ArgName("spinners")
    ->Arg(0)
    ->Arg(1)
    ->Arg(2)
    ->Arg(4)
    ->UseRealTime();

// ---- The kernel's slice ----------------------------------------------------

// The slice the kernel says it gives, in ns, or 0 if no file says.
int64_t KernelSliceNs() {
  for (const char* path : {"/proc/sys/kernel/sched_base_slice_ns",
                           "/proc/sys/kernel/sched_min_granularity_ns",
                           "/sys/kernel/debug/sched/base_slice_ns",
                           "/sys/kernel/debug/sched/min_granularity_ns"}) {
    std::ifstream in(path);
    int64_t ns = 0;
    if (in >> ns && ns > 0) return ns;
  }
  return 0;
}

// Spins on `cpu` for `window_ns`, noting each stretch it ran without a gap
// longer than `gap_ns` (a gap: another thread had the CPU). The first and
// last stretches are partial and left out.
void SpinRuns(int cpu, int64_t window_ns, int64_t gap_ns,
              std::vector<double>& runs_ns) {
  PinTo(cpu);
  const int64_t start = MonotonicNs();
  int64_t run_start = start, last = start;
  bool first = true;
  for (;;) {
    const int64_t t = MonotonicNs();
    if (t - last > gap_ns) {
      if (!first) runs_ns.push_back(static_cast<double>(last - run_start));
      first = false;
      run_start = t;
    }
    last = t;
    if (t - start > window_ns) break;
  }
}

// Adds the runs of two threads spinning on one CPU for `window_ns`.
void MeasureRuns(int cpu, int64_t window_ns, std::vector<double>& runs_ns) {
  constexpr int64_t kGapNs = 20'000;  // far above a timer tick's few us
  std::vector<double> a, b;
  std::thread ta(SpinRuns, cpu, window_ns, kGapNs, std::ref(a));
  std::thread tb(SpinRuns, cpu, window_ns, kGapNs, std::ref(b));
  ta.join();
  tb.join();
  runs_ns.insert(runs_ns.end(), a.begin(), a.end());
  runs_ns.insert(runs_ns.end(), b.begin(), b.end());
}

void BM_Slice(benchmark::State& state) {
  Affinity affinity;
  const int64_t kernel_ns = KernelSliceNs();
  std::vector<double> runs_ns;
  for (auto _ : state) {
    if (kernel_ns > 0) {
      runs_ns.push_back(static_cast<double>(kernel_ns));
    } else {
      MeasureRuns(affinity.last(), 50'000'000, runs_ns);
    }
  }
  const double slice_ns = Median(runs_ns);
  const auto runs = static_cast<int64_t>(runs_ns.size());
  state.counters["slice_us"] = slice_ns / 1e3;
  state.counters["from_kernel_file"] = kernel_ns > 0 ? 1 : 0;
  state.SetItemsProcessed(runs);
}
BENCHMARK(BM_Slice)->UseRealTime()->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
