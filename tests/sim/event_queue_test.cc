#include "sim/internal/event_queue.h"

#include <algorithm>
#include <cstdint>
#include <random>
#include <set>
#include <utility>
#include <vector>

#include "gtest/gtest.h"

namespace perflab::sim::internal {
namespace {

// The reference: a std::set of (time, seq), which orders by construction.
using Key = std::pair<int64_t, uint64_t>;

Event At(int64_t time, uint64_t seq) {
  return {time, seq, nullptr, nullptr, seq * 7};
}

// Pushes and pops at random, as the engine does (every push at or after the
// last time taken out), and checks every pop against the set's minimum.
void CheckAgainstASet(uint64_t seed, int64_t spread, int ops) {
  std::mt19937_64 gen(seed);
  EventQueue q;
  std::set<Key> want;
  uint64_t seq = 0;
  int64_t now = 0;
  for (int i = 0; i < ops; ++i) {
    const bool push = want.empty() || gen() % 3 != 0;
    if (push) {
      // Reserved positions: some seqs are older than ones already queued.
      const uint64_t s =
          gen() % 5 == 0 && seq > 10 ? seq - 1 - gen() % 10 : seq + 100;
      seq += 100;
      const int64_t t = now + static_cast<int64_t>(gen() % spread);
      if (want.insert({t, s}).second) q.Push(At(t, s));
    } else {
      ASSERT_EQ(q.MinTime(), want.begin()->first) << i;
      q.Settle();
      const Event& e = q.Front();
      ASSERT_EQ(Key(e.time, e.seq), *want.begin()) << i;
      EXPECT_EQ(e.arg, e.seq * 7);
      now = e.time;
      want.erase(want.begin());
      q.Pop();
    }
    ASSERT_EQ(q.size(), want.size());
  }
  while (!want.empty()) {
    q.Settle();
    ASSERT_EQ(Key(q.Front().time, q.Front().seq), *want.begin());
    want.erase(want.begin());
    q.Pop();
  }
  EXPECT_TRUE(q.empty());
  EXPECT_EQ(q.MinTime(), EventQueue::kNone);
}

TEST(EventQueue, PopsInTimeThenSeqOrderLikeASortedSet) {
  // Few distinct times (many ties on seq), then times over 40 bits.
  for (uint64_t seed : {1u, 2u, 3u}) {
    CheckAgainstASet(seed, 4, 20000);
    CheckAgainstASet(seed, 1000, 20000);
    CheckAgainstASet(seed, int64_t{1} << 40, 20000);
  }
}

TEST(EventQueue, MinTimeIsExactBeforeSettling) {
  EventQueue q;
  q.Push(At(900, 1));
  q.Push(At(300, 2));
  q.Push(At(600, 3));
  EXPECT_EQ(q.MinTime(), 300);
  EXPECT_EQ(q.floor(), 0);  // nothing moved until the caller commits
  // An earlier push is still allowed: the floor has not risen.
  q.Push(At(100, 4));
  EXPECT_EQ(q.MinTime(), 100);
  q.Settle();
  EXPECT_EQ(q.floor(), 100);
  EXPECT_EQ(q.Front().seq, 4u);
}

TEST(EventQueue, EqualTimesComeOutBySeqWhateverThePushOrder) {
  EventQueue q;
  for (uint64_t s : {5u, 1u, 4u, 2u, 3u}) q.Push(At(50, s));
  q.Push(At(40, 9));
  std::vector<uint64_t> got;
  while (!q.empty()) {
    q.Settle();
    got.push_back(q.Front().seq);
    q.Pop();
    // Pushed at the floor while its time is being drained: seq 0 is older
    // than everything left there, so it comes next.
    if (got.size() == 2) q.Push(At(50, 0));
  }
  EXPECT_EQ(got, (std::vector<uint64_t>{9, 1, 0, 2, 3, 4, 5}));
}

// Sizes that hover around the array's capacity: the queue turns into the
// radix heap and back many times, and every pop must still be the set's
// minimum (pushes only at or after the last time taken out, as the engine
// does).
TEST(EventQueue, CrossingBetweenArrayAndRadixHeapKeepsTheOrder) {
  std::mt19937_64 gen(7);
  EventQueue q;
  std::set<Key> want;
  uint64_t seq = 0;
  int64_t now = 0;
  int crossings = 0;
  bool was_many = false;
  for (int i = 0; i < 50000; ++i) {
    // Push while below a target that moves between 0 and 2 * kFew.
    const size_t target = (i / 40) % (2 * EventQueue::kFew + 1);
    if (want.size() < target || want.empty()) {
      const int64_t t = now + static_cast<int64_t>(gen() % 64);
      seq += 1 + gen() % 3;
      want.insert({t, seq});
      q.Push(At(t, seq));
    } else {
      q.Settle();
      ASSERT_EQ(Key(q.Front().time, q.Front().seq), *want.begin()) << i;
      now = q.Front().time;
      want.erase(want.begin());
      q.Pop();
    }
    const bool many = want.size() > EventQueue::kFew;
    crossings += many != was_many;
    was_many = many;
    ASSERT_EQ(q.size(), want.size());
  }
  EXPECT_GT(crossings, 100);  // the test exercised both directions
}

}  // namespace
}  // namespace perflab::sim::internal
