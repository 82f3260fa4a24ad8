// The order-service model with the default (seed-h2) calibration: 32
// closed-loop clients, 8 s warm-up, 15 s window (shorter under sanitizers).
// Case-study figures are typed from figures.md, and a step's figure is an
// expected value only at a held-out row, one no seed-h2 field reads (from its
// provenance, tools/calibration/seed_h2.cc); elsewhere the expected values are
// worked from the calibration's fields by hand. Nothing here is the model's
// own output.
#include "sim/order_service/model.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/sanitizers.h"
#include "tools/calibration/seed_h2.h"

namespace perflab::sim {
namespace {

constexpr bool kShortRuns = testing::kSanitized;
// Sanitized builds run 2 s + 3 s, not the rig's 8 s + 15 s: the cache and
// the GC are still warming up, so figures compared with the case study's
// only hold at full length (the release pass runs them).
constexpr const char* kShortRunsWhy =
    "figures need the rig's 8 s warm-up and 15 s window";

TEST(OrderServiceModel, BadCalibrationValuesAreRejectedNamingTheField) {
  Calibration c;
  c.item_statement_us = -1;
  absl::StatusOr<OrderServiceResult> r =
      RunOrderService(c, OrderServiceConfig{}, OrderServiceLoad{}, 1);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("item_statement_us"), std::string::npos);
  Calibration no_cores;
  no_cores.effective_cores = 0.5;  // rounds to no whole core
  r = RunOrderService(no_cores, OrderServiceConfig{}, OrderServiceLoad{}, 1);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("effective_cores"), std::string::npos);
  OrderServiceConfig small;
  small.heap_mib = 100;  // below the 206 MiB live set
  EXPECT_FALSE(
      RunOrderService(Calibration{}, small, OrderServiceLoad{}, 1).ok());
}

TEST(OrderServiceModel, SchedulingFieldsOutOfRangeAreRejected) {
  Calibration ws;
  ws.sched_quantum_us = 3000;
  ws.handler_working_set_kib = 2048;  // beyond the curve's 1 MiB
  absl::StatusOr<OrderServiceResult> r =
      RunOrderService(ws, OrderServiceConfig{}, OrderServiceLoad{}, 1);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("'handler_working_set_kib' = 2048"),
            std::string::npos)
      << r.status();
  EXPECT_NE(r.status().message().find("0 to 1024"), std::string::npos);
  Calibration quantum;
  quantum.sched_quantum_us = 2e6;
  r = RunOrderService(quantum, OrderServiceConfig{}, OrderServiceLoad{}, 1);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("'sched_quantum_us'"), std::string::npos)
      << r.status();
  Calibration negative;
  negative.sched_switch_us = -1;
  r = RunOrderService(negative, OrderServiceConfig{}, OrderServiceLoad{}, 1);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("'sched_switch_us'"), std::string::npos);
  Calibration contention;
  contention.contention_pool_16t_us = -0.5;
  r = RunOrderService(contention, OrderServiceConfig{}, OrderServiceLoad{}, 1);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("'contention_pool_16t_us' = -0.5"),
            std::string::npos)
      << r.status();
}

TEST(OrderServiceModel, SchedulingComesFromTheCalibration) {
  Calibration c;
  c.sched_quantum_us = 0;
  EXPECT_EQ(SchedulingOf(c).discipline, CpuDiscipline::kProcessorSharing);
  c.sched_quantum_us = 3000;
  c.sched_switch_us = 1.5;
  c.sched_refill_16kib_us = 0.25;
  c.sched_refill_64kib_us = 0.5;
  c.sched_refill_256kib_us = 1;
  c.sched_refill_1mib_us = 4;
  c.handler_working_set_kib = 40;
  const CpuScheduling s = SchedulingOf(c);
  EXPECT_EQ(s.discipline, CpuDiscipline::kSliced);
  EXPECT_EQ(s.quantum_ns, 3'000'000);
  EXPECT_EQ(s.switch_ns, 1500);
  ASSERT_EQ(s.refill.size(), 5u);
  EXPECT_EQ(s.refill[0].working_set_bytes, 0);
  EXPECT_EQ(s.refill[0].refill_ns, 0);
  EXPECT_EQ(s.refill[4].working_set_bytes, 1 << 20);
  EXPECT_EQ(s.refill[4].refill_ns, 4000);
  EXPECT_EQ(s.working_set_bytes, 40 * 1024);
  // 40 KiB is halfway from 16 to 64 KiB: 250 + (500 - 250) / 2 ns.
  EXPECT_EQ(RefillNs(s.refill, s.working_set_bytes), 375);
  EXPECT_TRUE(ValidateCpuScheduling(s).ok());
}

// One core, 32 closed-loop clients on 16 pooled threads, every request a
// fixed 100 us of CPU in one piece (no cache, no database, no call): the
// core is always busy and 16 threads always runnable. Under processor
// sharing nothing waits in a queue and nothing switches. Time-sliced with a
// quantum longer than a request and a switch of s = 10 us: each request is
// one slice of one thread, dispatched after another thread's, so it costs
// 100 + 10 us of CPU and waits for the 15 others ahead of it in the queue,
// 15 x 110 us; the core does 1 / 110 us = 9,091 requests a second.
TEST(OrderServiceModel, ASlicedCoreChargesEachSwitchAndQueuesTheRest) {
  Calibration c;
  c.other_cpu_us = 100;
  c.serialize_us = c.inventory_cpu_us = c.connect_us = 0;
  c.inventory_service_ms = 0;
  c.join_index_us = c.join_hold_ms = 0;
  c.alloc_per_request_mib = 0;
  c.work_cv = 0;
  c.effective_cores = 8;
  c.generator_cpu_per_request_us = 0;
  c.sched_quantum_us = 0;         // processor sharing first
  c.handler_working_set_kib = 0;  // nothing to refill
  OrderServiceConfig config;
  config.index = config.join = config.keep_alive = config.tcp_nodelay = true;
  config.cores = 1;
  const OrderServiceLoad load{.clients = 32, .warmup_s = 0.2, .duration_s = 1};
  absl::StatusOr<OrderServiceResult> ps = RunOrderService(c, config, load, 5);
  ASSERT_TRUE(ps.ok()) << ps.status();
  EXPECT_EQ(ps->run_queue_wait_us_per_request, 0);
  EXPECT_EQ(ps->slices_per_request, 0);
  EXPECT_NEAR(ps->cpu_us_per_request, 100, 1);
  c.sched_quantum_us = 1000;
  c.sched_switch_us = 10;
  absl::StatusOr<OrderServiceResult> sliced =
      RunOrderService(c, config, load, 5);
  ASSERT_TRUE(sliced.ok()) << sliced.status();
  EXPECT_NEAR(sliced->slices_per_request, 1, 0.01);
  EXPECT_NEAR(sliced->cpu_us_per_request, 110, 1);
  EXPECT_NEAR(sliced->scheduling_cores, 10.0 / 110, 0.005);
  EXPECT_NEAR(sliced->run_queue_wait_us_per_request, 15 * 110, 15 * 110 * 0.02);
  EXPECT_NEAR(sliced->rps, 1e6 / 110, 1e6 / 110 * 0.01);
}

struct Step {
  const char* name;  // the step's name in tools/capstone/steps.h
  double rps;        // the case study's median of three
  double cpu_cores;
};
// figures.md, capstone table.
constexpr std::array<Step, 10> kCaseStudy = {{{"baseline", 86, 4.3},
                                              {"index", 691, 4.0},
                                              {"join", 1224, 4.5},
                                              {"keep-alive", 263, 0.9},
                                              {"tcp-nodelay", 1762, 3.7},
                                              {"pool-8", 1973, 3.9},
                                              {"virtual-threads", 2469, 4.8},
                                              {"cache", 5293, 3.7},
                                              {"heap-768", 5214, 2.2},
                                              {"right-size", 6066, 1.9}}};

// The steps whose case-study row no field of the default calibration reads:
// the only ones whose figures may be expected values here. Computed from
// seed-h2's provenance, so a field that starts reading a row takes that row
// out of these tests.
std::vector<int> HeldOutSteps() {
  const std::vector<std::string> input = InputRows(
      capstone::DeriveSeedH2(capstone::CaseStudyFigures()).provenance);
  std::vector<int> held;
  for (int i = 0; i < 10; ++i) {
    if (std::find(input.begin(), input.end(), kCaseStudy[i].name) ==
        input.end()) {
      held.push_back(i);
    }
  }
  return held;
}

OrderServiceConfig Cumulative(int step) {
  OrderServiceConfig c;
  c.index = step >= 1;
  c.join = step >= 2;
  c.keep_alive = step >= 3;
  c.tcp_nodelay = step >= 4;
  if (step >= 5) c.db_pool = 8;
  c.virtual_threads = step >= 6;
  c.cache = step >= 7;
  if (step >= 8) c.heap_mib = case_study::kTunedHeapMib;
  if (step >= 9) c.cores = 4;
  return c;
}

class TenSteps : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    OrderServiceLoad load;
    if (kShortRuns) {
      load.warmup_s = 2;
      load.duration_s = 3;
    }
    for (int i = 0; i < 10; ++i) {
      absl::StatusOr<OrderServiceResult> r =
          RunOrderService(Calibration{}, Cumulative(i), load, 7);
      ASSERT_TRUE(r.ok()) << r.status();
      results_[i] = *r;
    }
  }
  static double Ratio(int i) { return results_[i].rps / kCaseStudy[i].rps; }
  static std::array<OrderServiceResult, 10> results_;
};
std::array<OrderServiceResult, 10> TenSteps::results_;

// ReadsField's claim, checked by running: a field a step does not read,
// changed by 50 %, leaves every figure of a same-seed run bit-identical; and
// the claim is not vacuous (a read field does change it).
// The histogram is the window's latencies (as many as the window's
// completions, RPS x window), and leaving it out changes nothing else.
TEST(OrderServiceModel, TheLatencyHistogramIsOptionalAndChangesNothingElse) {
  OrderServiceLoad load;
  load.warmup_s = 0.5;
  load.duration_s = 2;
  const absl::StatusOr<OrderServiceResult> with =
      RunOrderService(Calibration{}, Cumulative(4), load, 7);
  load.latency_histogram = false;
  const absl::StatusOr<OrderServiceResult> without =
      RunOrderService(Calibration{}, Cumulative(4), load, 7);
  ASSERT_TRUE(with.ok() && without.ok());
  ASSERT_TRUE(with->latency.has_value());
  EXPECT_EQ(with->latency->Count(), std::llround(with->rps * 2));
  EXPECT_FALSE(without->latency.has_value());
  EXPECT_EQ(without->rps, with->rps);
  EXPECT_EQ(without->p99_ms, with->p99_ms);
  EXPECT_EQ(without->events, with->events);
}

TEST(ReadsFieldTest, UnreadFieldsLeaveTheRunUnchanged) {
  OrderServiceLoad load;
  load.warmup_s = 0.5;
  load.duration_s = 1;
  int unread = 0;
  for (int step = 0; step < 10; ++step) {
    const OrderServiceConfig config = Cumulative(step);
    const absl::StatusOr<OrderServiceResult> base =
        RunOrderService(Calibration{}, config, load, 3);
    ASSERT_TRUE(base.ok());
    for (const CalibrationField& f : CalibrationFields()) {
      if (ReadsField(config, f.member)) continue;
      ++unread;
      Calibration changed;
      // + 1: a field at 0 (gzip, the C++ service's cpp_*) changes too.
      changed.*f.member = changed.*f.member * 1.5 + 1;
      const absl::StatusOr<OrderServiceResult> r =
          RunOrderService(changed, config, load, 3);
      ASSERT_TRUE(r.ok());
      EXPECT_EQ(r->rps, base->rps) << f.name << " at step " << step;
      EXPECT_EQ(r->p99_ms, base->p99_ms) << f.name << " at step " << step;
      EXPECT_EQ(r->cpu_cores, base->cpu_cores) << f.name << " step " << step;
    }
  }
  // Per step, by hand: baseline 6 (index query, both joins, the join's
  // hold, cache lookup, stall), index 6 (the scan instead of the index
  // query), join 6 (both
  // N+1 queries, item statements, join scan, cache, stall), keep-alive 5
  // (the stall is read), TCP_NODELAY, pool 8 and virtual threads 6 each
  // (the stall again unread), cache on: 5 each for the last three; and at
  // every step the ten cpp_* figures (the whole C++ service's four, its five
  // parts and perflab's generator), which only capstone --real reads.
  EXPECT_EQ(unread, 6 + 6 + 6 + 5 + 6 + 6 + 6 + 5 + 5 + 5 + 10 * 10);
  // Whole cores: 4 +- 10 % is 4 for the app (2 at 4 vCPU) and the
  // generator, so SameRun says so, and the runs agree bit for bit.
  for (double f : {0.9, 1.1}) {
    for (int step : {0, 9}) {
      Calibration cores;
      cores.effective_cores *= f;
      cores.generator_cores *= f;
      EXPECT_TRUE(SameRun(Calibration{}, cores, Cumulative(step)));
      EXPECT_EQ(RunOrderService(cores, Cumulative(step), load, 3)->rps,
                RunOrderService(Calibration{}, Cumulative(step), load, 3)->rps);
    }
  }
  Calibration more_cores;
  more_cores.effective_cores = 6;
  EXPECT_FALSE(SameRun(Calibration{}, more_cores, Cumulative(0)));
  Calibration join_cost;
  join_cost.join_index_us *= 2;  // not read without the join
  EXPECT_TRUE(SameRun(Calibration{}, join_cost, Cumulative(0)));
  EXPECT_FALSE(SameRun(Calibration{}, join_cost, Cumulative(2)));
  Calibration scan;
  scan.orders_query_scan_us *= 1.5;
  EXPECT_NE(RunOrderService(scan, Cumulative(0), load, 3)->rps,
            RunOrderService(Calibration{}, Cumulative(0), load, 3)->rps);
}

// Directions the calibration's own costs imply, not agreement with the case
// study (every row but keep-alive fed a field or a choice): the index
// replaces a 44 ms scan with a 39 us lookup; the join one statement for 81;
// without TCP_NODELAY each kept-alive call stalls 43 ms, with it not; virtual
// threads lift the 16-thread cap; the cache skips the database.
TEST_F(TenSteps, StepsMoveThroughputAsTheirCostsSay) {
  EXPECT_GT(results_[1].rps, 2 * results_[0].rps) << "index";
  EXPECT_GT(results_[2].rps, results_[1].rps) << "join";
  EXPECT_LT(results_[3].rps, results_[2].rps / 2) << "keep-alive stall";
  EXPECT_GT(results_[4].rps, 2 * results_[3].rps) << "TCP_NODELAY";
  EXPECT_GT(results_[6].rps, results_[5].rps) << "virtual threads";
  EXPECT_GT(results_[7].rps, results_[6].rps) << "cache";
}

// Worked by hand from the default calibration's fields (the GC model of
// sim/gc.h), not from the case study's heap row, which its
// gc_concurrent_cpu_per_mib_us reads: a young collection every
// (heap - live set) MiB allocated, a pause of base + per MiB x that young
// generation on all the app's cores, and concurrent marking while the live
// set is above 45 % of the heap.
double YoungMib(const Calibration& c, double heap_mib) {
  return heap_mib - c.live_set_mib;
}
double GcUsPerRequest(const Calibration& c, double heap_mib, double cores) {
  const double young = YoungMib(c, heap_mib);
  const double pause_ms =
      c.young_pause_base_ms + c.young_pause_per_mib_ms * young;
  const double pauses =
      c.alloc_per_request_mib * 1e3 * pause_ms * cores / young;  // core-us
  const bool marking = c.live_set_mib > 0.45 * heap_mib;
  return pauses +
         (marking ? c.gc_concurrent_cpu_per_mib_us * c.alloc_per_request_mib
                  : 0);
}

// The same throughput with far less GC CPU. seed-h2 at 256 MiB: young
// 50 MiB, a pause of 2.5 + 0.028 x 50 = 3.9 ms on 4 cores every 50 / 0.1636
// requests = 51.0 us, plus marking 1,511.5 x 0.1636 = 247.3 us a request;
// at 768 MiB: young 562, 18.24 ms x 4 x 0.1636 / 562 = 21.2 us and no
// marking (206 < 0.45 x 768 = 345.6).
TEST_F(TenSteps, HeapStepLowersCpuAtAboutTheSameThroughput) {
  if (kShortRuns) GTEST_SKIP() << kShortRunsWhy;
  const Calibration c;
  const OrderServiceResult& small = results_[7];
  const OrderServiceResult& big = results_[8];
  EXPECT_NEAR(big.rps, small.rps, 0.05 * small.rps);
  const double want_small = GcUsPerRequest(c, case_study::kHeapMib, 4);
  const double want_big = GcUsPerRequest(c, case_study::kTunedHeapMib, 4);
  EXPECT_NEAR(want_small, 298.3, 0.1);  // the arithmetic above
  EXPECT_NEAR(want_big, 21.2, 0.1);
  EXPECT_NEAR(1e6 * small.cpu.gc / small.rps, want_small, 0.05 * want_small);
  EXPECT_NEAR(1e6 * big.cpu.gc / big.rps, want_big, 0.05 * want_big);
  // Collections in the 15 s window: requests x allocation / young MiB
  // (about 278 and 26), give or take the one in progress at each end.
  for (const auto& [r, heap] : {std::pair{&small, case_study::kHeapMib},
                                std::pair{&big, case_study::kTunedHeapMib}}) {
    const double want =
        r->rps * 15 * c.alloc_per_request_mib / YoungMib(c, heap);
    EXPECT_NEAR(static_cast<double>(r->gc_pauses), want, 0.03 * want + 1)
        << heap << " MiB";
  }
  EXPECT_LT(big.gc_pause_total_ms, small.gc_pause_total_ms);
}

// The CPU column at the held-out steps only (seed-h2: keep-alive); an input
// row's cores agree partly because a field read them (effective_cores is
// the mean of five rows' CPU).
TEST_F(TenSteps, HeldOutCpuFollowsTheCaseStudys) {
  if (kShortRuns) GTEST_SKIP() << kShortRunsWhy;
  const std::vector<int> held = HeldOutSteps();
  ASSERT_FALSE(held.empty());
  for (int i : held) {
    EXPECT_NEAR(results_[i].cpu_cores, kCaseStudy[i].cpu_cores, 0.85)
        << kCaseStudy[i].name;
  }
  // The database holds most of the baseline's CPU (JFR: 97 %; no field
  // reads kJfrDatabasePct).
  EXPECT_GT(results_[0].cpu.database / results_[0].cpu_cores, 0.9);
  // A 4 vCPU step gets 4 x 4 / 8 = 2 cores of work: never more busy.
  EXPECT_LE(results_[9].cpu_cores, 2.0 + 1e-9);
}

// CPU per request as the fields add up along one request's path, worked by
// hand: the framework's other CPU, the cache lookup when the cache is on; on
// a miss (1 - the hit ratio) the inventory call, a new connection without
// keep-alive, the database (the first query and 80 statements, or the
// join); serialisation, which a hit does too; and GC (above) on the app's
// cores. The seed-h2 arithmetic ran the other way from the index,
// TCP_NODELAY, cache and heap rows; here the expected value is the fields',
// not those rows', at every step, whatever RPS the model reaches.
TEST_F(TenSteps, CpuPerRequestIsWhatItsFieldsAddUpTo) {
  if (kShortRuns) GTEST_SKIP() << kShortRunsWhy;
  const Calibration c;
  for (int i = 0; i < 10; ++i) {
    const OrderServiceConfig k = Cumulative(i);
    const double miss = k.cache ? 1 - results_[i].cache_hit_ratio : 1;
    const double database =
        k.join ? (k.index ? c.join_index_us : c.join_scan_us)
               : (k.index ? c.orders_query_index_us : c.orders_query_scan_us) +
                     80 * c.item_statement_us;
    const double call = c.inventory_cpu_us + (k.keep_alive ? 0 : c.connect_us);
    // Whole cores of work: effective_cores of the 8 vCPUs, scaled and rounded.
    const double cores =
        std::round(c.effective_cores * static_cast<double>(k.cores) / 8);
    const double want = c.other_cpu_us + (k.cache ? c.cache_hit_us : 0) +
                        c.serialize_us + miss * (call + database) +
                        GcUsPerRequest(c, k.heap_mib, cores);
    // The time-sliced core's own cost, charged apart: at most a switch and
    // a refill of the 168 KiB working set per slice, 2 + 0.6 + (1.2 - 0.6)
    // x (168 - 64) / (256 - 64) = 2.925 us.
    const double scheduling =
        1e6 * results_[i].scheduling_cores / results_[i].rps;
    EXPECT_LE(scheduling, results_[i].slices_per_request * 2.925 + 1e-6)
        << kCaseStudy[i].name;
    const double got = 1e6 * results_[i].cpu_cores / results_[i].rps;
    EXPECT_NEAR((got - scheduling) / want, 1.0, 0.03) << kCaseStudy[i].name;
  }
}

// The caps in series at the baseline, checked by Little's law (L = lambda W)
// from the closed loop's structure, not from the waits' own bookkeeping: all
// 16 threads are busy, so of the 32 clients 16 wait for a thread, less the
// few at the generator (0.66 ms a request, under 1 on average); of the 16
// threads, those not holding one of the 4 connections wait for one, less
// those in the stub call or their other CPU (about 10 ms a request, under 2).
TEST_F(TenSteps, CapWaitsAgreeWithLittlesLaw) {
  if (kShortRuns) GTEST_SKIP() << kShortRunsWhy;
  const OrderServiceResult& r = results_[0];
  EXPECT_EQ(r.threads, 16);
  EXPECT_GT(r.threads_busy, 15.9);
  EXPECT_GE(r.thread_wait_ms, 1e3 * (32 - 16 - 1) / r.rps);
  EXPECT_LE(r.thread_wait_ms, 1e3 * (32 - 16) / r.rps);
  EXPECT_LE(r.pool_busy, 4.0);
  EXPECT_GE(r.pool_wait_ms, 1e3 * (16 - 4 - 2) / r.rps);
  EXPECT_LE(r.pool_wait_ms, 1e3 * (16 - r.pool_busy) / r.rps);
  EXPECT_EQ(r.app_cores, 4);
  // Virtual threads: no cap, so nothing to hold or wait for.
  EXPECT_EQ(results_[6].threads, 0);
  EXPECT_EQ(results_[6].threads_busy, 0);
  EXPECT_EQ(results_[6].thread_wait_ms, 0);
  // A 4 vCPU step: 4 x 4 / 8 = 2 whole cores.
  EXPECT_EQ(results_[9].app_cores, 2);
}

// The model's fidelity target, where it is a prediction: within 30 % of the
// case study's RPS at every held-out step (seed-h2: keep-alive alone, the
// one row nothing read or was chosen on). Input rows are not scored: a
// field read them or a choice was made on them.
TEST_F(TenSteps, HeldOutStepsWithinThirtyPercent) {
  if (kShortRuns) GTEST_SKIP() << kShortRunsWhy;
  const std::vector<int> held = HeldOutSteps();
  ASSERT_FALSE(held.empty());
  for (int i : held) {
    EXPECT_NEAR(Ratio(i), 1.0, 0.3) << kCaseStudy[i].name << " (report)";
  }
}

// The mechanism join_hold_ms adds, not a prediction (the hold, and its
// application to the join alone, were chosen so that this step gains: its
// provenance names pool-8 in selected_on). The join's 1,050.9 us of CPU
// alone would hold 1,762 x 1.05 ms = 1.85 connections, 0.46 of a pool of 4:
// too idle to be the limit; with 1.2192 ms more held per join, 4 / (2.27
// ms) = 1,762 RPS is the pool's ceiling, and 8 connections lift it.
// Under processor sharing: on the time-sliced core a thread waits in the
// run queue while it holds its connection, which stretches every hold, so
// there the CPU, not the pool, is what binds (capstone --validate shows it).
TEST(HeldJoin, MakesThePoolBindUnderProcessorSharing) {
  Calibration c;
  c.sched_quantum_us = 0;
  OrderServiceLoad load;
  load.warmup_s = 2;
  load.duration_s = 4;
  absl::StatusOr<OrderServiceResult> nodelay =
      RunOrderService(c, Cumulative(4), load, 7);
  absl::StatusOr<OrderServiceResult> pool8 =
      RunOrderService(c, Cumulative(5), load, 7);
  ASSERT_TRUE(nodelay.ok() && pool8.ok());
  EXPECT_GT(pool8->rps, nodelay->rps * 1.05);
}

// The open loop can start on the cache a closed loop left: 100,000 earlier
// requests over 13 s have drawn nearly every id (the coldest of 5,000 has a
// 1 - (4999/5000)^(1/3) = 6.7e-5 chance a draw, so e^-6.7 of missing), and
// none has expired (30 s TTL), so 200 open requests hit. Cold, the same 200
// requests first have to load each id they meet.
TEST(OrderServiceModel, OpenLoopCanStartOnTheCacheAClosedLoopLeft) {
  OrderServiceConfig config = Cumulative(7);  // the cache step
  ASSERT_TRUE(config.cache);
  OrderServiceLoad load;
  load.open = true;
  load.rate_per_s = 40;
  load.warmup_s = 0;
  load.duration_s = 5;
  const absl::StatusOr<OrderServiceResult> cold =
      RunOrderService(Calibration{}, config, load, 42);
  load.cache_prewarm_requests = 100'000;
  load.cache_prewarm_s = 13;
  const absl::StatusOr<OrderServiceResult> warm =
      RunOrderService(Calibration{}, config, load, 42);
  ASSERT_TRUE(cold.ok() && warm.ok());
  EXPECT_LT(cold->cache_hit_ratio, 0.8);
  EXPECT_GT(warm->cache_hit_ratio, 0.99);
  // A miss waits for the 5 ms stub; with (nearly) none, neither does p99.
  EXPECT_GT(cold->p99_ms, 5);
  EXPECT_LT(warm->p99_ms, 5);
  load.cache_prewarm_requests = -1;
  EXPECT_FALSE(RunOrderService(Calibration{}, config, load, 42).ok());
}

}  // namespace
}  // namespace perflab::sim
