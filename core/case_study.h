// The case study's published figures, each defined once. Component Options
// default to them, scenario keys print them as their defaults, and the models
// tour computes with them; tests derive their expectations independently.
// Chapters: "capstone" (the ten-step order service), "laws" (Little, Amdahl,
// USL, percentiles, cost), "pools" (threads and connections), "contention"
// (the locking backend). Plain constants: safe from any thread.
#ifndef PERFLAB_CORE_CASE_STUDY_H_
#define PERFLAB_CORE_CASE_STUDY_H_

#include <cstddef>
#include <cstdint>

namespace perflab::case_study {

// Laws chapter: USL contention and coherency of the worked example.
inline constexpr double kUslSigma = 0.05;
inline constexpr double kUslKappa = 0.002;
// Laws chapter: Amdahl's serial fraction.
inline constexpr double kAmdahlSerial = 0.05;
// Laws chapter: Little's Law pool sizing, 250 req/s holding a connection 60 ms.
inline constexpr double kLittleRatePerS = 250;
inline constexpr double kLittleHoldMs = 60;
inline constexpr double kLittleHeadroom = 0.3;  // upper end of 20-30 %

// Pools chapter: the HTTP client pool, 20 connections, 40 ms per call.
inline constexpr int64_t kClientPoolConnections = 20;
inline constexpr double kClientPoolCallMs = 40;
// Pools chapter: Hikari's pool of 10, each request holding it ~50 ms, and
// Hikari's default 30 s connection timeout.
inline constexpr int64_t kDbPoolSize = 10;
inline constexpr double kDbHoldMs = 50;
inline constexpr double kDbTimeoutMs = 30000;

// Pools chapter: loopback HTTP costs measured by the case study's Java client
// (microseconds): a warm call, a new TCP connection, a TLS handshake, TLS per
// call, and the client's delayed-ACK timer behind the Nagle stall.
inline constexpr int64_t kHttpCallUs = 569;
inline constexpr int64_t kHttpConnectUs = 707;
inline constexpr int64_t kTlsHandshakeUs = 4340;
inline constexpr int64_t kTlsPerCallUs = 379;
inline constexpr int64_t kDelayedAckMs = 40;

// Capstone chapter: the JVM heap of the baseline and the live set it keeps.
inline constexpr double kHeapMib = 256;
inline constexpr double kLiveSetMib = 206;
// Capstone chapter: the heap of the GC step.
inline constexpr double kTunedHeapMib = 768;
// Capstone chapter: young-pause model fitted to the GC log (fixed cost and
// cost per young-generation MiB copied or scanned).
inline constexpr double kYoungPauseBaseMs = 2.5;
inline constexpr double kYoungPausePerMibMs = 0.028;
// Capstone chapter: the heap step's GC log, whole process lifetime: young
// pauses and their total at 256 against 768 MiB.
inline constexpr double kGcPauses256 = 401;
inline constexpr double kGcPauses768 = 32;
inline constexpr double kGcPauseTotal256Ms = 1'562;
inline constexpr double kGcPauseTotal768Ms = 589;
// Capstone chapter: the baseline's JFR profile, percent of the application's
// CPU samples: the database (H2 and JDBC), the framework (Tomcat, routing,
// Spring), JSON (Jackson) and the socket / HTTP client of the inventory call.
inline constexpr double kJfrDatabasePct = 97.2;
inline constexpr double kJfrFrameworkPct = 1.7;
inline constexpr double kJfrJsonPct = 0.3;
inline constexpr double kJfrHttpClientPct = 0.7;
// Capstone chapter: the inventory stub's Thread.sleep(5), and the load
// generator's cores (run.sh: taskset -c 8-11).
inline constexpr double kInventoryStubMs = 5;
inline constexpr double kGeneratorCores = 4;
// Capstone chapter: the page cache, 10,000 entries with a 30 s TTL.
inline constexpr int64_t kCacheEntries = 10'000;
inline constexpr int64_t kCacheTtlS = 30;
// Capstone chapter: the rig, 32 closed-loop clients.
inline constexpr int64_t kClosedLoopClients = 32;

// ---- Figures the scenarios print beside their own (the shape table). ----
// Laws chapter: coordinated omission, 100 req/s for 60 s, a 5 s freeze.
inline constexpr int64_t kCoClosedSamples = 5'501;
inline constexpr double kCoClosedMaxMs = 5'005;
inline constexpr double kCoIntendedP99Ms = 4'705;
inline constexpr double kCoOpenP99Ms = 4'405;
// Laws chapter: the three-mode latency mixture of 100,000 requests, and two
// instances' p99s averaged against their merged traffic.
inline constexpr double kMixtureMeanMs = 26.0;
inline constexpr double kMixtureP50Ms = 15.1;
inline constexpr double kMixtureP99Ms = 184.5;
inline constexpr double kMixtureP999Ms = 1'803.6;
inline constexpr double kAveragedP99Ms = 510;
inline constexpr double kMergedP99Ms = 940;
// Laws chapter: the pool the Little's Law example picks for L = 15.
inline constexpr int64_t kLittlePoolPicked = 20;
// Laws chapter: the USL worked example peaks at N = 22 with C(22) = 7.40.
inline constexpr double kUslPeakN = 22;
// Laws chapter: the Hikari pool of 10 held ~50 ms "runs fine in a test at 100
// req/s" and starts timing out "at 200 req/s" (its peak; 10 / 0.05 s = 200).
inline constexpr double kPoolStarvationFineRatePerS = 100;
inline constexpr double kPoolStarvationPeakRatePerS = 200;
// Pools chapter: the HTTP client pool's ceiling 20 / 0.040 s = 500 calls/s
// against 1,000 calls/s offered (200 threads x 5 calls/s): half the calls wait.
inline constexpr double kClientPoolCeilingPerS = 500;
inline constexpr double kClientPoolOfferedPerS = 1'000;
// Laws chapter: the USL worked example's C(12), C(22) at the peak and C(64).
inline constexpr double kUslC12 = 6.62;
inline constexpr double kUslPeakCapacity = 7.40;
inline constexpr double kUslC64 = 5.24;
// Pools chapter: 400 closed-loop clients, a 50 ms handler, 12 cores.
inline constexpr int64_t kThreadCapClients = 400;
inline constexpr double kThreadCapHandlerMs = 50;
inline constexpr int64_t kThreadCapCores = 12;
inline constexpr double kThreads10PerS = 198;
inline constexpr double kThreads50PerS = 983;
inline constexpr double kThreads200PerS = 3'874;
inline constexpr double kThreads200MeanMs = 103;
inline constexpr double kThreads200P99Ms = 148;
inline constexpr double kVirtualPerS = 5'950;
inline constexpr double kVirtualMeanMs = 67;
inline constexpr double kVirtualP99Ms = 160;
// Pools chapter: 2,000 sequential loopback GETs, requests per second.
inline constexpr double kHttpClosePerS = 784;
inline constexpr double kHttpKeepAlivePerS = 1'757;
inline constexpr double kHttpsClosePerS = 167;
inline constexpr double kHttpsKeepAlivePerS = 1'055;
inline constexpr double kNagleStallMs = 43.7;
// Pools chapter: the load balancer's sporadic 502, about 1 in 2,000 requests.
inline constexpr double kKeepaliveRace502Pct = 100.0 / 2'000;
// Contention chapter: moving the row-locking UPDATE off the request path.
inline constexpr double kLockP90BeforeMs = 4'000;
inline constexpr double kLockP90AfterMs = 1'000;
inline constexpr double kLockMaxBeforeMs = 5'000;
inline constexpr double kLockMaxAfterMs = 2'000;
inline constexpr double kLockThroughputGain = 2;
// Capstone chapter: the page cache's hit ratio at step 8, 5,293 req/s over
// the workload's 5,000 customers.
inline constexpr double kCacheHitRatio = 0.97;
inline constexpr double kCacheStepPerS = 5'293;
inline constexpr int64_t kCustomers = 5'000;

// Capstone chapter: the ten-step table the case study printed (median of 3;
// closed loop of 32 clients, open loop at 40 req/s). `factor` is RPS against
// the previous step (0 for the baseline). The composer prints its own figures
// beside these. A test never takes one as the expected value of a quantity
// computed from a calibration field whose source reads it.
// The ten steps, in the case study's order: a row is read by its step
// (CapstoneRow), never by its position, so a misspelt step fails to compile.
enum class CapstoneStep {
  kBaseline,
  kIndex,
  kJoin,
  kKeepAlive,
  kTcpNodelay,
  kPool8,
  kVirtualThreads,
  kCache,
  kHeap768,
  kRightSize,
};
struct CapstoneStepFigures {
  CapstoneStep id;
  const char* step;  // perflab's step name (tools/capstone/steps.h)
  double rps, p95_ms, p99_ms, open_p99_ms, cpu_cores;
  double queries_per_request, usd_per_million, factor;
};
inline constexpr CapstoneStepFigures kCapstoneTable[] = {
    {CapstoneStep::kBaseline, "baseline", 86, 663.9, 922.8, 133.1, 4.3, 81,
     1.747, 0},
    {CapstoneStep::kIndex, "index", 691, 97.3, 125.4, 36.2, 4.0, 81, 0.217,
     8.03},
    {CapstoneStep::kJoin, "join", 1224, 51.6, 73.7, 14.6, 4.5, 1, 0.123, 1.77},
    {CapstoneStep::kKeepAlive, "keep-alive", 263, 202.8, 300.8, 68.7, 0.9, 1,
     0.571, 0.21},
    {CapstoneStep::kTcpNodelay, "tcp-nodelay", 1762, 35.9, 60.5, 10.3, 3.7, 1,
     0.085, 6.70},
    {CapstoneStep::kPool8, "pool-8", 1973, 30.8, 42.6, 9.0, 3.9, 1, 0.076,
     1.12},
    {CapstoneStep::kVirtualThreads, "virtual-threads", 2469, 25.1, 36.0, 12.1,
     4.8, 1, 0.061, 1.25},
    {CapstoneStep::kCache, "cache", 5293, 15.3, 26.5, 9.8, 3.7, 0, 0.028, 2.14},
    {CapstoneStep::kHeap768, "heap-768", 5214, 14.4, 23.9, 8.3, 2.2, 0, 0.029,
     0.99},
    {CapstoneStep::kRightSize, "right-size", 6066, 11.5, 18.0, 10.2, 1.9, 0,
     0.013, 1.16},
};
// Every row at the index of its step, so CapstoneRow is a lookup.
constexpr bool RowsInStepOrder() {
  size_t i = 0;
  for (const CapstoneStepFigures& row : kCapstoneTable) {
    if (static_cast<size_t>(row.id) != i++) return false;
  }
  return i == static_cast<size_t>(CapstoneStep::kRightSize) + 1;
}
static_assert(RowsInStepOrder(), "kCapstoneTable: one row per step, in order");
// The case study's row of `step`.
constexpr const CapstoneStepFigures& CapstoneRow(CapstoneStep step) {
  return kCapstoneTable[static_cast<size_t>(step)];
}
// The table's columns by name (calibration sources name the cells they read).
struct CapstoneColumn {
  const char* name;
  double CapstoneStepFigures::*member;
};
inline constexpr CapstoneColumn kCapstoneColumns[] = {
    {"rps", &CapstoneStepFigures::rps},
    {"p95_ms", &CapstoneStepFigures::p95_ms},
    {"p99_ms", &CapstoneStepFigures::p99_ms},
    {"open_p99_ms", &CapstoneStepFigures::open_p99_ms},
    {"cpu_cores", &CapstoneStepFigures::cpu_cores},
    {"queries_per_request", &CapstoneStepFigures::queries_per_request},
    {"usd_per_million", &CapstoneStepFigures::usd_per_million},
    {"factor", &CapstoneStepFigures::factor},
};
// Capstone chapter: the outcomes it printed, baseline against final step
// ("x lower" for latency and cost, "x higher" for throughput).
inline constexpr double kCapstoneP99Outcome = 51;
inline constexpr double kCapstoneOpenP99Outcome = 13;
inline constexpr double kCapstoneRpsOutcome = 71;
inline constexpr double kCapstoneCostOutcome = 139;
// Capstone chapter: the rig's memory price basis (8 or 4 vCPU + 1 GiB), its
// open loop (40 req/s for 20 s), warm-up and closed-loop window.
inline constexpr double kCapstoneMemGib = 1;
inline constexpr double kOpenLoopRatePerS = 40;
inline constexpr double kOpenLoopDurationS = 20;
inline constexpr double kRigWarmupS = 8;
inline constexpr double kClosedLoopDurationS = 15;
// Capstone chapter: the baseline's Hikari pool and Tomcat request threads,
// and the TCP_NODELAY step's unloaded open-loop median ("back to 6.6 ms").
inline constexpr int64_t kBaselineDbPool = 4;
inline constexpr int64_t kRequestThreads = 16;
inline constexpr double kNodelayOpenP50Ms = 6.6;
// Capstone chapter: the steps' new settings (pool 4 -> 8, 8 -> 4 vCPU).
inline constexpr int64_t kTunedDbPool = 8;
inline constexpr int64_t kRightSizedCores = 4;

// The figures a calibration's derivation may name. A derivation reads one
// by its FigureId; calibration sources cite it by the name of its constant
// above, which the table takes from the constant itself, so a figure renamed
// or misspelt in one place fails to compile.
enum class FigureId {
  kHttpCallUs,
  kHttpConnectUs,
  kNagleStallMs,
  kHeapMib,
  kLiveSetMib,
  kTunedHeapMib,
  kGcPauses256,
  kGcPauses768,
  kGcPauseTotal256Ms,
  kGcPauseTotal768Ms,
  kJfrDatabasePct,
  kJfrFrameworkPct,
  kJfrJsonPct,
  kJfrHttpClientPct,
  kInventoryStubMs,
  kGeneratorCores,
  kOpenLoopRatePerS,
  kOpenLoopDurationS,
  kRigWarmupS,
  kClosedLoopDurationS,
  kBaselineDbPool,
  kRequestThreads,
  kNodelayOpenP50Ms,
};
struct NamedFigure {
  FigureId id;
  const char* name;
  double value;
};
#define PERFLAB_NAMED_FIGURE(constant) \
  NamedFigure { FigureId::constant, #constant, static_cast<double>(constant) }
inline constexpr NamedFigure kNamedFigures[] = {
    PERFLAB_NAMED_FIGURE(kHttpCallUs),
    PERFLAB_NAMED_FIGURE(kHttpConnectUs),
    PERFLAB_NAMED_FIGURE(kNagleStallMs),
    PERFLAB_NAMED_FIGURE(kHeapMib),
    PERFLAB_NAMED_FIGURE(kLiveSetMib),
    PERFLAB_NAMED_FIGURE(kTunedHeapMib),
    PERFLAB_NAMED_FIGURE(kGcPauses256),
    PERFLAB_NAMED_FIGURE(kGcPauses768),
    PERFLAB_NAMED_FIGURE(kGcPauseTotal256Ms),
    PERFLAB_NAMED_FIGURE(kGcPauseTotal768Ms),
    PERFLAB_NAMED_FIGURE(kJfrDatabasePct),
    PERFLAB_NAMED_FIGURE(kJfrFrameworkPct),
    PERFLAB_NAMED_FIGURE(kJfrJsonPct),
    PERFLAB_NAMED_FIGURE(kJfrHttpClientPct),
    PERFLAB_NAMED_FIGURE(kInventoryStubMs),
    PERFLAB_NAMED_FIGURE(kGeneratorCores),
    PERFLAB_NAMED_FIGURE(kOpenLoopRatePerS),
    PERFLAB_NAMED_FIGURE(kOpenLoopDurationS),
    PERFLAB_NAMED_FIGURE(kRigWarmupS),
    PERFLAB_NAMED_FIGURE(kClosedLoopDurationS),
    PERFLAB_NAMED_FIGURE(kBaselineDbPool),
    PERFLAB_NAMED_FIGURE(kRequestThreads),
    PERFLAB_NAMED_FIGURE(kNodelayOpenP50Ms),
};
#undef PERFLAB_NAMED_FIGURE
// Every id has its entry, in order.
constexpr bool FiguresInIdOrder() {
  size_t i = 0;
  for (const NamedFigure& f : kNamedFigures) {
    if (static_cast<size_t>(f.id) != i++) return false;
  }
  return i == static_cast<size_t>(FigureId::kNodelayOpenP50Ms) + 1;
}
static_assert(FiguresInIdOrder(), "kNamedFigures: one entry per id, in order");

}  // namespace perflab::case_study

#endif  // PERFLAB_CORE_CASE_STUDY_H_
