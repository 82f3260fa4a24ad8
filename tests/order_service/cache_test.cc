#include "bench/order_service/cache.h"

#include "absl/strings/str_cat.h"
#include "bench/order_service/customer_picker.h"
#include "bench/order_service/payload.h"
#include "gtest/gtest.h"
#include "tests/order_service/known_db.h"
#include "tests/order_service/test_db.h"

namespace perflab::orders {
namespace {

Body Value(const char* s) { return std::make_shared<const std::string>(s); }

TEST(PageCacheTest, ExpiresAfterWriteAtTheTtl) {
  int64_t now = 0;
  PageCache cache(
      {.capacity = 10, .ttl_ns = 100, .now_ns = [&] { return now; }});
  cache.Put(1, Value("a"));
  now = 99;
  ASSERT_NE(cache.Get(1), nullptr);
  EXPECT_EQ(*cache.Get(1), "a");
  now = 100;
  EXPECT_EQ(cache.Get(1), nullptr);
  EXPECT_EQ(cache.size(), 0u);
  EXPECT_EQ(cache.hits(), 2);
  EXPECT_EQ(cache.misses(), 1);
}

TEST(PageCacheTest, EvictsTheLeastRecentlyUsedBeyondCapacity) {
  int64_t now = 0;
  PageCache cache(
      {.capacity = 2, .ttl_ns = 1000, .now_ns = [&] { return now; }});
  cache.Put(1, Value("a"));
  cache.Put(2, Value("b"));
  ASSERT_NE(cache.Get(1), nullptr);  // 2 is now the least recently used
  cache.Put(3, Value("c"));
  EXPECT_EQ(cache.size(), 2u);
  EXPECT_NE(cache.Get(1), nullptr);
  EXPECT_EQ(cache.Get(2), nullptr);
  EXPECT_NE(cache.Get(3), nullptr);
}

TEST(PageServiceTest, ServesTheHandWrittenBodyOnMissAndHit) {
  // The expected body is typed by hand from the rows of known_db.h, so a bug
  // anywhere on the miss path (query, row reading, serialisation) shows.
  testing::KnownDatabase db("cache_test_known");
  auto repo = OrderRepository::Open(db.uri());
  ASSERT_TRUE(repo.ok()) << repo.status();
  int64_t now = 0;
  PageCache cache({.ttl_ns = 100, .now_ns = [&] { return now; }});
  PageService service(repo->get(), &cache);
  const std::string want = testing::KnownDatabase::CustomerOneBody();
  auto miss = service.Get(1);
  ASSERT_TRUE(miss.ok()) << miss.status();
  EXPECT_EQ(**miss, want);
  EXPECT_EQ(cache.misses(), 1);
  auto hit = service.Get(1);
  ASSERT_TRUE(hit.ok());
  EXPECT_EQ(**hit, want);
  EXPECT_EQ(cache.hits(), 1);
  EXPECT_EQ(hit->get(), miss->get());  // the stored body, not a new one
  // Another key is not served customer 1's body.
  auto other = service.Get(2);
  ASSERT_TRUE(other.ok());
  EXPECT_EQ(**other,
            R"({"customer_id":2,"orders":[{"id":13,"status":"NEW",)"
            R"("total":99.95,"created_at":5000,"items":[{"product_id":1,)"
            R"("product":"anvil","qty":1,"price":99.95}]}]})");
  EXPECT_EQ(cache.misses(), 2);
  // Past the TTL the page is loaded again, with the same content.
  now = 100;
  auto reloaded = service.Get(1);
  ASSERT_TRUE(reloaded.ok());
  EXPECT_EQ(**reloaded, want);
  EXPECT_NE(reloaded->get(), miss->get());
  EXPECT_EQ(cache.misses(), 3);
}

TEST(PageServiceTest, CachedAndUncachedAgreeOnTheLabDatabase) {
  // On the generated data, where no page is known by hand: the cache must not
  // change what is served, whatever the key order (the hand-written check
  // above is what ties the content to the rows).
  auto repo = OrderRepository::Open(testing::SmallDatabase());
  ASSERT_TRUE(repo.ok());
  PageCache cache;
  PageService cached(repo->get(), &cache), direct(repo->get(), nullptr);
  CustomerPicker pick(100, /*skewed=*/true, 3);
  for (int i = 0; i < 300; ++i) {
    int64_t c = pick.Next();
    auto a = cached.Get(c);
    auto b = direct.Get(c);
    ASSERT_TRUE(a.ok() && b.ok());
    ASSERT_EQ(**a, **b) << "customer " << c;
    ASSERT_NE((*a)->find(absl::StrCat("{\"customer_id\":", c, ",")),
              std::string::npos);
  }
  EXPECT_GT(cache.hits(), 0);
  EXPECT_EQ(cache.hits() + cache.misses(), 300);
  EXPECT_EQ(static_cast<size_t>(cache.misses()), cache.size());
}

TEST(HitRatioTest, SkewBeatsUniformWhenKeysOutliveTheTtl) {
  // At 20 req/s a uniformly drawn customer comes back every ~250 s, long
  // after its 30 s entry expired; the skewed hot set stays cached.
  HitRatioOptions skewed{.skewed = true, .rate_per_s = 20};
  HitRatioOptions uniform{.skewed = false, .rate_per_s = 20};
  double s = SimulateHitRatio(skewed), u = SimulateHitRatio(uniform);
  EXPECT_GT(s, 0.2);
  EXPECT_GT(s, 2 * u);
  EXPECT_LT(u, 0.15);
  EXPECT_EQ(s, SimulateHitRatio(skewed));  // deterministic
}

TEST(HitRatioTest, TinyCacheHitsLess) {
  HitRatioOptions big{.rate_per_s = 1000};
  HitRatioOptions small = big;
  small.cache.capacity = 50;
  EXPECT_LT(SimulateHitRatio(small), SimulateHitRatio(big));
}

}  // namespace
}  // namespace perflab::orders
