#include "bench/order_service/orders.h"

#include "bench/order_service/customer_picker.h"
#include "bench/order_service/dataset.h"
#include "gtest/gtest.h"
#include "tests/order_service/known_db.h"
#include "tests/order_service/test_db.h"

namespace perflab::orders {
namespace {

using testing::SmallDatabase;

std::unique_ptr<OrderRepository> Open(RepositoryOptions options = {}) {
  auto repo = OrderRepository::Open(SmallDatabase(), options);
  EXPECT_TRUE(repo.ok()) << repo.status();
  return repo.ok() ? std::move(*repo) : nullptr;
}

int64_t Customers() {
  return ShapeFor({.scale = testing::kTestScale})->customers;
}

TEST(OrdersTest, PageHasTwentyNewestOrdersWithThreeItemsEach) {
  auto repo = Open();
  auto page = repo->LoadPageJoin(7);
  ASSERT_TRUE(page.ok()) << page.status();
  ASSERT_EQ(page->orders.size(), 20u);
  for (size_t i = 0; i < page->orders.size(); ++i) {
    EXPECT_EQ(page->orders[i].items.size(), 3u);
    if (i > 0) {
      EXPECT_GE(page->orders[i - 1].created_at, page->orders[i].created_at);
    }
    for (const Item& it : page->orders[i].items) {
      EXPECT_EQ(it.product, "product-" + std::to_string(it.product_id));
    }
  }
}

TEST(OrdersTest, NPlusOneIssues81StatementsJoinOne) {
  auto repo = Open();
  ASSERT_TRUE(repo->LoadPageNPlusOne(3).ok());
  EXPECT_EQ(repo->stats().statements, 81);
  EXPECT_EQ(repo->stats().rows_read, 20 + 60 + 60);
  repo->ResetStats();
  ASSERT_TRUE(repo->LoadPageJoin(3).ok());
  EXPECT_EQ(repo->stats().statements, 1);
  EXPECT_EQ(repo->stats().rows_read, 60);
}

TEST(OrdersTest, NPlusOnePageEqualsJoinPageForEveryCustomer) {
  auto repo = Open();
  for (int64_t c = 1; c <= Customers(); ++c) {
    auto slow = repo->LoadPageNPlusOne(c);
    auto fast = repo->LoadPageJoin(c);
    ASSERT_TRUE(slow.ok() && fast.ok());
    ASSERT_EQ(*slow, *fast) << "customer " << c;
  }
}

TEST(OrdersTest, ScanAndIndexReturnTheSameRows) {
  auto index = Open({.access = OrdersAccess::kIndex});
  auto scan = Open({.access = OrdersAccess::kScan});
  CustomerPicker pick(Customers(), /*skewed=*/false, 11);
  for (int i = 0; i < 50; ++i) {
    int64_t c = pick.Next();
    auto a = index->NewestOrders(c);
    auto b = scan->NewestOrders(c);
    ASSERT_TRUE(a.ok() && b.ok());
    ASSERT_EQ(a->size(), 20u);
    ASSERT_EQ(*a, *b) << "customer " << c;
    auto pa = index->LoadPageJoin(c);
    auto pb = scan->LoadPageJoin(c);
    ASSERT_TRUE(pa.ok() && pb.ok());
    ASSERT_EQ(*pa, *pb) << "customer " << c;
  }
  // The scan examines the whole table; the index none of it.
  // (The join's only full-scan steps walk its materialised 20-row subquery.)
  EXPECT_LE(index->stats().fullscan_steps, 50 * 20);
  EXPECT_GE(scan->stats().fullscan_steps, 50 * 2 * 4000 - 100);
}

TEST(OrdersTest, PreparePerCallGivesTheSamePage) {
  auto once = Open();
  auto each = Open({.prepare_per_call = true});
  for (int64_t c : {1, 50, 100}) {
    EXPECT_EQ(*once->LoadPageNPlusOne(c), *each->LoadPageNPlusOne(c));
    EXPECT_EQ(*once->LoadPageJoin(c), *each->LoadPageJoin(c));
  }
  EXPECT_EQ(each->stats().statements, 3 * 82);
}

// Every way of reading a page against pages written out by hand from a tiny
// database (tests/order_service/known_db.h), not against another of the same
// helpers.
TEST(OrdersTest, PagesMatchHandWrittenRows) {
  testing::KnownDatabase db("orders_test_known");
  const Page want = testing::KnownDatabase::CustomerOnePage();
  const Page want_two{2, {{13, "NEW", 99.95, 5000, {{1, "anvil", 1, 99.95}}}}};
  for (OrdersAccess access : {OrdersAccess::kIndex, OrdersAccess::kScan}) {
    for (bool per_call : {false, true}) {
      SCOPED_TRACE(::testing::Message()
                   << "scan " << (access == OrdersAccess::kScan)
                   << " prepare_per_call " << per_call);
      auto repo = OrderRepository::Open(
          db.uri(), {.access = access, .prepare_per_call = per_call});
      ASSERT_TRUE(repo.ok()) << repo.status();
      auto heads = (*repo)->NewestOrders(1);
      ASSERT_TRUE(heads.ok()) << heads.status();
      ASSERT_EQ(heads->size(), 4u);
      for (size_t i = 0; i < heads->size(); ++i) {
        Order head = want.orders[i];
        head.items.clear();
        EXPECT_EQ((*heads)[i], head) << "order " << i;
      }
      EXPECT_EQ(*(*repo)->LoadPageJoin(1), want);
      EXPECT_EQ(*(*repo)->LoadPageNPlusOne(1), want);
      EXPECT_EQ(*(*repo)->LoadPageJoin(2), want_two);
      EXPECT_EQ(*(*repo)->LoadPageNPlusOne(2), want_two);
      EXPECT_EQ(*(*repo)->LoadPageJoin(3), (Page{3, {}}));  // no orders
    }
  }
}

TEST(OrdersTest, CustomerPickerStaysInRangeAndSkews) {
  CustomerPicker skewed(5000, true, 1), uniform(5000, false, 1);
  int hot_skewed = 0, hot_uniform = 0;
  for (int i = 0; i < 100000; ++i) {
    int64_t a = skewed.Next(), b = uniform.Next();
    ASSERT_GE(a, 1);
    ASSERT_LE(a, 5000);
    ASSERT_GE(b, 1);
    ASSERT_LE(b, 5000);
    hot_skewed += a <= 150;  // 3 % of customers
    hot_uniform += b <= 150;
  }
  // u^3 < 0.03 for u < 0.31: about 31 % of the traffic on the first 3 %.
  EXPECT_NEAR(hot_skewed / 100000.0, 0.31, 0.01);
  EXPECT_NEAR(hot_uniform / 100000.0, 0.03, 0.005);
}

}  // namespace
}  // namespace perflab::orders
