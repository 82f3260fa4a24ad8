// Resource: FIFO grants, timed-out acquires and the statistics they leave.
#include "sim/resource.h"

#include <vector>

#include "gtest/gtest.h"
#include "sim/engine.h"

namespace perflab::sim {
namespace {

Process Holder(Simulation& sim, Resource& r, Time arrive, Time hold,
               Time timeout, std::vector<int>& order, int id,
               std::vector<bool>& got) {
  co_await sim.Delay(arrive);
  const bool ok = co_await r.Acquire(timeout);
  got[id] = ok;
  if (!ok) co_return;
  order.push_back(id);
  co_await sim.Delay(hold);
  r.Release();
}

TEST(ResourceTest, GrantsInFifoOrder) {
  Simulation sim;
  Resource r(sim, "pool", 1);
  std::vector<int> order;
  std::vector<bool> got(4);
  for (int i = 0; i < 4; ++i) {
    sim.Spawn(Holder(sim, r, i, 10, Resource::kNoTimeout, order, i, got));
  }
  ASSERT_TRUE(sim.Run(1000).ok());
  EXPECT_EQ(order, (std::vector<int>{0, 1, 2, 3}));
  const ResourceStats s = r.Stats();
  EXPECT_EQ(s.grants, 4);
  EXPECT_EQ(s.timeouts, 0);
  // Waits 0, 9, 18, 27 ns: mean 13.5 ns.
  EXPECT_NEAR(s.mean_wait_s * 1e9, 13.5, 1e-9);
  EXPECT_NEAR(s.utilisation, 40.0 / 1000, 1e-12);
}

TEST(ResourceTest, TimedOutAcquireIsCountedWithItsWait) {
  Simulation sim;
  Resource r(sim, "pool", 1);
  std::vector<int> order;
  std::vector<bool> got(3);
  sim.Spawn(Holder(sim, r, 0, 100, 50, order, 0, got));  // holds 0..100
  sim.Spawn(Holder(sim, r, 10, 5, 50, order, 1, got));   // gives up at 60
  sim.Spawn(Holder(sim, r, 20, 5, 200, order, 2, got));  // gets it at 100
  ASSERT_TRUE(sim.Run(1000).ok());
  EXPECT_EQ(got, (std::vector<bool>{true, false, true}));
  EXPECT_EQ(order, (std::vector<int>{0, 2}));
  const ResourceStats s = r.Stats();
  EXPECT_EQ(s.timeouts, 1);
  EXPECT_EQ(s.first_timeout, 60);
  EXPECT_NEAR(s.timed_out_wait_s * 1e9, 50, 1e-9);
  EXPECT_EQ(s.max_queue_length, 2);
  // Queue: one waiter 10..20, two 20..60, one 60..100 over 1000 ns.
  EXPECT_NEAR(s.mean_queue_length, (10 + 80 + 40) / 1000.0, 1e-12);
}

// Untimed and timed waits share one FIFO: a timed wait that gave up leaves
// a stale entry, which the next release skips to reach the waiter behind it.
TEST(ResourceTest, UntimedAndTimedWaitsShareOneFifo) {
  Simulation sim;
  Resource r(sim, "pool", 1);
  std::vector<int> order;
  std::vector<bool> got(5);
  const Time none = Resource::kNoTimeout;
  sim.Spawn(Holder(sim, r, 0, 100, none, order, 0, got));  // holds 0..100
  sim.Spawn(Holder(sim, r, 10, 5, none, order, 1, got));   // 100..105
  sim.Spawn(Holder(sim, r, 20, 5, 30, order, 2, got));     // gives up at 50
  sim.Spawn(Holder(sim, r, 30, 5, 200, order, 3, got));    // 105..110
  sim.Spawn(Holder(sim, r, 40, 5, none, order, 4, got));   // 110..115
  ASSERT_TRUE(sim.Run(1000).ok());
  EXPECT_EQ(got, (std::vector<bool>{true, true, false, true, true}));
  EXPECT_EQ(order, (std::vector<int>{0, 1, 3, 4}));
  const ResourceStats s = r.Stats();
  EXPECT_EQ(s.grants, 4);
  EXPECT_EQ(s.timeouts, 1);
  EXPECT_EQ(s.first_timeout, 50);
  EXPECT_NEAR(s.timed_out_wait_s * 1e9, 30, 1e-9);
  // Waits 0, 90, 75 and 70 ns.
  EXPECT_NEAR(s.mean_wait_s * 1e9, 235 / 4.0, 1e-9);
  EXPECT_EQ(s.max_queue_length, 4);
  // Waiters 1, 2, 3, 4 over 10 ns each from t = 10, 3 for 50..100 (one gave
  // up), then 2 for 5 ns and 1 for 5 ns.
  EXPECT_NEAR(s.mean_queue_length, (10 + 20 + 30 + 40 + 150 + 10 + 5) / 1000.0,
              1e-12);
  EXPECT_NEAR(s.utilisation, 115 / 1000.0, 1e-12);
}

// A unit held from 0 to 30 ns and regranted at 10 ns (the holder gives it
// back and takes it again at once): two grants without a wait, the unit
// busy for 30 of the 40 ns observed, out of a capacity of 2.
Process Regranting(Simulation& sim, Resource& r) {
  co_await r.Acquire();
  co_await sim.Delay(10);
  r.Regrant();
  co_await sim.Delay(20);
  r.Release();
}

TEST(ResourceTest, ARegrantIsOneGrantMoreAndNothingElse) {
  Simulation sim;
  Resource r(sim, "pool", 2);
  sim.Spawn(Regranting(sim, r));
  ASSERT_TRUE(sim.Run(40).ok());
  const ResourceStats s = r.Stats();
  EXPECT_EQ(s.grants, 2);
  EXPECT_EQ(s.mean_wait_s, 0);
  EXPECT_EQ(s.utilisation, 30.0 / (2 * 40));
  EXPECT_EQ(r.in_use(), 0);
}

}  // namespace
}  // namespace perflab::sim
