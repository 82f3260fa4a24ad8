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

}  // namespace perflab::case_study

#endif  // PERFLAB_CORE_CASE_STUDY_H_
