// Task<T>: nested sub-coroutines that return values in virtual time.
#include "sim/task.h"

#include "gtest/gtest.h"
#include "sim/engine.h"

namespace perflab::sim {
namespace {

Task<int> AddLater(Simulation& sim, int a, int b) {
  co_await sim.Delay(10);
  co_return a + b;
}
Task<int> Nested(Simulation& sim) {
  const int x = co_await AddLater(sim, 1, 2);
  const int y = co_await AddLater(sim, x, 4);
  co_return y;
}
Process UseTask(Simulation& sim, int& out, Time& at) {
  out = co_await Nested(sim);
  at = sim.now();
}

TEST(TaskTest, NestedTasksReturnValuesInVirtualTime) {
  Simulation sim;
  int out = 0;
  Time at = -1;
  sim.Spawn(UseTask(sim, out, at));
  ASSERT_TRUE(sim.Run(100).ok());
  EXPECT_EQ(out, 7);
  EXPECT_EQ(at, 20);
}

TEST(TaskTest, DestroyingASuspendedProcessFreesItsTask) {
  int out = 0;
  Time at = -1;
  {
    Simulation sim;
    sim.Spawn(UseTask(sim, out, at));
    ASSERT_TRUE(sim.Run(5).ok());  // suspended inside the first AddLater
  }                                // ASan: no leak, no use after free
  EXPECT_EQ(at, -1);
}

// A holder that makes a task only on some paths (a fast path's awaiter):
// an empty Task holds no coroutine, one assigned a coroutine does, and a
// task assigned over an unawaited one frees it (ASan: no leak).
TEST(TaskTest, AnEmptyTaskHoldsNoCoroutineUntilAssignedOne) {
  Simulation sim;
  Task<int> task;
  EXPECT_FALSE(task.has_coroutine());
  task = AddLater(sim, 1, 2);
  EXPECT_TRUE(task.has_coroutine());
  task = AddLater(sim, 3, 4);
  EXPECT_TRUE(task.has_coroutine());
  Task<int> moved = std::move(task);
  EXPECT_FALSE(
      task.has_coroutine());  // NOLINT(bugprone-use-after-move): checked
  EXPECT_TRUE(moved.has_coroutine());
}

}  // namespace
}  // namespace perflab::sim
