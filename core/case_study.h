// The case study's published figures, each defined once. Component Options
// default to them, scenario keys print them as their defaults, and the models
// tour computes with them; tests derive their expectations independently.
// Chapters: "capstone" (the ten-step order service), "laws" (Little, Amdahl,
// USL, percentiles, cost), "pools" (threads and connections), "contention"
// (the locking backend). Plain constants: safe from any thread.
#ifndef PERFLAB_CORE_CASE_STUDY_H_
#define PERFLAB_CORE_CASE_STUDY_H_

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

}  // namespace perflab::case_study

#endif  // PERFLAB_CORE_CASE_STUDY_H_
