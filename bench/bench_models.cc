// Costs of the models themselves: what recording a latency costs next to the
// cheapest possible counter, and what the queries, merges and fits cost.
#include <benchmark/benchmark.h>

#include <bit>
#include <cstdint>
#include <string>
#include <vector>

#include "core/random.h"
#include "models/change_points.h"
#include "models/histogram.h"
#include "models/mva.h"
#include "models/queues.h"
#include "models/usl.h"

namespace perflab::models {
namespace {

// Latency-like values in ns: mostly ~15 ms with a long tail, precomputed so
// the benchmarks time only the recording.
std::vector<int64_t> Values(size_t n) {
  std::vector<int64_t> v(n);
  core::SplitMix64 rng(42);
  for (auto& x : v) {
    const uint64_t r = rng.Next() >> 33;
    x = static_cast<int64_t>(15'000'000 +
                             (r % 1'000'000) * ((r & 63) == 0 ? 200 : 1));
  }
  return v;
}

Histogram MakeHistogram() { return *Histogram::Create({}); }

// The baseline: the cheapest thing a recorder could do, ++counts[bucket] with
// a log2 bucket. The histogram's goal is to stay within 2x of it.
void BM_PlainCounterBaseline(benchmark::State& state) {
  std::vector<int64_t> values = Values(1 << 16);
  std::vector<int64_t> counts(64);
  size_t i = 0;
  for (auto _ : state) {
    int64_t v = values[i++ & (values.size() - 1)];
    ++counts[std::bit_width(static_cast<uint64_t>(v))];
  }
  benchmark::DoNotOptimize(counts.data());
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_PlainCounterBaseline);

void BM_HistogramRecord(benchmark::State& state) {
  std::vector<int64_t> values = Values(1 << 16);
  Histogram h = MakeHistogram();
  size_t i = 0;
  for (auto _ : state) {
    h.Record(values[i++ & (values.size() - 1)]);
  }
  benchmark::DoNotOptimize(h.Count());
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_HistogramRecord);

void BM_HistogramPercentile(benchmark::State& state) {
  Histogram h = MakeHistogram();
  for (int64_t v : Values(1 << 20)) h.Record(v);
  for (auto _ : state) benchmark::DoNotOptimize(h.Percentile(99.9));
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_HistogramPercentile);

void BM_HistogramMerge(benchmark::State& state) {
  Histogram a = MakeHistogram(), b = MakeHistogram();
  for (int64_t v : Values(1 << 16)) b.Record(v);
  for (auto _ : state) {
    benchmark::DoNotOptimize(a.Merge(b).ok());
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_HistogramMerge);

void BM_ErlangC(benchmark::State& state) {
  const int c = static_cast<int>(state.range(0));
  for (auto _ : state) {
    benchmark::DoNotOptimize(MMc(c, 0.9 * c, 1.0));
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_ErlangC)->Arg(8)->Arg(512);

// Fits points as a user measures them: +-3 % noise (fixed splitmix64 seed),
// so the optimiser works from an imperfect start. Counter: iterations.
void BM_UslFit(benchmark::State& state) {
  std::vector<UslPoint> pts;
  core::SplitMix64 rng(2024);
  for (double n : {1, 2, 4, 8, 12, 16, 24, 32, 48, 64}) {
    const double u = 2 * rng.Uniform01() - 1;  // uniform in [-1, 1)
    pts.push_back({n, 1000 * UslCapacity(0.05, 0.002, n) * (1 + 0.03 * u)});
  }
  int iterations = 0;
  for (auto _ : state) {
    auto fit = FitUsl(pts);
    if (!fit.ok()) {
      state.SkipWithError(std::string(fit.status().message()).c_str());
      return;
    }
    iterations = fit->iterations;
    benchmark::DoNotOptimize(fit);
  }
  state.counters["iterations"] = iterations;
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_UslFit);

// --- Mean Value Analysis (models/mva.h) ------------------------------------
// Targets: exact single-class MVA for N = 1..10,000 over 10 stations within
// 10 ms; exact multi-class, 3 classes of 20 clients, within 100 ms.
// Counters: populations (or lattice points) solved, and the throughput found
// so the work cannot be optimised away.

// Ten stations, demands 10..55 ms; `servers` of them run 4 cores.
SingleClassNetwork TenStations(int multi_server) {
  SingleClassNetwork net;
  net.think_s = 1;
  for (int k = 0; k < 10; ++k) {
    net.stations.push_back({"s" + std::to_string(k), StationKind::kQueue,
                            0.010 + 0.005 * k, k < multi_server ? 4 : 1});
  }
  return net;
}

// Arg: how many of the ten stations have 4 servers (each doubles the work).
void BM_MvaExact(benchmark::State& state) {
  const SingleClassNetwork net = TenStations(static_cast<int>(state.range(0)));
  constexpr int64_t kClients = 10'000;
  double x = 0;
  for (auto _ : state) {
    auto points = SolveExactMva(net, kClients);
    if (!points.ok()) {
      state.SkipWithError(std::string(points.status().message()).c_str());
      return;
    }
    x = points->back().throughput_per_s;
    benchmark::DoNotOptimize(points);
  }
  state.counters["populations"] = static_cast<double>(kClients);
  state.counters["throughput_per_s"] = x;
  state.SetItemsProcessed(state.iterations() * kClients);
}
BENCHMARK(BM_MvaExact)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

// Three classes of 20 clients over the ten stations (one of 4 cores), each
// class with its own demands and think time.
MultiClassNetwork ThreeClassesOfTwenty() {
  const SingleClassNetwork one = TenStations(1);
  MultiClassNetwork net;
  net.clients = {20, 20, 20};
  net.think_s = {1, 0.5, 2};
  for (const Station& s : one.stations) {
    net.stations.push_back({s.name,
                            s.kind,
                            {s.demand_s, 2 * s.demand_s, 0.5 * s.demand_s},
                            s.servers});
  }
  return net;
}

// Exact: a lattice of 21^3 = 9,261 populations, twice for the 4-core station.
void BM_MvaMultiClass(benchmark::State& state) {
  const MultiClassNetwork net = ThreeClassesOfTwenty();
  double x = 0;
  for (auto _ : state) {
    auto r = SolveExactMultiClassMva(net);
    if (!r.ok()) {
      state.SkipWithError(std::string(r.status().message()).c_str());
      return;
    }
    x = r->throughput_per_s[0];
    benchmark::DoNotOptimize(r);
  }
  state.counters["lattice_points"] = 21 * 21 * 21;
  state.counters["throughput_per_s"] = x;
  state.SetItemsProcessed(state.iterations() * 21 * 21 * 21);
}
BENCHMARK(BM_MvaMultiClass)->Unit(benchmark::kMillisecond);

// The approximation on the same network: a fixed point instead of a lattice.
void BM_MvaSchweitzerBard(benchmark::State& state) {
  const MultiClassNetwork net = ThreeClassesOfTwenty();
  int64_t iterations = 0;
  for (auto _ : state) {
    auto r = SolveSchweitzerBard(net);
    if (!r.ok()) {
      state.SkipWithError(std::string(r.status().message()).c_str());
      return;
    }
    iterations = r->iterations;
    benchmark::DoNotOptimize(r);
  }
  state.counters["iterations"] = static_cast<double>(iterations);
}
BENCHMARK(BM_MvaSchweitzerBard)->Unit(benchmark::kMicrosecond);

// perflab history changes over a long history: 1,000 commits x 100
// benchmarks, 5 repetitions each; one benchmark in ten steps up 5 % at commit
// 300 and down 3 % at 700, the rest is noise of +-1 %. Goal: <= 2 s for the
// whole suite (one iteration is the suite).
void BM_ChangePoints1000x100(benchmark::State& state) {
  constexpr size_t kCommits = 1000, kBenchmarks = 100, kReps = 5;
  std::vector<std::vector<std::vector<double>>> suite(kBenchmarks);
  core::SplitMix64 rng(24);
  for (size_t b = 0; b < kBenchmarks; ++b) {
    suite[b].resize(kCommits);
    for (size_t c = 0; c < kCommits; ++c) {
      double level = 100;
      if (b % 10 == 0) level = c < 300 ? 100 : c < 700 ? 105 : 105 * 0.97;
      for (size_t r = 0; r < kReps; ++r) {
        suite[b][c].push_back(level * (1 + 0.02 * (rng.Uniform01() - 0.5)));
      }
    }
  }
  size_t found = 0;
  for (auto _ : state) {
    found = 0;
    for (const auto& series : suite) {
      found += FindChangePoints(series)->size();
    }
    benchmark::DoNotOptimize(found);
  }
  state.counters["change_points"] = static_cast<double>(found);
  state.counters["benchmarks"] = kBenchmarks;
  state.counters["commits"] = kCommits;
}
BENCHMARK(BM_ChangePoints1000x100)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace perflab::models

BENCHMARK_MAIN();
