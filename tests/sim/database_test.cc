// The database behind a connection pool: the network round trip is paid
// while holding the connection, and its CPU is attributed to the database.
#include "sim/database.h"

#include "gtest/gtest.h"
#include "sim/cpu.h"
#include "sim/engine.h"

namespace perflab::sim {
namespace {

Process Statement(Database& db, Time work, Time& done, Simulation& sim,
                  Time hold = 0) {
  const bool ok = co_await db.Statement(work, hold);
  if (ok) done = sim.now();
}

TEST(DatabaseTest, RoundTripHeldWithTheConnection) {
  Simulation sim;
  Cpu cpu(sim, 4);
  DatabaseOptions o;
  o.pool = 1;
  o.round_trip = 2 * kMs;
  Database db(sim, cpu, o);
  Time a = 0, b = 0;
  sim.Spawn(Statement(db, kMs, a, sim));
  sim.Spawn(Statement(db, kMs, b, sim));
  ASSERT_TRUE(sim.Run(kSec).ok());
  EXPECT_EQ(a, 3 * kMs);  // 2 ms round trip + 1 ms CPU
  EXPECT_EQ(b, 6 * kMs);  // waits for the one connection
  EXPECT_EQ(db.stats().statements, 2);
  EXPECT_NEAR(cpu.CoresUsedFor(CpuUse::kDatabase), 2.0 * kMs / kSec, 1e-12);
}

// A hold beyond the CPU keeps the connection without using a core: with one
// connection the second statement starts at 1 + 3 = 4 ms and ends at 8 ms,
// and the database's CPU is the two 1 ms pieces only.
TEST(DatabaseTest, HoldKeepsTheConnectionWithoutCpu) {
  Simulation sim;
  Cpu cpu(sim, 4);
  DatabaseOptions o;
  o.pool = 1;
  Database db(sim, cpu, o);
  Time a = 0, b = 0;
  sim.Spawn(Statement(db, kMs, a, sim, 3 * kMs));
  sim.Spawn(Statement(db, kMs, b, sim, 3 * kMs));
  ASSERT_TRUE(sim.Run(kSec).ok());
  EXPECT_EQ(a, 4 * kMs);
  EXPECT_EQ(b, 8 * kMs);
  EXPECT_NEAR(cpu.CoresUsedFor(CpuUse::kDatabase), 2.0 * kMs / kSec, 1e-12);
}

}  // namespace
}  // namespace perflab::sim
