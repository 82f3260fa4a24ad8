// Scenarios for the service components: http-connections (connection reuse,
// Nagle + delayed ACK, TLS), gc-heap (heap size against young-GC pauses) and
// cache (key skew against hit ratio).
#include <optional>

#include "absl/strings/str_cat.h"
#include "sim/cache.h"
#include "sim/cpu.h"
#include "sim/gc.h"
#include "sim/http.h"
#include "sim/random.h"
#include "sim/scenarios/internal/common.h"

namespace perflab::sim {
namespace {

// ---- http-connections: sequential GETs over one client.
Process Sequential(Simulation& sim, HttpClient& http, int64_t calls,
                   Time server, Time& end) {
  for (int64_t i = 0; i < calls; ++i) co_await http.Call(server);
  end = sim.now();
}

absl::StatusOr<core::Document> RunHttp(const Params& p, uint64_t) {
  core::Document doc("HTTP connections: new, kept alive, and the Nagle stall");
  core::Table& t = doc.AddTable("rows", "Sequential GETs",
                                {{"protocol", "protocol"},
                                 {"connection", "connection"},
                                 {"throughput_per_s", "req/s", 0},
                                 {"ms_per_request", "ms per request", 3},
                                 {"connects", "new connections"},
                                 {"stalls", "delayed-ACK stalls"}});
  struct Variant {
    const char* name;
    bool keep_alive, nodelay;
  };
  const Variant variants[] = {{"new per call", false, false},
                              {"keep-alive", true, false},
                              {"keep-alive + TCP_NODELAY", true, true}};
  const int64_t calls = p.Integer("calls");
  for (bool tls : {false, true}) {
    for (const Variant& v : variants) {
      HttpOptions o;
      o.keep_alive = v.keep_alive;
      o.tcp_nodelay = v.nodelay;
      o.two_writes = p.Text("response_writes") == "2";
      o.tls = tls;
      o.call = MsToNs(p.Number("call_ms"));
      o.connect = MsToNs(p.Number("connect_ms"));
      o.tls_handshake = MsToNs(p.Number("tls_handshake_ms"));
      o.tls_per_call = MsToNs(p.Number("tls_per_call_ms"));
      o.delayed_ack = MsToNs(p.Number("delayed_ack_ms"));
      Simulation sim(BudgetFrom(p));
      HttpClient http(sim, o);
      Time end = 0;
      sim.Spawn(Sequential(sim, http, calls, 0, end));
      if (absl::Status s = sim.Run(kForever); !s.ok()) return s;
      t.Add({std::string(tls ? "HTTPS" : "HTTP"), std::string(v.name),
             static_cast<double>(calls) / ToSec(end),
             ToMs(end) / static_cast<double>(calls), http.stats().connects,
             http.stats().stalls});
    }
  }
  doc.Note(
      "A fresh connection starts in quick-ACK mode; on a reused one the "
      "server's second small write waits for an ACK the client delays.");
  return doc;
}

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

// ---- cache: hit ratio against key skew and cache size.
absl::StatusOr<core::Document> RunCache(const Params& p, uint64_t seed) {
  core::Document doc("Cache: key skew against hit ratio");
  core::Table& t = doc.AddTable("rows", "Key streams",
                                {{"keys", "keys"},
                                 {"max_entries", "cache size", 0},
                                 {"hit_ratio", "hit ratio", 4},
                                 {"evictions", "evictions"},
                                 {"expirations", "expirations"},
                                 {"mean_ms", "mean latency (ms)", 3}});
  const int64_t n = p.Integer("key_space");
  const double rate = p.Number("rate_per_s");
  const int64_t lookups = p.Integer("lookups");
  for (const char* kind : {"uniform", "skewed", "zipf"}) {
    const KeyStream::Kind k =
        std::string(kind) == "uniform"  ? KeyStream::Kind::kUniform
        : std::string(kind) == "skewed" ? KeyStream::Kind::kSkewed
                                        : KeyStream::Kind::kZipf;
    absl::StatusOr<KeyStream> keys =
        KeyStream::Create(k, n, p.Number("zipf_s"));
    if (!keys.ok()) return keys.status();
    for (double size : p.Numbers("sizes")) {
      Cache cache({static_cast<int64_t>(size), SecToNs(p.Number("ttl_s"))});
      Rng rng(seed, absl::StrCat("keys/", kind));
      // Lookups arrive at a constant rate; virtual time only drives the TTL.
      const Time gap = SecToNs(1.0 / rate);
      const double hit_ms = p.Number("hit_ms"), miss_ms = p.Number("miss_ms");
      double total_ms = 0;
      for (int64_t i = 0; i < lookups; ++i) {
        const int64_t key = keys->Next(rng);
        if (cache.Get(key, i * gap)) {
          total_ms += hit_ms;
        } else {
          total_ms += miss_ms;
          cache.Put(key, i * gap);
        }
      }
      const CacheStats& s = cache.stats();
      t.Add({std::string(kind), size, s.hit_ratio(), s.evictions, s.expirations,
             total_ms / static_cast<double>(lookups)});
    }
  }
  doc.Note(
      "skewed keys are 1 + n u^3 (the case study's customers): about half the "
      "traffic lands on ~3 % of the keys.");
  return doc;
}

}  // namespace

Scenario HttpConnectionsScenario() {
  return {
      "http-connections",
      "2,000 sequential GETs: new connections, keep-alive, Nagle stall, TLS",
      {IntKey("calls", "2000", 1, 100000000, "sequential GETs per variant"),
       NumKey("call_ms", "0.569", 0, 1e6, "warm round trip + handling (ms)"),
       NumKey("connect_ms", "0.707", 0, 1e6, "TCP connect + accept (ms)"),
       NumKey("tls_handshake_ms", "4.34", 0, 1e6, "TLS handshake (ms)"),
       NumKey("tls_per_call_ms", "0.379", 0, 1e6, "TLS cost per call (ms)"),
       NumKey("delayed_ack_ms", "40", 0, 1e6, "client delayed-ACK timer (ms)"),
       ChoiceKey("response_writes", "2", {"1", "2"},
                 "server writes per response (2 triggers Nagle)"),
       MaxPendingKey()},
      RunHttp};
}

Scenario GcHeapScenario() {
  return {
      "gc-heap",
      "a 206 MiB live set in 256 vs 768 MiB heaps: young-GC count and pauses",
      {ListKey("heaps_mib", "256,512,768", 0, 1e6, "heap sizes (MiB)", true),
       NumKey("live_set_mib", "206", 0, 1e6, "live set (MiB)"),
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

Scenario CacheScenario() {
  return {
      "cache",
      "hit ratio of an LRU + TTL cache under uniform, skewed and Zipf keys",
      {IntKey("key_space", "5000", 1, 100000000, "distinct keys"),
       ListKey("sizes", "100,500,1000,5000", 1, 1e8, "cache sizes (entries)"),
       NumKey("ttl_s", "30", 0, 1e7, "time to live (s)", true),
       NumKey("rate_per_s", "1000", 0, 1e9, "lookups per second", true),
       IntKey("lookups", "200000", 1, 100000000, "lookups per row"),
       NumKey("zipf_s", "1", 0, 10, "Zipf exponent"),
       NumKey("hit_ms", "0.05", 0, 1e6, "latency of a hit (ms)"),
       NumKey("miss_ms", "5", 0, 1e6, "latency of a miss: the query (ms)"),
       MaxPendingKey()},
      RunCache};
}

const ScenarioRegistration kHttpConnections(HttpConnectionsScenario);
const ScenarioRegistration kGcHeap(GcHeapScenario);
const ScenarioRegistration kCache(CacheScenario);

}  // namespace perflab::sim
