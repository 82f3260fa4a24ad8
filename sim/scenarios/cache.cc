// cache (capstone chapter, step 8): hit ratio of an LRU + TTL cache under
// uniform, skewed and Zipf keys, against cache size.
#include "sim/cache.h"

#include <cstdint>
#include <string>

#include "absl/strings/str_cat.h"
#include "sim/random.h"
#include "sim/scenarios/internal/common.h"

namespace perflab::sim {
namespace {

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

Scenario CacheScenario() {
  return {
      "cache",
      "hit ratio of an LRU + TTL cache under uniform, skewed and Zipf keys",
      {IntKey("key_space", "5000", 1, 100000000, "distinct keys"),
       ListKey("sizes", "100,500,1000,5000", 1, 1e8, "cache sizes (entries)"),
       NumKey("ttl_s", DefaultText(case_study::kCacheTtlS), 0, 1e7,
              "time to live (s)", true),
       NumKey("rate_per_s", "1000", 0, 1e9, "lookups per second", true),
       IntKey("lookups", "200000", 1, 100000000, "lookups per row"),
       NumKey("zipf_s", "1", 0, 10, "Zipf exponent"),
       NumKey("hit_ms", "0.05", 0, 1e6, "latency of a hit (ms)"),
       NumKey("miss_ms", "5", 0, 1e6, "latency of a miss: the query (ms)"),
       MaxPendingKey()},
      RunCache};
}

const ScenarioRegistration kCache(CacheScenario);

}  // namespace perflab::sim
