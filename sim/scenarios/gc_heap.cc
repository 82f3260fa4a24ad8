// gc-heap (capstone chapter, step 9): a closed-loop service whose requests
// allocate, in heaps of several sizes: young-GC count, pauses and throughput.
#include <cstdint>
#include <optional>

#include "absl/strings/str_cat.h"
#include "sim/cpu.h"
#include "sim/gc.h"
#include "sim/random.h"
#include "sim/scenarios/internal/common.h"

namespace perflab::sim {
namespace {

// ---- gc-heap: a closed-loop service whose requests allocate.
struct GcModel {
  Simulation& sim;
  Cpu& cpu;
  Gc& gc;
  Meter& meter;
  Time cpu_work, io;
  double alloc_mib;
};

Process GcClient(GcModel& m, Time offset) {
  co_await m.sim.Delay(offset);
  while (true) {
    const Time start = m.sim.now();
    m.meter.Begin();
    co_await m.gc.Safepoint();
    m.gc.Allocate(m.alloc_mib);
    co_await m.cpu.Run(m.cpu_work);
    co_await m.sim.Delay(m.io);
    co_await m.gc.Safepoint();  // the response is written by a Java thread
    m.meter.End(start);
  }
}

absl::StatusOr<core::Document> RunGc(const Params& p, uint64_t seed) {
  core::Document doc("GC: heap size against young-collection pauses");
  core::Table& t = doc.AddTable("rows", "Heaps",
                                {{"heap_mib", "heap (MiB)", 0},
                                 {"young_mib", "young gen (MiB)", 0},
                                 {"collections", "young GCs"},
                                 {"total_pause_ms", "total pause (ms)", 0},
                                 {"mean_pause_ms", "mean pause (ms)", 1},
                                 {"throughput_per_s", "req/s", 0},
                                 {"p99_ms", "p99 (ms)", 2},
                                 {"max_ms", "max (ms)", 2},
                                 {"l_sampled", "L sampled", 2},
                                 {"l_little", "lambda x W", 2}});
  for (double heap : p.Numbers("heaps_mib")) {
    Simulation sim(BudgetFrom(p));
    Cpu cpu(sim, p.Integer("cores"));
    GcOptions go;
    go.heap_mib = heap;
    go.live_set_mib = p.Number("live_set_mib");
    absl::StatusOr<Gc> gc = Gc::Create(sim, &cpu, go);
    if (!gc.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("key 'heaps_mib' = '", p.Text("heaps_mib"),
                       "': every heap must exceed "
                       "live_set_mib = ",
                       p.Text("live_set_mib")));
    }
    const MeterOptions mo = MeterOptionsFrom(p);
    Meter meter(sim, mo);
    GcModel m{sim,
              cpu,
              *gc,
              meter,
              MsToNs(p.Number("cpu_per_request_ms")),
              MsToNs(p.Number("io_ms")),
              p.Number("alloc_per_request_mib")};
    Rng starts(seed, "starts");
    for (int64_t i = 0; i < p.Integer("clients"); ++i) {
      sim.Spawn(GcClient(
          m, static_cast<Time>(starts.Uniform01() * p.Number("io_ms") * 1e6)));
    }
    if (absl::Status s = sim.Run(mo.warmup); !s.ok()) return s;
    gc->ResetStats();
    if (absl::Status s = sim.Run(meter.window_end()); !s.ok()) return s;
    const Summary s = meter.Summarise();
    const GcStats& g = gc->stats();
    t.Add({heap, g.young_mib, g.collections, ToMs(g.total_pause),
           g.mean_pause_ms(), s.throughput_per_s, s.p99_ms, s.max_ms,
           s.l_sampled, s.l_little});
  }
  doc.Note(
      "young gen = (heap - live set); a pause = 2.5 ms + 0.028 ms per young "
      "MiB "
      "(see sim/gc.h for the calibration).");
  return doc;
}

}  // namespace

Scenario GcHeapScenario() {
  return {
      "gc-heap",
      "a 206 MiB live set in 256 vs 768 MiB heaps: young-GC count and pauses",
      {ListKey("heaps_mib",
               absl::StrCat(DefaultText(case_study::kHeapMib), ",512,",
                            DefaultText(case_study::kTunedHeapMib)),
               0, 1e6, "heap sizes (MiB)", true),
       NumKey("live_set_mib", DefaultText(case_study::kLiveSetMib), 0, 1e6,
              "live set (MiB)"),
       NumKey("alloc_per_request_mib", "0.5", 0, 1e4,
              "allocation per request (MiB)"),
       IntKey("clients", "32", 1, 1000000, "closed-loop clients"),
       IntKey("cores", "8", 1, 4096, "CPU cores"),
       NumKey("cpu_per_request_ms", "1", 0, 1e6, "CPU per request (ms)"),
       NumKey("io_ms", "4", 0, 1e6, "blocking time per request (ms)"),
       NumKey("warmup_s", "2", 0, 86400, "discarded warm-up (s)"),
       NumKey("duration_s", "20", 0, 86400, "measured window (s)", true),
       MaxPendingKey()},
      RunGc};
}

const ScenarioRegistration kGcHeap(GcHeapScenario);

}  // namespace perflab::sim
