// The order service's connection pool: it lends each item once at a time,
// gives up at its timeout when nothing is free, and a returned item
// reaches the next thread that asks.
#include "bench/order_service/borrow_pool.h"

#include <set>
#include <thread>

#include "gtest/gtest.h"

namespace perflab::orders {
namespace {

TEST(BorrowPoolTest, LendsEachItemOnceAndNothingWhenAllAreOut) {
  int a = 1, b = 2;
  BorrowPool<int> pool;
  pool.Add(&a);
  pool.Add(&b);
  int* first = pool.Acquire(1000);
  int* second = pool.Acquire(1000);
  EXPECT_EQ((std::set<int*>{first, second}), (std::set<int*>{&a, &b}));
  // Both are out: the shortest wait ends with nothing.
  EXPECT_EQ(pool.Acquire(0.001), nullptr);
  pool.Release(second);
  EXPECT_EQ(pool.Acquire(1000), second);
}

TEST(BorrowPoolTest, AReturnedItemReachesAThreadAskingForIt) {
  int only = 7;
  BorrowPool<int> pool;
  pool.Add(&only);
  int* held = pool.Acquire(1000);
  ASSERT_EQ(held, &only);
  int* got = nullptr;
  // Asking before or after the return (no sleep decides which), the
  // waiter gets the item only through the Release below.
  std::thread waiter([&] { got = pool.Acquire(10'000); });
  pool.Release(held);
  waiter.join();
  EXPECT_EQ(got, &only);
}

}  // namespace
}  // namespace perflab::orders
