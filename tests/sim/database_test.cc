// The database behind a connection pool: the network round trip is paid
// while holding the connection, and its CPU is attributed to the database.
#include "sim/database.h"

#include <vector>

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

// No CPU and a free connection: the statement takes the connection and
// gives it back at once, at time 0, without suspending on the CPU (a work
// of 0 is ready), and a second one finds the connection free again.
TEST(DatabaseTest, AStatementWithoutCpuReturnsItsConnectionAtOnce) {
  Simulation sim;
  Cpu cpu(sim, 1);
  DatabaseOptions o;
  o.pool = 1;
  Database db(sim, cpu, o);
  Time a = -1, b = -1;
  sim.Spawn(Statement(db, 0, a, sim));
  EXPECT_EQ(a, 0);  // done inside Spawn: nothing suspended
  EXPECT_EQ(db.pool().in_use(), 0);
  sim.Spawn(Statement(db, 0, b, sim));
  ASSERT_TRUE(sim.Run(kSec).ok());
  EXPECT_EQ(b, 0);
  EXPECT_EQ(db.stats().statements, 2);
  EXPECT_EQ(db.pool().Stats().grants, 2);
  EXPECT_EQ(db.pool().in_use(), 0);
}

Process Page(Database& db, bool one_borrow, Time& done, Simulation& sim) {
  if (one_borrow) {
    // Named first: GCC 12 cannot take a braced list in a co_await's call.
    std::vector<Time> works(3, kMs);
    const bool ok = co_await db.Statements(works);
    if (!ok) co_return;
  } else {
    for (int i = 0; i < 3; ++i) {
      const bool ok = co_await db.Statement(kMs);
      if (!ok) co_return;
    }
  }
  done = sim.now();
}

// Two pages of three 1 ms statements on one connection and four cores. Borrowed
// once a page, the first page holds the connection to 3 ms and the second
// runs 3 to 6 ms. Borrowed a statement at a time, the two pages take turns
// on the connection: A at 1, B at 2, A at 3, ... A ends at 5, B at 6.
TEST(DatabaseTest, APageOnOneBorrowHoldsTheConnectionForAllItsStatements) {
  for (bool one_borrow : {true, false}) {
    Simulation sim;
    Cpu cpu(sim, 4);
    DatabaseOptions o;
    o.pool = 1;
    Database db(sim, cpu, o);
    Time a = 0, b = 0;
    sim.Spawn(Page(db, one_borrow, a, sim));
    sim.Spawn(Page(db, one_borrow, b, sim));
    ASSERT_TRUE(sim.Run(kSec).ok());
    EXPECT_EQ(a, (one_borrow ? 3 : 5) * kMs) << one_borrow;
    EXPECT_EQ(b, 6 * kMs) << one_borrow;
    EXPECT_EQ(db.stats().statements, 6);
    EXPECT_EQ(db.pool().Stats().grants, one_borrow ? 2 : 6);
  }
}

}  // namespace
}  // namespace perflab::sim
