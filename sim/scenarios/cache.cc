// cache (capstone chapter, step 8): hit ratio of an LRU + TTL cache under
// uniform, skewed and Zipf keys, against cache size.
#include "sim/cache.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "sim/random.h"
#include "sim/scenarios/internal/common.h"

namespace perflab::sim {
namespace {

struct Row {
  double hit_ratio = 0;       // after the warm-up
  double cold_hit_ratio = 0;  // the same count of lookups from an empty cache
  CacheStats stats;           // the measured lookups
  double mean_ms = 0;
  double hot_share = 0;  // share of measured lookups on the hottest keys
};

// Lookups at a constant rate (virtual time only drives the TTL): `cold`
// lookups counted from empty, then the measured `lookups` after `warm` more.
Row Simulate(const KeyStream& keys, CacheOptions options, Rng& rng, double rate,
             int64_t warmup, int64_t lookups, double hit_ms, double miss_ms,
             int64_t hot_keys) {
  Cache cache(options);
  const Time gap = SecToNs(1.0 / rate);
  Row r;
  int64_t cold_hits = 0, hits = 0, hot = 0;
  double total_ms = 0;
  const int64_t cold = lookups;
  const int64_t measure_from = std::max(cold, warmup);
  for (int64_t i = 0; i < measure_from + lookups; ++i) {
    if (i == measure_from) cache.ResetStats();
    const int64_t key = keys.Next(rng);
    const bool hit = cache.Get(key, i * gap);
    if (!hit) cache.Put(key, i * gap);
    if (i < cold && hit) ++cold_hits;
    if (i >= measure_from) {
      hits += hit ? 1 : 0;
      hot += key <= hot_keys ? 1 : 0;
      total_ms += hit ? hit_ms : miss_ms;
    }
  }
  const auto n = static_cast<double>(lookups);
  r.cold_hit_ratio = static_cast<double>(cold_hits) / n;
  r.hit_ratio = static_cast<double>(hits) / n;
  r.stats = cache.stats();
  r.mean_ms = total_ms / n;
  r.hot_share = static_cast<double>(hot) / n;
  return r;
}

absl::StatusOr<KeyStream> Keys(const std::string& kind, int64_t n,
                               double zipf_s) {
  const KeyStream::Kind k = kind == "uniform"  ? KeyStream::Kind::kUniform
                            : kind == "skewed" ? KeyStream::Kind::kSkewed
                                               : KeyStream::Kind::kZipf;
  return KeyStream::Create(k, n, zipf_s);
}

// The warm-up's lookups (warmup_s x rate_per_s per row) are bounded like
// the measured ones, and the last lookup's time must be a number of ns an
// int64 holds (292 years): a rate of 1e9 with 60 s of warm-up is 6e10
// lookups per row, and 1e-300 puts the second lookup past the clock's end.
absl::Status CheckLookups(const Params& p) {
  const double rate = p.Number("rate_per_s");
  const int64_t lookups = p.Integer("lookups");
  constexpr double kMaxLookups = 1e8, kMaxSpanS = 1e9;
  const double warm = p.Number("warmup_s") * rate;
  if (warm > kMaxLookups) {
    return absl::InvalidArgumentError(absl::StrCat(
        "key 'warmup_s' = '", p.Text("warmup_s"), "' with rate_per_s = ",
        p.Text("rate_per_s"), ": ", absl::StrFormat("%g", warm),
        " warm-up lookups per row; accepted warmup_s x rate_per_s <= 1e8"));
  }
  const double n = static_cast<double>(lookups);
  const double span_s = (std::max(warm, n) + n) / rate;
  if (span_s > kMaxSpanS) {
    return absl::InvalidArgumentError(absl::StrCat(
        "key 'rate_per_s' = '", p.Text("rate_per_s"), "': the lookups span ",
        absl::StrFormat("%g", span_s),
        " s of virtual time; accepted (max(warmup_s x rate_per_s, lookups) + "
        "lookups) / rate_per_s <= 1e9 s"));
  }
  return absl::OkStatus();
}

// Every row looks its keys up from an empty cache: the cold lookups, the
// warm-up's (at least as many) and the measured ones, for three key streams
// and each size. About 1e7 lookups a second here: the bound is seconds.
double Lookups(const Params& p) {
  const double lookups = static_cast<double>(p.Integer("lookups"));
  const double warm = p.Number("warmup_s") * p.Number("rate_per_s");
  return 3 * static_cast<double>(p.Numbers("sizes").size()) *
         (std::max(lookups, warm) + lookups);
}

// ---- cache: hit ratio against key skew and cache size.
absl::StatusOr<core::Document> RunCache(const Params& p, uint64_t seed) {
  core::Document doc("Cache: key skew against hit ratio");
  core::Table& t = doc.AddTable("rows", "Key streams",
                                {{"keys", "keys"},
                                 {"max_entries", "cache size", 0},
                                 {"hit_ratio", "hit ratio (after warm-up)", 4},
                                 {"cold_hit_ratio", "hit ratio from empty", 4},
                                 {"evictions", "evictions"},
                                 {"expirations", "expirations"},
                                 {"mean_ms", "mean latency (ms)", 3}});
  const int64_t n = p.Integer("key_space");
  const double rate = p.Number("rate_per_s");
  const int64_t lookups = p.Integer("lookups");
  const auto warmup = static_cast<int64_t>(p.Number("warmup_s") * rate);
  // The hottest 3 % of the keys: what the case study's prose talks about.
  const int64_t hot_keys = std::max<int64_t>(1, n * 3 / 100);
  double skewed_hot_share = 0;
  for (const std::string kind : {"uniform", "skewed", "zipf"}) {
    absl::StatusOr<KeyStream> keys = Keys(kind, n, p.Number("zipf_s"));
    if (!keys.ok()) return keys.status();
    for (double size : p.Numbers("sizes")) {
      Rng rng(seed, absl::StrCat("keys/", kind));
      const Row r = Simulate(
          *keys, {static_cast<int64_t>(size), SecToNs(p.Number("ttl_s"))}, rng,
          rate, warmup, lookups, p.Number("hit_ms"), p.Number("miss_ms"),
          hot_keys);
      if (kind == "skewed") skewed_hot_share = r.hot_share;
      t.Add({kind, size, r.hit_ratio, r.cold_hit_ratio, r.stats.evictions,
             r.stats.expirations, r.mean_ms});
    }
  }
  // 1 + floor(n u^3) <= k exactly when u < (k/n)^(1/3).
  const double formula_hot =
      std::cbrt(static_cast<double>(hot_keys) / static_cast<double>(n));
  doc.Set("skewed_hot_share_measured",
          "skewed keys: traffic on the hottest 3 % of keys (measured)",
          skewed_hot_share, 3);
  doc.Set("skewed_hot_share_formula",
          "skewed keys: traffic on the hottest 3 % of keys (formula)",
          formula_hot, 3);
  doc.Note(absl::StrCat(
      "skewed keys are 1 + n u^3 (the case study's customers): P(key <= k) = "
      "(k/n)^(1/3), so the hottest 3 % of keys get ",
      absl::StrFormat("%.0f", formula_hot * 100), " % of the traffic (",
      absl::StrFormat("%.0f", skewed_hot_share * 100),
      " % measured) and half the traffic needs the hottest ",
      absl::StrFormat("%.1f", 0.125 * 100),
      " % (0.5^3). The case study's prose says half on ~3 %; its code is "
      "this formula."));
  doc.Note(absl::StrCat(
      "Hit ratios are counted after a ", p.Text("warmup_s"),
      " s warm-up; 'from empty' counts the first lookups of a cold cache, "
      "whose first touch of every key is a miss."));
  namespace cs = case_study;
  if (n == cs::kCustomers && p.Number("ttl_s") == cs::kCacheTtlS) {
    absl::StatusOr<KeyStream> keys = Keys("skewed", n, 1);
    if (!keys.ok()) return keys.status();
    Rng rng(seed, "keys/case-study");
    const Row r = Simulate(
        *keys, {cs::kCacheEntries, SecToNs(cs::kCacheTtlS)}, rng,
        cs::kCacheStepPerS,
        static_cast<int64_t>(p.Number("warmup_s") * cs::kCacheStepPerS),
        // Four whole TTLs: entries written together expire together, so a
        // window that is not a whole number of TTLs over- or under-counts a
        // wave of misses.
        static_cast<int64_t>(4 * cs::kCacheTtlS * cs::kCacheStepPerS),
        p.Number("hit_ms"), p.Number("miss_ms"), hot_keys);
    AddCaseStudyTable(doc, {{"hits, 10k entries, 30 s TTL, 5,293 req/s (%)",
                             cs::kCacheHitRatio * 100, r.hit_ratio * 100}});
  }
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
              "time to live (s)", LowerBound::kOpen),
       NumKey("rate_per_s", "1000", 0, 1e9, "lookups per second",
              LowerBound::kOpen),
       IntKey("lookups", "200000", 1, 100000000, "measured lookups per row"),
       NumKey("warmup_s", "60", 0, 1e7,
              "lookups in this much time before measuring (s)"),
       NumKey("zipf_s", "1", 0, 10, "Zipf exponent"),
       NumKey("hit_ms", "0.05", 0, 1e6, "latency of a hit (ms)"),
       NumKey("miss_ms", "5", 0, 1e6, "latency of a miss: the query (ms)"),
       MaxPendingKey()},
      RunCache,
      {"3 x count(sizes) x (max(lookups, warmup_s x rate_per_s) + lookups)",
       5e7, "lookups", Lookups},
      CheckLookups};
}

const ScenarioRegistration kCache(CacheScenario);

}  // namespace perflab::sim
