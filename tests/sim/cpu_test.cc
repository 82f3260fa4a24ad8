// Cpu under processor sharing, its freezes (and Freezes, the intervals a
// frozen service skips), and CPU time attributed by use; the time-sliced
// discipline against schedules worked by hand, queueing theory (M/M/1-PS,
// M/D/1 FCFS by Pollaczek-Khinchine, M/M/2 by Erlang C) and a closed loop
// solved as a Markov chain in the test; its options and their validation.
#include "sim/cpu.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "sim/engine.h"
#include "sim/random.h"
#include "tests/sanitizers.h"
#include "tests/sim/process_helpers.h"

namespace perflab::sim {
namespace {

Process CpuJob(Simulation& sim, Cpu& cpu, Time at, Time work, Time& done) {
  co_await sim.Delay(at);
  co_await cpu.Run(work);
  done = sim.now();
}

TEST(CpuTest, ProcessorSharingSlowsJobsOnceCoresAreSaturated) {
  Simulation sim;
  Cpu cpu(sim, 2);
  Time done[4] = {};
  // Four 100 ns jobs on two cores: each gets half a core, all end at 200.
  for (int i = 0; i < 4; ++i) sim.Spawn(CpuJob(sim, cpu, 0, 100, done[i]));
  ASSERT_TRUE(sim.Run(1000).ok());
  for (Time d : done) EXPECT_EQ(d, 200);
  EXPECT_NEAR(cpu.CoresUsed(), 2.0 * 200 / 1000, 1e-9);
}

TEST(CpuTest, LateArrivalSharesTheRemainingWork) {
  Simulation sim;
  Cpu cpu(sim, 1);
  Time a = 0, b = 0;
  sim.Spawn(CpuJob(sim, cpu, 0, 100, a));  // alone for 50, then half speed
  sim.Spawn(CpuJob(sim, cpu, 50, 100, b));
  ASSERT_TRUE(sim.Run(1000).ok());
  EXPECT_EQ(a, 150);  // 50 alone + 50 remaining at half speed
  EXPECT_EQ(b, 200);  // 50 at half speed by 150, then 50 alone
}

// A job that arrives once the earliest finisher has gone may still finish
// after a job already running. By hand, on one core: A (100 ns) and B (10)
// share from 0, so B is done at 20 and A has 90 left; A alone to 30 (80
// left); C (200) arrives and shares with A, which gets its 80 by 190; C has
// 120 left then and runs alone to 310.
TEST(CpuTest, ALaterLongerJobFinishesAfterTheOneRunningBeforeIt) {
  Simulation sim;
  Cpu cpu(sim, 1);
  Time a = 0, b = 0, c = 0;
  sim.Spawn(CpuJob(sim, cpu, 0, 100, a));
  sim.Spawn(CpuJob(sim, cpu, 0, 10, b));
  sim.Spawn(CpuJob(sim, cpu, 30, 200, c));
  ASSERT_TRUE(sim.Run(1000).ok());
  EXPECT_EQ(b, 20);
  EXPECT_EQ(a, 190);
  EXPECT_EQ(c, 310);
}

Process RecordedJob(Simulation& sim, Cpu& cpu, Time at, Time work, int id,
                    std::vector<int>& order, std::vector<Time>& done) {
  co_await sim.Delay(at);
  co_await cpu.Run(work);
  order.push_back(id);
  done[static_cast<size_t>(id)] = sim.now();
}

// More runnable jobs than the sorted array holds (Cpu keeps a heap then),
// arriving after nine of an earlier wave finished, six of them with equal
// work; then two more once the CPU is idle again. On one core, jobs started
// together with works w(1) <= ... <= w(n) finish at T(k) = T(k - 1) +
// (w(k) - w(k - 1)) (n - k + 1): the k-th is done once every job still
// running has received w(k) (worked here by the formula, not by the CPU);
// equal works end together, in start order.
TEST(CpuTest, ManyJobsFinishInOrderOfWorkThenOfStart) {
  // Wave 1 at 0: works 1..9 ns end at 10, 19, 27, 34, 40, 45, 49, 52, 54;
  // the long one (id 9) has 100,000 - 9 - (1,000 - 54) ns left at 1,000.
  // Wave 2 at 1,000: 40 jobs, each shorter than that, so 41 share the core.
  constexpr int kWave = 40;
  constexpr Time kLong = 100'000;
  std::vector<Time> works;
  for (int i = 1; i <= 9; ++i) works.push_back(i);
  works.push_back(kLong);
  for (int i = 0; i < kWave; ++i)
    works.push_back(1000 + 100 * ((i * 17) % kWave));
  for (int i = 20; i < 25; ++i) works[10 + i] = works[10 + 3];
  works.push_back(10);  // at 1 ms, alone with the next: ends at +20
  works.push_back(20);  // then alone: ends at +30
  const int n = static_cast<int>(works.size());

  std::vector<int> expected;
  std::vector<Time> expected_done(n);
  const Time wave1[] = {10, 19, 27, 34, 40, 45, 49, 52, 54};
  for (int i = 0; i < 9; ++i) {
    expected.push_back(i);
    expected_done[i] = wave1[i];
  }
  std::vector<int> wave2(kWave);
  for (int i = 0; i < kWave; ++i) wave2[i] = 10 + i;
  std::stable_sort(wave2.begin(), wave2.end(),
                   [&](int a, int b) { return works[a] < works[b]; });
  Time t = 1000, previous = 0;
  for (int k = 0; k < kWave; ++k) {
    const Time w = works[wave2[k]];
    t += (w - previous) * (kWave + 1 - k);
    previous = w;
    expected_done[wave2[k]] = t;
    expected.push_back(wave2[k]);
  }
  const Time long_left = kLong - 9 - (1000 - 54);
  expected_done[9] = t + long_left - previous;
  expected.push_back(9);
  expected_done[n - 2] = kMs + 20;
  expected_done[n - 1] = kMs + 30;
  expected.push_back(n - 2);
  expected.push_back(n - 1);
  ASSERT_LT(expected_done[9], kMs);

  Simulation sim;
  Cpu cpu(sim, 1);
  std::vector<int> order;
  std::vector<Time> done(n, -1);
  for (int i = 0; i < n; ++i) {
    const Time at = i < 10 ? 0 : i < 10 + kWave ? 1000 : kMs;
    sim.Spawn(RecordedJob(sim, cpu, at, works[i], i, order, done));
  }
  ASSERT_TRUE(sim.Run(2 * kMs).ok());
  EXPECT_EQ(order, expected);
  EXPECT_EQ(done, expected_done);
}

using testing_helpers::CpuJob;

Process FreezeAt(Simulation& sim, Cpu& cpu, Time at, Time length) {
  co_await sim.Delay(at);
  cpu.Freeze(length);
}

TEST(CpuTest, FreezeDelaysRunningWorkByItsLength) {
  Simulation sim;
  Cpu cpu(sim, 1);
  Time done = 0;
  sim.Spawn(CpuJob(sim, cpu, 100, done));
  sim.Spawn(FreezeAt(sim, cpu, 30, 50));
  ASSERT_TRUE(sim.Run(1000).ok());
  EXPECT_EQ(done, 150);
}

TEST(FreezesTest, WorkSkipsFrozenTime) {
  Freezes f;
  f.Add(100, 200);
  EXPECT_EQ(f.Finish(0, 50), 50);
  EXPECT_EQ(f.Finish(90, 20), 210);  // 10 before, 10 after the freeze
  EXPECT_EQ(f.Finish(100, 5), 205);  // arrives as it starts
  EXPECT_EQ(f.Finish(150, 5), 205);
  EXPECT_EQ(f.Finish(200, 5), 205);
  EXPECT_EQ(f.Thaw(150), 200);
  EXPECT_EQ(f.Thaw(250), 250);
}

Process Job(Cpu& cpu, Time work, CpuUse use) { co_await cpu.Run(work, use); }

TEST(CpuUseTest, TimeIsAttributedToEachJobsUse) {
  Simulation sim;
  Cpu cpu(sim, 1);
  sim.Spawn(Job(cpu, 300, CpuUse::kDatabase));
  sim.Spawn(Job(cpu, 100, CpuUse::kHttp));
  ASSERT_TRUE(sim.Run(1000).ok());
  // One core shared: both progress at 1/2 until the HTTP job is done at 200
  // (100 each), then the database job runs alone to 400. Over 1000 ns:
  // database 300, http 100 core-ns.
  EXPECT_NEAR(cpu.CoresUsedFor(CpuUse::kDatabase), 0.3, 1e-9);
  EXPECT_NEAR(cpu.CoresUsedFor(CpuUse::kHttp), 0.1, 1e-9);
  EXPECT_NEAR(cpu.CoresUsed(), 0.4, 1e-9);
  cpu.Charge(CpuUse::kGc, 500);
  EXPECT_NEAR(cpu.CoresUsedFor(CpuUse::kGc), 0.5, 1e-9);
  EXPECT_NEAR(cpu.CoresUsed(), 0.9, 1e-9);
  cpu.ResetStats();
  ASSERT_TRUE(sim.Run(2000).ok());
  EXPECT_EQ(cpu.CoresUsed(), 0);
}

TEST(CpuUseTest, FrozenCoresDoNoJobWork) {
  Simulation sim;
  Cpu cpu(sim, 2);
  sim.Spawn(Job(cpu, 1000, CpuUse::kOther));
  cpu.Freeze(400);
  ASSERT_TRUE(sim.Run(2000).ok());
  // The job did 1000 ns of work on one core: 1000 core-ns in 2000 ns.
  EXPECT_NEAR(cpu.CoresUsed(), 0.5, 1e-9);
}

// ---- The time-sliced discipline ----

CpuScheduling Sliced(Time quantum_ns, Time switch_ns = 0) {
  CpuScheduling s;
  s.discipline = CpuDiscipline::kSliced;
  s.quantum_ns = quantum_ns;
  s.switch_ns = switch_ns;
  return s;
}

TEST(SlicedCpuTest, ThreeJobsTakeTurnsOfOneQuantum) {
  Simulation sim;
  Cpu cpu(sim, 1, Sliced(100));
  Time done[3] = {};
  for (Time& d : done) sim.Spawn(CpuJob(sim, cpu, 0, 250, d));
  ASSERT_TRUE(sim.Run(1000).ok());
  // A B C A B C for 100 each (to 600), then the 50 each has left: A to 650,
  // B to 700, C to 750. Nine dispatches, each of a job other than the last.
  EXPECT_EQ(done[0], 650);
  EXPECT_EQ(done[1], 700);
  EXPECT_EQ(done[2], 750);
  EXPECT_EQ(cpu.switches(), 9);
  EXPECT_NEAR(cpu.CoresUsed(), 0.75, 1e-12);
  EXPECT_EQ(cpu.CoresUsedFor(CpuUse::kScheduling), 0);
}

TEST(SlicedCpuTest, EachSwitchCostsItsTimeOnTheCore) {
  Simulation sim;
  Cpu cpu(sim, 1, Sliced(100, 10));
  Time done[3] = {};
  for (Time& d : done) sim.Spawn(CpuJob(sim, cpu, 0, 250, d));
  ASSERT_TRUE(sim.Run(1000).ok());
  // The same nine dispatches, each 10 longer: A [0,110) B [110,220)
  // C [220,330) A [330,440) B [440,550) C [550,660), then 10 + 50 each.
  EXPECT_EQ(done[0], 720);
  EXPECT_EQ(done[1], 780);
  EXPECT_EQ(done[2], 840);
  EXPECT_EQ(cpu.switches(), 9);
  // CPU used grows by exactly 9 x 10 over the 750 of work.
  EXPECT_NEAR(cpu.CoresUsed(), (750 + 9 * 10) / 1000.0, 1e-12);
  EXPECT_NEAR(cpu.CoresUsedFor(CpuUse::kScheduling), 90 / 1000.0, 1e-12);
  EXPECT_NEAR(cpu.CoresUsedFor(CpuUse::kOther), 750 / 1000.0, 1e-12);
}

TEST(SlicedCpuTest, AQuantumLongerThanEveryJobIsFirstComeFirstServed) {
  Simulation sim;
  Cpu cpu(sim, 1, Sliced(kSec, 5));
  Time a = 0, b = 0, c = 0;
  sim.Spawn(CpuJob(sim, cpu, 0, 300, a));
  sim.Spawn(CpuJob(sim, cpu, 50, 100, b));
  sim.Spawn(CpuJob(sim, cpu, 120, 200, c));
  ASSERT_TRUE(sim.Run(1000).ok());
  // In arrival order, each after a 5 ns switch: 305, 410, 615 (processor
  // sharing would finish B first).
  EXPECT_EQ(a, 305);
  EXPECT_EQ(b, 410);
  EXPECT_EQ(c, 615);
  EXPECT_EQ(cpu.switches(), 3);
}

TEST(SlicedCpuTest, AJobAloneRunsOnWithoutSwitching) {
  Simulation sim;
  Cpu cpu(sim, 1, Sliced(100, 7));
  Time done = 0;
  sim.Spawn(CpuJob(sim, cpu, 0, 1000, done));
  ASSERT_TRUE(sim.Run(5000).ok());
  // Ten quanta with nobody waiting: one dispatch, one switch.
  EXPECT_EQ(done, 1007);
  EXPECT_EQ(cpu.switches(), 1);
}

Process TwoRuns(Simulation& sim, Cpu& cpu, uint64_t thread, Time& done) {
  co_await cpu.Run(100, CpuUse::kOther, Cpu::kDefaultWorkingSet, thread);
  co_await cpu.Run(100, CpuUse::kOther, Cpu::kDefaultWorkingSet, thread);
  done = sim.now();
}

TEST(SlicedCpuTest, AThreadBackOnItsOwnCoreCostsNoSwitch) {
  Time done = 0;
  {
    Simulation sim;
    Cpu cpu(sim, 1, Sliced(1000, 10));
    sim.Spawn(TwoRuns(sim, cpu, 7, done));
    ASSERT_TRUE(sim.Run(1000).ok());
    EXPECT_EQ(done, 10 + 100 + 100);
    EXPECT_EQ(cpu.switches(), 1);
  }
  {
    Simulation sim;
    Cpu cpu(sim, 1, Sliced(1000, 10));
    sim.Spawn(TwoRuns(sim, cpu, 0, done));  // no thread: two jobs
    ASSERT_TRUE(sim.Run(1000).ok());
    EXPECT_EQ(done, 2 * (10 + 100));
    EXPECT_EQ(cpu.switches(), 2);
  }
}

TEST(SlicedCpuTest, AThreadRunsOnUntilItBlocksAheadOfTheQueue) {
  Simulation sim;
  Cpu cpu(sim, 1, Sliced(1000, 10));
  Time one = 0, two = 0;
  sim.Spawn(TwoRuns(sim, cpu, 1, one));
  sim.Spawn(TwoRuns(sim, cpu, 2, two));
  ASSERT_TRUE(sim.Run(1000).ok());
  // Thread 1: a switch, then both its jobs back to back [0, 210); thread 2
  // waits 210 in the queue, then the same [210, 420). Taking turns after
  // each job instead would cost four switches and end at 330 and 440.
  EXPECT_EQ(one, 210);
  EXPECT_EQ(two, 420);
  EXPECT_EQ(cpu.switches(), 2);
  EXPECT_EQ(cpu.slices(), 2);
  EXPECT_EQ(cpu.run_queue_wait_ns(), 210);
}

TEST(SlicedCpuTest, AContinuingThreadKeepsOnlyTheRestOfItsQuantum) {
  Simulation sim;
  Cpu cpu(sim, 1, Sliced(150, 10));
  Time one = 0, two = 0;
  sim.Spawn(TwoRuns(sim, cpu, 1, one));
  sim.Spawn(TwoRuns(sim, cpu, 2, two));
  ASSERT_TRUE(sim.Run(1000).ok());
  // 1: switch [0,10), 100 of work, then 50 more (its quantum's rest) to
  // 160; 2 waited 160: switch, 100, 50 to 320; 1 waited 160: switch, its
  // last 50 to 380; 2 waited 60: switch, its last 50 to 440.
  EXPECT_EQ(one, 380);
  EXPECT_EQ(two, 440);
  EXPECT_EQ(cpu.switches(), 4);
  EXPECT_EQ(cpu.slices(), 4);
  EXPECT_EQ(cpu.run_queue_wait_ns(), 160 + 160 + 60);
}

Process WorkingSetJob(Simulation& sim, Cpu& cpu, Time work, int64_t ws,
                      Time& done) {
  co_await cpu.Run(work, CpuUse::kOther, ws);
  done = sim.now();
}

TEST(SlicedCpuTest, ASwitchBackRefillsTheJobsWorkingSet) {
  CpuScheduling s = Sliced(100, 10);
  s.refill = {{0, 0}, {1 << 20, 1000}};
  s.working_set_bytes = 1 << 20;
  Simulation sim;
  Cpu cpu(sim, 1, s);
  Time a = 0, b = 0;
  // A brings back 512 KiB (refill 500 by the line), B declares nothing and
  // takes the default 1 MiB (1000).
  sim.Spawn(WorkingSetJob(sim, cpu, 150, 512 << 10, a));
  sim.Spawn(WorkingSetJob(sim, cpu, 150, Cpu::kDefaultWorkingSet, b));
  ASSERT_TRUE(sim.Run(10000).ok());
  // A [0, 10+500+100) B [610, +10+1000+100) A [1720, +510+50) B to 2280+1060.
  EXPECT_EQ(a, 2280);
  EXPECT_EQ(b, 2280 + 10 + 1000 + 50);
  EXPECT_EQ(cpu.switches(), 4);
  EXPECT_NEAR(cpu.CoresUsedFor(CpuUse::kScheduling) * 10000, 2 * 510 + 2 * 1010,
              1e-6);
}

TEST(SlicedCpuTest, TwoCoresRunTwoJobsAtOnceAndShareOneQueue) {
  Simulation sim;
  Cpu cpu(sim, 2, Sliced(100));
  Time done[3] = {};
  for (Time& d : done) sim.Spawn(CpuJob(sim, cpu, 0, 200, d));
  ASSERT_TRUE(sim.Run(50).ok());
  EXPECT_EQ(cpu.runnable(), 3);
  ASSERT_TRUE(sim.Run(1000).ok());
  // 0: A on core 0, B on core 1, C waits. 100: A to the tail, C on core 0;
  // B to the tail, A on core 1. 200: C to the tail, B on core 0; A is done,
  // C on core 1. 300: B and C are done. Six dispatches.
  EXPECT_EQ(done[0], 200);
  EXPECT_EQ(done[1], 300);
  EXPECT_EQ(done[2], 300);
  EXPECT_EQ(cpu.switches(), 6);
  EXPECT_NEAR(cpu.CoresUsed(), 600 / 1000.0, 1e-12);
  EXPECT_EQ(cpu.runnable(), 0);
}

TEST(SlicedCpuTest, FreezeDelaysTheSliceByItsLength) {
  Simulation sim;
  Cpu cpu(sim, 1, Sliced(1000, 4));
  Time done = 0;
  sim.Spawn(CpuJob(sim, cpu, 100, done));
  sim.Spawn(FreezeAt(sim, cpu, 30, 50));
  ASSERT_TRUE(sim.Run(1000).ok());
  EXPECT_EQ(done, 4 + 100 + 50);
  // 104 core-ns of CPU in 1000 ns: the frozen 50 are not busy.
  EXPECT_NEAR(cpu.CoresUsed(), 0.104, 1e-12);
}

TEST(SlicedCpuTest, ResetStatsSplitsASliceInProgress) {
  Simulation sim;
  Cpu cpu(sim, 1, Sliced(1000, 40));
  Time done = 0;
  sim.Spawn(CpuJob(sim, cpu, 100, done));
  ASSERT_TRUE(sim.Run(30).ok());
  cpu.ResetStats();  // 30 of the 40 ns switch already spent
  ASSERT_TRUE(sim.Run(230).ok());
  EXPECT_EQ(done, 140);
  EXPECT_NEAR(cpu.CoresUsedFor(CpuUse::kScheduling), 10 / 200.0, 1e-12);
  EXPECT_NEAR(cpu.CoresUsed(), 110 / 200.0, 1e-12);
  EXPECT_EQ(cpu.switches(), 0);  // the dispatch was before the reset
}

// The scheduler's loops walk a map of the cores in use, not every core: the
// work of a job on a 4096-core CPU is counted in words of that map (64 of
// them), where a walk over all cores took 4096 steps per loop, six loops a
// job (order-service at cores=4096 ran 33 s a simulated second).
TEST(SlicedCpuTest, SchedulingWorkIsTheMapOfCoresInUseNotEveryCore) {
  Simulation sim;
  Cpu cpu(sim, 4096, Sliced(1000));
  constexpr int kJobs = 100;
  Time done[kJobs] = {};
  for (int i = 0; i < kJobs; ++i) {
    sim.Spawn(CpuJob(sim, cpu, i * Time{1000}, 500, done[i]));
  }
  ASSERT_TRUE(sim.Run(kJobs * Time{1000}).ok());
  for (int i = 0; i < kJobs; ++i) EXPECT_EQ(done[i], i * Time{1000} + 500);
  // One job at a time on core 0, in steps (a word read, a core visited).
  // No core is ever held (no thread), so no walk looks for holds. Its
  // arrival: the first free core, word 0, 1, and no walk to reschedule (the
  // new slice's end against the earliest). Its end's tick: one walk, slices
  // and reschedule together, 64 words and core 0, 65. 1 + 65 = 66 a job.
  EXPECT_EQ(cpu.scheduler_steps(), kJobs * 66);
}

Process ThreadPairAt(Simulation& sim, Cpu& cpu, Time at, Time& done) {
  co_await sim.Delay(at);
  co_await cpu.Run(500, CpuUse::kOther, Cpu::kDefaultWorkingSet, 7);
  co_await cpu.Run(500, CpuUse::kOther, Cpu::kDefaultWorkingSet, 7);
  done = sim.now();
}

// The walks that look for held cores are counted like the others: a
// thread's job that ends holds its core, its next job finds it in the map
// of held cores, and a hold nobody took is let go at the tick after.
TEST(SlicedCpuTest, HeldCoresAreFoundInTheirOwnMapNotByVisitingEveryCore) {
  Simulation sim;
  Cpu cpu(sim, 4096, Sliced(1000));
  constexpr int kPairs = 50;
  Time done[kPairs] = {};
  for (int i = 0; i < kPairs; ++i) {
    sim.Spawn(ThreadPairAt(sim, cpu, i * Time{10'000}, done[i]));
  }
  ASSERT_TRUE(sim.Run(kPairs * Time{10'000}).ok());
  for (int i = 0; i < kPairs; ++i) EXPECT_EQ(done[i], i * Time{10'000} + 1000);
  // Each pair of thread 7's jobs on core 0, in steps (a word read, a core
  // visited); 64 words of 64 cores. The first job's arrival: no core held,
  // so no look for one; the first free core, word 0: 1. Its end's tick: the
  // busy cores, 64 words and core 0: 65; core 0 is held. The second job's
  // arrival: the held map's word 0 and core 0, its thread's: 2. Its end's
  // tick: 65 again, core 0 held again, and no job of the thread comes. The
  // hold's tick at the same instant: no slice ends, so only the held map,
  // 64 words and core 0: 65. 1 + 65 + 2 + 65 + 65 = 198 a pair.
  EXPECT_EQ(cpu.scheduler_steps(), kPairs * 198);
  EXPECT_EQ(cpu.slices(), kPairs);  // the second job continues the first's
}

// ---- Options ----

TEST(CpuSchedulingTest, DisciplinesParseByName) {
  EXPECT_EQ(*ParseCpuDiscipline("ps"), CpuDiscipline::kProcessorSharing);
  EXPECT_EQ(*ParseCpuDiscipline("sliced"), CpuDiscipline::kSliced);
  absl::StatusOr<CpuDiscipline> bad = ParseCpuDiscipline("fifo");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(),
            "cpu discipline: unknown value 'fifo'; accepted: ps, sliced");
  EXPECT_EQ(CpuDisciplineName(CpuDiscipline::kSliced), "sliced");
  EXPECT_EQ(CpuDisciplineName(CpuDiscipline::kProcessorSharing), "ps");
}

std::string Why(const CpuScheduling& s) {
  return std::string(ValidateCpuScheduling(s).message());
}

TEST(CpuSchedulingTest, ValidationNamesTheFieldAndWhatIsAccepted) {
  EXPECT_TRUE(ValidateCpuScheduling({}).ok());
  CpuScheduling s = Sliced(0);
  EXPECT_EQ(Why(s), "cpu scheduling: quantum_ns = 0; accepted: > 0");
  s = Sliced(-5);
  EXPECT_EQ(Why(s), "cpu scheduling: quantum_ns = -5; accepted: > 0");
  s = Sliced(100, -1);
  EXPECT_EQ(Why(s), "cpu scheduling: switch_ns = -1; accepted: >= 0");
  s = Sliced(100);
  s.refill = {{0, 0}, {1000, -3}};
  EXPECT_EQ(Why(s), "cpu scheduling: refill[1].refill_ns = -3; accepted: >= 0");
  s.refill = {{0, 0}, {0, 3}};
  EXPECT_EQ(Why(s),
            "cpu scheduling: refill[1].working_set_bytes = 0; accepted: > "
            "the previous point's 0 (strictly ascending)");
  s.refill = {{-1, 0}};
  EXPECT_EQ(Why(s),
            "cpu scheduling: refill[0].working_set_bytes = -1; accepted: >= 0");
  s.refill = {{4096, 100}, {1 << 20, 900}};
  s.working_set_bytes = 2 << 20;
  EXPECT_EQ(Why(s),
            "cpu scheduling: working_set_bytes = 2097152; accepted: within the "
            "refill curve's range [4096, 1048576]");
  s.working_set_bytes = 1024;
  EXPECT_FALSE(ValidateCpuScheduling(s).ok());
  s.working_set_bytes = 4096;
  EXPECT_TRUE(ValidateCpuScheduling(s).ok());
  s.refill.clear();
  s.working_set_bytes = -1;
  EXPECT_EQ(Why(s), "cpu scheduling: working_set_bytes = -1; accepted: >= 0");
}

TEST(CpuSchedulingTest, RefillIsInterpolatedBetweenPoints) {
  const std::vector<RefillPoint> curve = {{0, 100}, {1000, 1100}, {3000, 2100}};
  EXPECT_EQ(RefillNs(curve, 0), 100);
  EXPECT_EQ(RefillNs(curve, 500), 600);
  EXPECT_EQ(RefillNs(curve, 1000), 1100);
  EXPECT_EQ(RefillNs(curve, 2000), 1600);
  EXPECT_EQ(RefillNs(curve, 2999), 2100);  // 1600 + 999 / 2 = 2099.5 up
  EXPECT_EQ(RefillNs(curve, 3000), 2100);
  EXPECT_EQ(RefillNs(curve, 9000), 2100);  // beyond: the last point
  EXPECT_EQ(RefillNs({}, 9000), 0);
}

// ---- Against queueing theory ----

// Scaled down under AddressSanitizer, where the bounds widen to match.
constexpr int64_t kCustomers = testing::kSanitized ? 5'000 : 50'000;
constexpr double kTheoryTolerance = testing::kSanitized ? 0.15 : 0.03;

struct Totals {
  double response_ns = 0;
  int64_t jobs = 0;
  int64_t work_ns = 0;
};

Process Customer(Simulation& sim, Cpu& cpu, Time work, Totals& t) {
  const Time start = sim.now();
  co_await cpu.Run(work);
  t.response_ns += static_cast<double>(sim.now() - start);
  t.work_ns += work;
  ++t.jobs;
}

// Poisson arrivals of `customers` jobs; the two streams are drawn in the
// same order whatever the discipline, so runs compare on one sample path.
Process Source(Simulation& sim, Cpu& cpu, double interarrival_ns, Dist service,
               Totals& t) {
  Rng arrivals(42, "arrivals");
  Rng work(42, "service");
  for (int64_t i = 0; i < kCustomers; ++i) {
    co_await sim.Delay(SampleNs(Dist::Exp(interarrival_ns), arrivals));
    sim.Spawn(Customer(sim, cpu, SampleNs(service, work), t));
  }
}

struct OpenRun {
  Totals totals;
  int64_t switches = 0;
  Time end = 0;
  double cores_used = 0;
  double scheduling = 0;
  double mean() const {
    return totals.response_ns / static_cast<double>(totals.jobs);
  }
};

OpenRun RunOpen(const CpuScheduling& s, int64_t cores, double interarrival_ns,
                Dist service) {
  Simulation sim;
  Cpu cpu(sim, cores, s);
  OpenRun r;
  sim.Spawn(Source(sim, cpu, interarrival_ns, service, r.totals));
  EXPECT_TRUE(sim.Run(kForever).ok());
  r.switches = cpu.switches();
  r.end = sim.now();
  r.cores_used = cpu.CoresUsed();
  r.scheduling = cpu.CoresUsedFor(CpuUse::kScheduling);
  return r;
}

// rho = 0.5 with 1000 ns of mean service: PS's mean response is
// 1 / (mu - lambda) = 2000 ns for any service distribution; FCFS's is 2000
// for exponential service and, by Pollaczek-Khinchine, D + lambda D^2 /
// (2 (1 - rho)) = 1000 + 500 = 1500 for deterministic.
TEST(SlicedCpuTheoryTest, ShortQuantumTendsToProcessorSharing) {
  const Dist det = Dist::Constant(1000);
  const OpenRun ps = RunOpen({}, 1, 2000, det);
  const OpenRun fine = RunOpen(Sliced(20), 1, 2000, det);
  const OpenRun coarse = RunOpen(Sliced(500), 1, 2000, det);
  EXPECT_NEAR(ps.mean(), 2000, 2000 * kTheoryTolerance);
  EXPECT_NEAR(fine.mean(), 2000, 2000 * kTheoryTolerance);
  // On the same arrivals: closer to PS as the quantum shrinks.
  EXPECT_LT(std::abs(fine.mean() - ps.mean()),
            std::abs(coarse.mean() - ps.mean()));
  // 0.7 % apart with 50,000 customers; the sanitizers' 5,000 get room.
  EXPECT_NEAR(fine.mean(), ps.mean(),
              (testing::kSanitized ? 0.05 : 0.01) * ps.mean());
  const Dist exp = Dist::Exp(1000);
  EXPECT_NEAR(RunOpen(Sliced(20), 1, 2000, exp).mean(), 2000,
              2000 * kTheoryTolerance);
}

TEST(SlicedCpuTheoryTest, LongQuantumIsFcfs) {
  const OpenRun det = RunOpen(Sliced(kSec), 1, 2000, Dist::Constant(1000));
  EXPECT_NEAR(det.mean(), 1500, 1500 * kTheoryTolerance);
  const OpenRun exp = RunOpen(Sliced(kSec), 1, 2000, Dist::Exp(1000));
  EXPECT_NEAR(exp.mean(), 2000, 2000 * kTheoryTolerance);
}

// M/M/2 with lambda = 1.4 / mu: Erlang C gives the mean response, and with
// exponential service any size-blind discipline on c cores has the same
// number in system, so both quanta must agree with it.
TEST(SlicedCpuTheoryTest, TwoCoresMatchErlangC) {
  const double a = 1.4, c = 2, rho = a / c;
  const double top = a * a / 2 / (1 - rho);
  const double erlang_c = top / (1 + a + top);
  const double mean_ns = erlang_c * 1000 / (c - a) + 1000;  // 1960.8
  for (Time q : {Time{20}, kSec}) {
    const OpenRun r = RunOpen(Sliced(q), 2, 1000 / a, Dist::Exp(1000));
    EXPECT_NEAR(r.mean(), mean_ns, mean_ns * kTheoryTolerance) << q;
  }
}

TEST(SlicedCpuTheoryTest, CpuGrowsByExactlyTheSwitchesTimesTheirCost) {
  const Dist exp = Dist::Exp(1000);
  const OpenRun free = RunOpen(Sliced(200), 1, 2000, exp);
  const OpenRun paid = RunOpen(Sliced(200, 30), 1, 2000, exp);
  ASSERT_EQ(free.totals.work_ns, paid.totals.work_ns);  // one sample path
  auto core_ns = [](const OpenRun& r, double cores) {
    return std::llround(cores * static_cast<double>(r.end));
  };
  EXPECT_EQ(core_ns(free, free.cores_used), free.totals.work_ns);
  EXPECT_GT(paid.switches, kCustomers);  // some jobs took several slices
  EXPECT_EQ(core_ns(paid, paid.cores_used) - core_ns(free, free.cores_used),
            paid.switches * 30);
  EXPECT_EQ(core_ns(paid, paid.scheduling), paid.switches * 30);
}

// Solves pi Q = 0, sum pi = 1 for a small generator Q by Gaussian
// elimination (the last balance equation replaced by the normalisation).
std::vector<double> Stationary(std::vector<std::vector<double>> q) {
  const size_t n = q.size();
  std::vector<std::vector<double>> m(n, std::vector<double>(n + 1, 0));
  for (size_t i = 0; i < n; ++i) {
    for (size_t j = 0; j < n; ++j) m[i][j] = q[j][i];  // transposed
  }
  for (size_t j = 0; j <= n; ++j) m[n - 1][j] = 1;
  for (size_t col = 0; col < n; ++col) {
    size_t pivot = col;
    for (size_t r = col + 1; r < n; ++r) {
      if (std::abs(m[r][col]) > std::abs(m[pivot][col])) pivot = r;
    }
    std::swap(m[col], m[pivot]);
    for (size_t r = 0; r < n; ++r) {
      if (r == col) continue;
      const double f = m[r][col] / m[col][col];
      for (size_t j = col; j <= n; ++j) m[r][j] -= f * m[col][j];
    }
  }
  std::vector<double> pi(n);
  for (size_t i = 0; i < n; ++i) pi[i] = m[i][n] / m[i][i];
  return pi;
}

Process Client(Simulation& sim, Cpu& cpu, uint64_t id, Totals& t) {
  Rng rng(42, "client" + std::to_string(id));
  while (true) {
    co_await sim.Delay(SampleNs(Dist::Exp(2000), rng));
    const Time start = sim.now();
    co_await cpu.Run(SampleNs(Dist::Exp(1000), rng), CpuUse::kOther,
                     Cpu::kDefaultWorkingSet, id);
    t.response_ns += static_cast<double>(sim.now() - start);
    ++t.jobs;
  }
}

// Two clients, one core, exponential think (2000 ns) and service (1000 ns):
// the number at the CPU is a birth-death chain on 0..2 whatever the quantum.
// By hand: pi = (0.4, 0.4, 0.2), X = 0.6 / 1000 per ns, R = 2 / X - 2000.
TEST(SlicedCpuTheoryTest, ClosedLoopMatchesItsMarkovChain) {
  const double z = 2000, s = 1000;
  const int n = 2;
  std::vector<std::vector<double>> q(n + 1, std::vector<double>(n + 1, 0));
  for (int k = 0; k <= n; ++k) {
    if (k < n) q[k][k + 1] = (n - k) / z;
    if (k > 0) q[k][k - 1] = 1 / s;
    q[k][k] = -((k < n ? (n - k) / z : 0) + (k > 0 ? 1 / s : 0));
  }
  const std::vector<double> pi = Stationary(q);
  ASSERT_NEAR(pi[0], 0.4, 1e-12);  // the hand solution, as a check on both
  const double x_per_ns = (1 - pi[0]) / s;
  const double r_ns = n / x_per_ns - z;
  const Time horizon = (testing::kSanitized ? 10 : 100) * kMs;
  for (Time quantum : {Time{50}, kSec}) {
    Simulation sim;
    Cpu cpu(sim, 1, Sliced(quantum));
    Totals t;
    for (uint64_t id = 1; id <= n; ++id) sim.Spawn(Client(sim, cpu, id, t));
    ASSERT_TRUE(sim.Run(horizon).ok());
    const double x = static_cast<double>(t.jobs) / static_cast<double>(horizon);
    EXPECT_NEAR(x, x_per_ns, x_per_ns * kTheoryTolerance) << quantum;
    EXPECT_NEAR(t.response_ns / static_cast<double>(t.jobs), r_ns,
                r_ns * kTheoryTolerance)
        << quantum;
  }
}

Process LoggedJob(Cpu& cpu, Time work, std::vector<std::string>& log,
                  std::string name) {
  co_await cpu.Run(work);
  log.push_back(name);
}

Process LoggedDelay(Simulation& sim, Time delay, std::vector<std::string>& log,
                    std::string name) {
  co_await sim.Delay(delay);
  log.push_back(name);
}

// A finished job resumes as an event scheduled at its finish would: after
// every event already due then. The job's finish (tick) at 100 was set
// before the other process scheduled its event for 100, so the tick runs
// first, and the job's resumption, newer than both, last. The second job
// finishes at 300 with nothing else due and goes on within its tick.
TEST(CpuTest, AFinishedJobResumesAfterEventsDueAtItsFinish) {
  Simulation sim;
  Cpu cpu(sim, 1);
  std::vector<std::string> log;
  sim.Spawn(LoggedJob(cpu, 100, log, "job"));
  sim.Spawn(LoggedDelay(sim, 100, log, "other"));
  ASSERT_TRUE(sim.Run(200).ok());
  EXPECT_EQ(log, (std::vector<std::string>{"other", "job"}));
  // Tick, other's event, the job's resumption.
  EXPECT_EQ(sim.events_executed(), 3);
  sim.Spawn(LoggedJob(cpu, 100, log, "alone"));
  ASSERT_TRUE(sim.Run(1000).ok());
  EXPECT_EQ(log, (std::vector<std::string>{"other", "job", "alone"}));
  EXPECT_EQ(sim.events_executed(), 5);  // its tick and its resumption
}

// Two jobs of 8e18 ns on one core would finish 1.6e19 ns on, past the
// clock's end: the finish is never, not a time wrapped into the past (a
// tick at once, again and again, until the event budget runs out).
TEST(CpuTest, AFinishPastTheClocksEndIsNever) {
  Budget budget;
  budget.max_events = 1000;
  Simulation sim(budget);
  Cpu cpu(sim, 1);
  Time a = -1, b = -1;
  sim.Spawn(CpuJob(sim, cpu, Time{8'000'000'000'000'000'000}, a));
  sim.Spawn(CpuJob(sim, cpu, Time{8'000'000'000'000'000'000}, b));
  const absl::Status s = sim.Run(kSec);
  EXPECT_TRUE(s.ok()) << s;
  EXPECT_EQ(a, -1);
  EXPECT_EQ(b, -1);
  EXPECT_EQ(sim.now(), kSec);
}

// Three 1 ns jobs on two cores progress at 2/3 ns each per ns: done after
// 1.5 ns, so the finish is rounded up to 2 (vtime 4/3 >= 1). Rounded down,
// the tick at 1 finds none done and sets itself for now again and again, to
// the event budget; rounded up where the wait is whole, the 4 ns alone job
// would end at 5.
TEST(CpuTest, AFractionalFinishIsRoundedUpAndAWholeOneIsNot) {
  Budget budget;
  budget.max_events = 1000;
  Simulation sim(budget);
  Cpu cpu(sim, 2);
  Time done[3] = {-1, -1, -1};
  for (Time& d : done) sim.Spawn(CpuJob(sim, cpu, 0, 1, d));
  Time alone = -1;
  sim.Spawn(CpuJob(sim, cpu, 10, 4, alone));
  const absl::Status s = sim.Run(kSec);
  ASSERT_TRUE(s.ok()) << s;
  for (Time d : done) EXPECT_EQ(d, 2);
  EXPECT_EQ(alone, 14);
}

}  // namespace
}  // namespace perflab::sim
