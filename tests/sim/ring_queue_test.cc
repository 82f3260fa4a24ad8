#include "sim/internal/ring_queue.h"

#include <cstdint>
#include <deque>
#include <random>

#include "gtest/gtest.h"

namespace perflab::sim::internal {
namespace {

TEST(RingQueue, StartsEmptyAndKeepsFifoOrder) {
  RingQueue<int> q;
  EXPECT_TRUE(q.empty());
  EXPECT_EQ(q.size(), 0u);
  for (int i = 1; i <= 3; ++i) q.push_back(i);
  EXPECT_EQ(q.size(), 3u);
  EXPECT_EQ(q.front(), 1);
  EXPECT_EQ(q.back(), 3);
  q.pop_front();
  EXPECT_EQ(q.front(), 2);
  q.pop_front();
  q.pop_front();
  EXPECT_TRUE(q.empty());
}

// A queue that stays short reuses its first array: the indices run far past
// the capacity and wrap around it, and the order holds throughout.
TEST(RingQueue, WrapsAroundWithoutGrowing) {
  RingQueue<int> q;
  q.push_back(0);
  const size_t cap = q.capacity();
  int next_in = 1, next_out = 0;
  for (int round = 0; round < 1000; ++round) {
    q.push_back(next_in++);
    q.push_back(next_in++);
    ASSERT_EQ(q.front(), next_out++);
    q.pop_front();
    ASSERT_EQ(q.front(), next_out++);
    q.pop_front();
    ASSERT_EQ(q.back(), next_in - 1);
  }
  EXPECT_EQ(q.capacity(), cap);
  EXPECT_EQ(q.size(), 1u);
}

// Growing while the live entries straddle the end of the array: the copy
// must start at the oldest entry, not at index 0.
TEST(RingQueue, GrowsWhileWrappedAndKeepsOrder) {
  RingQueue<int> q;
  q.push_back(-1);
  const size_t cap = q.capacity();  // 8
  // Move the head to the middle, then fill the array to the brim.
  for (size_t i = 0; i < cap / 2; ++i) q.push_back(-1);
  for (size_t i = 0; i <= cap / 2; ++i) q.pop_front();
  for (size_t i = 0; i < cap; ++i) q.push_back(static_cast<int>(i));
  ASSERT_EQ(q.capacity(), cap);  // full and wrapped, not yet grown
  q.push_back(static_cast<int>(cap));
  EXPECT_EQ(q.capacity(), 2 * cap);
  for (size_t i = 0; i <= cap; ++i) {
    ASSERT_EQ(q.front(), static_cast<int>(i)) << "entry " << i;
    q.pop_front();
  }
  EXPECT_TRUE(q.empty());
}

// Random pushes and pops against std::deque, through several growths.
TEST(RingQueue, MatchesADequeUnderRandomUse) {
  std::mt19937_64 gen(38);
  RingQueue<uint64_t> q;
  std::deque<uint64_t> want;
  for (int i = 0; i < 200000; ++i) {
    // Slightly more pushes than pops, so the queue grows now and then.
    if (want.empty() || gen() % 100 < 52) {
      const uint64_t v = gen();
      q.push_back(v);
      want.push_back(v);
      ASSERT_EQ(q.back(), want.back());
    } else {
      ASSERT_EQ(q.front(), want.front()) << "pop " << i;
      q.pop_front();
      want.pop_front();
    }
    ASSERT_EQ(q.size(), want.size());
  }
  EXPECT_GT(want.size(), 1000u);  // it did grow past several capacities
}

}  // namespace
}  // namespace perflab::sim::internal
