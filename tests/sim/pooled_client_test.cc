// PooledClient, through a minimal client of its own: ResetStats restarts the
// counts and the pool, Safepoint and Blocked wait out a GC pause only when
// the client has a Gc. Expected times are worked out by hand in the comments.
#include "sim/pooled_client.h"

#include <cstdint>

#include "gtest/gtest.h"
#include "sim/engine.h"
#include "sim/gc.h"
#include "sim/task.h"
#include "tests/sim/process_helpers.h"

namespace perflab::sim {
namespace {

struct EchoOptions {
  Time wait = 0;  // blocking wait per call, holding the connection
};
struct EchoStats {
  int64_t calls = 0;
};

// A call takes a connection, waits out a pause in progress, blocks for
// `wait` and gives the connection back.
class Echo : public PooledClient<EchoOptions, EchoStats> {
 public:
  Echo(Simulation& sim, EchoOptions options, int64_t connections, Gc* gc)
      : PooledClient(sim, options, "echo connections", connections, nullptr,
                     gc) {}
  Task<bool> Call() {
    const bool got = co_await pool_.Acquire();
    if (!got) co_return false;
    co_await Safepoint();
    co_await Blocked(options_.wait);
    ++stats_.calls;
    pool_.Release();
    co_return true;
  }
};

Process CallAt(Simulation& sim, Echo& echo, Time at, Time& done) {
  co_await sim.Delay(at);
  const bool ok = co_await echo.Call();
  if (ok) done = sim.now();
}
using testing_helpers::AllocateAt;

TEST(PooledClientTest, ResetStatsRestartsTheCountsAndThePool) {
  Simulation sim;
  Echo echo(sim, EchoOptions{.wait = 10}, 1, nullptr);
  Time a = 0, b = 0;
  sim.Spawn(CallAt(sim, echo, 0, a));
  sim.Spawn(CallAt(sim, echo, 0, b));
  ASSERT_TRUE(sim.Run(100).ok());
  // One connection: the second call waits 10 ns for the first.
  EXPECT_EQ(a, 10);
  EXPECT_EQ(b, 20);
  EXPECT_EQ(echo.stats().calls, 2);
  EXPECT_EQ(echo.pool().Stats().grants, 2);
  EXPECT_NEAR(echo.pool().Stats().utilisation, 20.0 / 100, 1e-12);
  echo.ResetStats();
  EXPECT_EQ(echo.stats().calls, 0);
  ASSERT_TRUE(sim.Run(200).ok());
  const ResourceStats s = echo.pool().Stats();
  EXPECT_EQ(s.grants, 0);
  EXPECT_EQ(s.utilisation, 0);  // idle over the whole window since the reset
  EXPECT_EQ(s.mean_wait_s, 0);
}

TEST(PooledClientTest, WaitsHoldForAGcPauseOnlyWithAGc) {
  for (const bool with_gc : {false, true}) {
    Simulation sim;
    absl::StatusOr<Gc> gc = Gc::Create(sim, nullptr, GcOptions{});
    ASSERT_TRUE(gc.ok());
    // The default GC: 256 MiB heap, 206 MiB live, a 50 MiB young generation
    // whose pause is 2.5 + 0.028 x 50 = 3.9 ms. Filled at 1 ms: paused
    // [1, 4.9) ms.
    sim.Spawn(AllocateAt(sim, *gc, kMs, 50));
    Echo echo(sim, EchoOptions{.wait = 2 * kMs}, 2, with_gc ? &*gc : nullptr);
    Time blocked = 0, safepoint = 0;
    // Its 2 ms wait ends at 2 ms, inside the pause.
    sim.Spawn(CallAt(sim, echo, 0, blocked));
    // Gets the second connection at 3 ms, during the pause.
    sim.Spawn(CallAt(sim, echo, 3 * kMs, safepoint));
    ASSERT_TRUE(sim.Run(kSec).ok());
    if (with_gc) {
      // The wait is held until the pause ends at 4.9 ms; the second call
      // takes its connection up only then, and blocks 2 ms from there.
      EXPECT_EQ(blocked, 4'900'000);
      EXPECT_EQ(safepoint, 6'900'000);
    } else {
      // Without a Gc nothing waits for the pause: 2 ms, then 3 + 2 ms.
      EXPECT_EQ(blocked, 2 * kMs);
      EXPECT_EQ(safepoint, 5 * kMs);
    }
  }
}

}  // namespace
}  // namespace perflab::sim
