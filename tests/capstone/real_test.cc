// perflab capstone --real, quickly: baseline, + index, + cache run for real
// against a child `perflab orders-service` and composed by the model. The
// real throughput must rise at each step, and the composed table must order
// the steps the same way. Bounded to about 20 s (2 s closed loop per step).
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <variant>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "tests/sanitizers.h"
#include "tests/temp_dir.h"
#include "tests/tools/cli_runner.h"
#include "tools/calibration/calibrate.h"
#include "tools/calibration/calibration_io.h"
#include "tools/capstone/real_run.h"

namespace perflab::capstone {
namespace {

using perflab::testing::ExpectOneLineExit2;
using perflab::testing::HeldPort;

TEST(CapstoneReal, BaselineIndexCacheRiseForRealAndComposed) {
  auto steps = ParseSteps("baseline,index,cache");
  ASSERT_TRUE(steps.ok());
  auto file = ReadCalibrationFile(
      absl::StrCat(PERFLAB_SOURCE_DIR,
                   "/fixtures/calibration/reference-xeon-2vcpu-2026-12.json"));
  ASSERT_TRUE(file.ok()) << file.status();
  RealOptions o;
  o.steps = *steps;
  o.calibration = file->values;
  o.service_binary = PERFLAB_BINARY;
  // A fifth of the data (1,000 customers): the scan stays the bottleneck of
  // the baseline and the dataset is quick to generate. The calibration's
  // costs are for the full dataset, so only orderings are compared here.
  o.scale = 0.2;
  const perflab::testing::TempDir tmp;
  o.dataset = tmp.File("perflab_real_test.sqlite");
  o.repeats = 1;
  o.warmup_s = 0.5;
  o.closed_s = 2;
  o.open_s = 1;
  o.wrk = false;
  auto c = RunReal(o);
  ASSERT_TRUE(c.ok()) << c.status();
  ASSERT_EQ(c->real.size(), 3u);
  ASSERT_EQ(c->composed.size(), 3u);
  // The index removes the scan and the cache the page's statements. On the
  // real side that is checked as the service's CPU per request (its threads'
  // schedstat), not its RPS: the RPS is what the core it is pinned to gives
  // it, and a test beside it takes a share of that core (a release run
  // with 0.59 of a core at the index step got 1.65x the baseline's RPS for
  // 2.5x less CPU per request). Measured per request: 1,243 -> 493 -> 39 us
  // in release, 7,355 -> 2,605 -> 2,374 us under ASan, where what the cache
  // saves is uninstrumented SQLite and both steps still pay our instrumented
  // code and ASan's allocator; and beside a loaded ASan suite the baseline
  // spent only 3,899 us, 1.5x the index's. So only release checks the CPU;
  // the sanitizers check the statements below. A service that ignored
  // --index or the cache would be about 1x.
  if (!testing::kSanitized) {
    EXPECT_LT(c->real[1].cpu_us_per_request,
              c->real[0].cpu_us_per_request / 1.5);
    EXPECT_LT(c->real[2].cpu_us_per_request,
              c->real[1].cpu_us_per_request / 1.5);
  }
  // The composed side is simulated, so its RPS does not move with the load:
  // the index about 16x at this calibration, the cache a small rise (its
  // misses still pay N+1), so only the order is checked there.
  EXPECT_GT(c->composed[1].rps, 2 * c->composed[0].rps);
  EXPECT_GT(c->composed[2].rps, c->composed[1].rps);
  // N+1 without the cache: 1 + 20 + 60 statements per page (by hand).
  EXPECT_NEAR(c->real[0].queries_per_request, 81, 0.5);
  EXPECT_NEAR(c->real[1].queries_per_request, 81, 0.5);
  // Skewed ids over 1,000 customers: pages repeat within the window, the
  // more the more requests it holds (0.56 in a release run; 0.37 under ASan
  // beside a clang-tidy run), so only the release suite bounds the ratio. In
  // every build each hit saves the page's 81 statements: the service's
  // statement counter agrees with its cache counters (a boundary request
  // moves it by about 0.1).
  EXPECT_GT(c->real[2].cache_hit_ratio, testing::kSanitized ? 0.05 : 0.5);
  EXPECT_NEAR(c->real[2].queries_per_request,
              81 * (1 - c->real[2].cache_hit_ratio), 1.5);
  for (const RealFigures& f : c->real) EXPECT_EQ(f.errors, 0);
  core::Document doc = ToRealDocument(*c, "reference");
  std::cout << core::Render(doc, core::Format::kTable);
  ASSERT_NE(doc.FindTable("difference"), nullptr);
  EXPECT_EQ(doc.FindTable("real")->rows.size(), 3u);
}

// The composed side models a C++ service: no JVM framework cost and no GC.
// Without measured cpp_* figures its "other" CPU is the server's half of a
// kept-alive loopback request, and a 2 s closed run of the join step then
// spends nothing on GC.
TEST(CapstoneReal, ComposedServiceHasNoJvmCosts) {
  sim::Calibration jvm;
  jvm.inventory_cpu_us = 24;
  sim::OrderServiceConfig config;
  config.index = config.join = true;
  const sim::Calibration cpp = CppService(jvm, config);
  EXPECT_EQ(cpp.other_cpu_us, 12);
  EXPECT_EQ(cpp.inventory_cpu_us, 24);
  EXPECT_EQ(cpp.alloc_per_request_mib, 0);
  EXPECT_EQ(cpp.join_index_us, jvm.join_index_us);  // measured costs stay
  auto r =
      sim::RunOrderService(cpp, config, {.warmup_s = 1, .duration_s = 2}, 42);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_GT(r->rps, 0);
  EXPECT_EQ(r->cpu.gc, 0);
  EXPECT_EQ(r->gc_pauses, 0);
}

// Every composed figure is a median of the repeats: without one there is
// nothing to take it of, so the options are refused.
TEST(CapstoneReal, ComposeScaledNeedsARepeat) {
  auto steps = ParseSteps("baseline");
  ASSERT_TRUE(steps.ok());
  RealOptions o;
  o.steps = *steps;
  o.repeats = 0;
  auto composed = ComposeScaled(o);
  ASSERT_FALSE(composed.ok());
  EXPECT_EQ(composed.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(composed.status().message(), "repeats = 0"))
      << composed.status();
}

// Parts chosen so every sum is distinct. By hand: pooled, the front end
// 12 + the hand-off 5 = 17 per request, and a miss's inventory call carries
// its own 20 + one idle wake 25 + the heap-built graph 11 = 56; one thread
// per connection, 12 with the same 56; from the heap step on (--arena) the
// graph is the arena's 4, so 20 + 25 + 4 = 49.
sim::Calibration Parts() {
  sim::Calibration c;
  c.serialize_us = 8;
  c.gzip_us = 0;
  c.cache_hit_us = 1;
  c.inventory_cpu_us = 20;
  c.join_index_us = 80;
  c.cpp_front_end_us = 12;
  c.cpp_handoff_us = 5;
  c.cpp_idle_wake_us = 25;
  c.cpp_build_page_us = 11;
  c.cpp_build_page_arena_us = 4;
  c.cpp_hit_pooled_us = 50;
  c.cpp_miss_pooled_us = 300;
  c.cpp_hit_per_connection_us = 35;
  c.cpp_miss_per_connection_us = 190;
  return c;
}

TEST(CapstoneReal, TheGeneratorIsPerflabsClientMeasuredAlone) {
  sim::Calibration c = Parts();
  c.generator_cpu_per_request_us = 659.4;  // seed-h2's JVM client
  sim::OrderServiceConfig config;
  EXPECT_DOUBLE_EQ(CppService(c, config).generator_cpu_per_request_us, 659.4);
  c.cpp_generator_cpu_us = 42;
  EXPECT_DOUBLE_EQ(CppService(c, config).generator_cpu_per_request_us, 42);
}

// The kernel's view beside the model's, by hand: CPU 400 real against 300
// composed is -25 %, a wait of 100 against 90 is -10 %, 4 slices against 5
// is +25 %; only the second step's CPU (210 against 200, -4.8 %) is within
// 20 %, and both waits are.
TEST(CapstoneReal, MechanismsAreShownForBothSidesWithTheirDifference) {
  RealComparison c;
  const std::vector<const Step*> steps = {&AllSteps()[0], &AllSteps()[1]};
  c.steps = steps;
  c.real = {{.rps = 100}, {.rps = 200}};
  c.composed = {{.rps = 100}, {.rps = 200}};
  c.real[0].cpu_us_per_request = 400;
  c.composed[0].cpu_us_per_request = 300;
  c.real[0].wait_us_per_request = 100;
  c.composed[0].wait_us_per_request = 90;
  c.real[0].slices_per_request = 4;
  c.composed[0].slices_per_request = 5;
  c.real[1].cpu_us_per_request = 210;
  c.composed[1].cpu_us_per_request = 200;
  c.real[1].wait_us_per_request = 50;
  c.composed[1].wait_us_per_request = 55;
  const core::Document doc = ToRealDocument(c, "hand");
  const core::Table* t = doc.FindTable("mechanisms");
  ASSERT_NE(t, nullptr);
  ASSERT_EQ(t->rows.size(), 2u);
  EXPECT_DOUBLE_EQ(std::get<double>(t->rows[0][1]), 400);
  EXPECT_DOUBLE_EQ(std::get<double>(t->rows[0][2]), 300);
  EXPECT_DOUBLE_EQ(std::get<double>(t->rows[0][3]), -25);
  EXPECT_DOUBLE_EQ(std::get<double>(t->rows[0][6]), -10);
  EXPECT_DOUBLE_EQ(std::get<double>(t->rows[0][9]), 25);
  EXPECT_NEAR(std::get<double>(t->rows[1][3]), -100.0 / 21, 1e-12);
  const std::string json = core::ToJson(doc);
  EXPECT_TRUE(absl::StrContains(json, "\"steps_cpu_within_20_pct\":1")) << json;
  EXPECT_TRUE(absl::StrContains(json, "\"steps_wait_within_20_pct\":2"))
      << json;
}

// Sharing's cost lands where each part is used, at the step's threads:
// the counters on every request (other), the lookup with the cache, the
// pool and the page on a miss (the inventory call's CPU), the page's none
// with the arena. 16 pooled threads read the 16-thread figures; 8 threads
// the 8-thread ones; a thread per connection the 16-thread ones.
TEST(CapstoneReal, SharingCostsLandOnEachPartsUse) {
  sim::Calibration c = Parts();
  sim::OrderServiceConfig pooled;
  pooled.index = pooled.join = pooled.keep_alive = pooled.tcp_nodelay = true;
  const sim::Calibration alone = CppService(c, pooled);
  c.contention_stats_16t_us = 0.5;
  c.contention_cache_16t_us = 0.25;
  c.contention_pool_16t_us = 1;
  c.contention_page_16t_us = 2;
  c.contention_page_8t_us = 1.5;
  sim::Calibration p = CppService(c, pooled);
  EXPECT_DOUBLE_EQ(p.other_cpu_us, alone.other_cpu_us + 0.5);
  EXPECT_DOUBLE_EQ(p.cache_hit_us, alone.cache_hit_us);  // no cache yet
  EXPECT_DOUBLE_EQ(p.inventory_cpu_us, alone.inventory_cpu_us + 3);
  pooled.cache = true;
  EXPECT_DOUBLE_EQ(CppService(c, pooled).cache_hit_us,
                   alone.cache_hit_us + 0.25);
  pooled.request_threads = 8;
  EXPECT_DOUBLE_EQ(CppService(c, pooled).inventory_cpu_us,
                   alone.inventory_cpu_us + 1.5);
  pooled.request_threads = 16;
  pooled.virtual_threads = true;
  EXPECT_DOUBLE_EQ(CppService(c, pooled).inventory_cpu_us,
                   CppService(Parts(), pooled).inventory_cpu_us + 3);
  pooled.virtual_threads = false;
  pooled.heap_mib = 768;  // the arena: no global-heap allocations
  sim::Calibration arena_alone = Parts();
  EXPECT_DOUBLE_EQ(CppService(c, pooled).inventory_cpu_us,
                   CppService(arena_alone, pooled).inventory_cpu_us + 1);
}

TEST(CapstoneReal, EachStepsCostsAreTheSumOfItsParts) {
  const sim::Calibration c = Parts();
  sim::OrderServiceConfig pooled;
  pooled.index = pooled.join = pooled.keep_alive = pooled.tcp_nodelay = true;
  const sim::Calibration p = CppService(c, pooled);
  EXPECT_DOUBLE_EQ(p.other_cpu_us, 17);
  EXPECT_DOUBLE_EQ(p.inventory_cpu_us, 56);
  EXPECT_DOUBLE_EQ(p.join_index_us, 80);  // measured costs stay
  EXPECT_DOUBLE_EQ(p.serialize_us, 8);
  sim::OrderServiceConfig per_connection = pooled;
  per_connection.virtual_threads = true;
  const sim::Calibration v = CppService(c, per_connection);
  EXPECT_DOUBLE_EQ(v.other_cpu_us, 12);
  EXPECT_DOUBLE_EQ(v.inventory_cpu_us, 56);
  sim::OrderServiceConfig arena = pooled;
  arena.heap_mib = 768;
  EXPECT_DOUBLE_EQ(CppService(c, arena).inventory_cpu_us, 49);
  // The composed service then spends those parts per miss: without a cache,
  // 17 + join 80 + call 56 + serialisation 8 = 161 us; an open loop of
  // 40 req/s on one core, CPU cores / RPS.
  pooled.cores = 1;
  sim::Calibration one = c;
  one.effective_cores = 8;  // one vCPU -> one whole core
  auto r = sim::RunOrderService(
      CppService(one, pooled), pooled,
      {.open = true, .rate_per_s = 40, .warmup_s = 1, .duration_s = 30}, 42);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_NEAR(r->cpu_cores / r->rps * 1e6, 161, 161 * 0.05);
}

// The whole service beside its parts, by hand from Parts(): a hit is the
// front end + the lookup 1 + serialisation 8 (pooled 17 + 9 = 26, per
// connection 12 + 9 = 21); a miss (no cache) the front end + join 80 + the
// call's 56 + 8 (161, 156). The whole is the calibration's cpp_* figure.
TEST(CapstoneReal, WholeServiceIsShownBesideTheSumOfItsParts) {
  const CppWholeAndParts w = CompareCppParts(Parts());
  ASSERT_EQ(w.rows.size(), 4u);
  const double whole[] = {50, 300, 35, 190};
  const double parts[] = {26, 161, 21, 156};
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_DOUBLE_EQ(w.rows[i].whole_us, whole[i]) << w.rows[i].what;
    EXPECT_DOUBLE_EQ(w.rows[i].parts_us, parts[i]) << w.rows[i].what;
  }
  EXPECT_EQ(w.rows[0].what, "hit, 16 threads");
  EXPECT_EQ(w.rows[3].what, "miss, thread per connection");
  // In capstone --real's output, with the gap: (26 - 50) / 50 = -48 %.
  RealComparison c;
  c.whole_and_parts = w;
  const core::Document doc = ToRealDocument(c, "parts");
  const core::Table* t = doc.FindTable("whole_and_parts");
  ASSERT_NE(t, nullptr);
  ASSERT_EQ(t->rows.size(), 4u);
  EXPECT_DOUBLE_EQ(std::get<double>(t->rows[0][1]), 50);
  EXPECT_DOUBLE_EQ(std::get<double>(t->rows[0][2]), 26);
  EXPECT_DOUBLE_EQ(std::get<double>(t->rows[0][3]), -48);
}

// The composed side reads no figure measured on the whole service: at every
// step of the case study, CppService gives the same costs whatever the four
// whole-service figures are, and the benchmark map feeds every other field
// from a benchmark that is not BM_OrdersService (while it does feed those
// four from it, so the check sees the name where it is).
TEST(CapstoneReal, ComposedSideReadsNothingMeasuredOnTheWholeService) {
  sim::Calibration a = Parts();
  sim::Calibration b = a;
  b.cpp_hit_pooled_us *= 3;
  b.cpp_miss_pooled_us *= 5;
  b.cpp_hit_per_connection_us *= 7;
  b.cpp_miss_per_connection_us *= 11;
  std::vector<const Step*> steps;
  for (const Step& s : AllSteps()) steps.push_back(&s);
  for (const sim::OrderServiceConfig& config : CumulativeConfigs(steps)) {
    const sim::Calibration ca = CppService(a, config);
    const sim::Calibration cb = CppService(b, config);
    for (const sim::CalibrationField& f : sim::CalibrationFields()) {
      if (f.name.starts_with("cpp_hit_") || f.name.starts_with("cpp_miss_")) {
        continue;
      }
      EXPECT_EQ(ca.*f.member, cb.*f.member) << f.name;
    }
  }
  std::ifstream in(DefaultMapPath());
  std::stringstream text;
  text << in.rdbuf();
  auto map = ParseCalibrationMap(text.str());
  ASSERT_TRUE(map.ok()) << map.status();
  int whole = 0;
  for (const FieldSource& s : *map) {
    const bool names_whole =
        absl::StrContains(s.benchmark, "BM_OrdersService") ||
        absl::StrContains(s.minus, "BM_OrdersService");
    const bool whole_field =
        s.field.starts_with("cpp_hit_") || s.field.starts_with("cpp_miss_");
    EXPECT_EQ(names_whole, whole_field) << s.field << ": " << s.benchmark;
    whole += whole_field;
  }
  EXPECT_EQ(whole, 4);
  // Every part CppService composes is measured by the map.
  for (const char* part :
       {"cpp_front_end_us", "cpp_handoff_us", "cpp_idle_wake_us",
        "cpp_build_page_us", "cpp_build_page_arena_us", "serialize_us",
        "cache_hit_us", "join_index_us", "inventory_cpu_us", "connect_us"}) {
    bool mapped = false;
    for (const FieldSource& s : *map) mapped = mapped || s.field == part;
    EXPECT_TRUE(mapped) << part;
  }
}

// Nor any figure of the case study's own service: with the reference
// calibration, tripling a field that reads the ten-step table or was fitted
// on it moves no composed figure at any step. The generator's cost (seed-h2's
// is fitted on the last row) is among them: the composed side reads
// perflab's own client, measured alone (cpp_generator_cpu_us).
TEST(CapstoneReal, ComposedSideReadsNoFigureOfTheCaseStudysTable) {
  auto file = ReadCalibrationFile(
      absl::StrCat(PERFLAB_SOURCE_DIR,
                   "/fixtures/calibration/reference-xeon-2vcpu-2026-12.json"));
  ASSERT_TRUE(file.ok()) << file.status();
  RealOptions o = QuickRealOptions({});
  for (const Step& s : AllSteps()) o.steps.push_back(&s);
  o.warmup_s = 0.2;
  o.closed_s = 0.5;
  o.open_s = 0.5;
  o.calibration = file->values;
  ASSERT_GT(o.calibration.cpp_generator_cpu_us, 0);
  auto base = ComposeScaled(o);
  ASSERT_TRUE(base.ok()) << base.status();
  const std::vector<sim::CalibrationField>& fields = sim::CalibrationFields();
  ASSERT_EQ(file->provenance.size(), fields.size());
  int varied = 0;
  for (size_t i = 0; i < fields.size(); ++i) {
    // Every field that reads a row of the case study's table, through a
    // cell, a choice made on it or a figure of its run.
    if (sim::InputRows({file->provenance[i]}).empty()) continue;
    RealOptions tripled = o;
    // Tripled, except the live set: three times the cache step's does not
    // fit its 256 MiB heap, so it grows by a fifth.
    tripled.calibration.*fields[i].member *=
        fields[i].member == &sim::Calibration::live_set_mib ? 1.2 : 3;
    auto moved = ComposeScaled(tripled);
    ASSERT_TRUE(moved.ok()) << moved.status();
    for (size_t s = 0; s < base->size(); ++s) {
      const std::string at =
          std::string(fields[i].name) + " at " + std::string(o.steps[s]->name);
      EXPECT_EQ((*moved)[s].rps, (*base)[s].rps) << at;
      EXPECT_EQ((*moved)[s].p99_ms, (*base)[s].p99_ms) << at;
      EXPECT_EQ((*moved)[s].cpu_cores, (*base)[s].cpu_cores) << at;
    }
    ++varied;
  }
  // other_cpu_us, live_set_mib, young_pause_base_ms, young_pause_per_mib_ms,
  // gc_concurrent_cpu_per_mib_us, generator_cpu_per_request_us,
  // effective_cores (the fixture's copies from seed-h2 that name rows,
  // selections or runs)
  EXPECT_EQ(varied, 7);
}

// A move counts only beyond 5 % and beyond the repeats' spread: x1.07 with
// overlapping repeats is flat, the same x1.07 with separated repeats is up.
TEST(CapstoneReal, DirectionNeedsMoreThanTheRepeatsSpread) {
  auto figures = [](double lo, double median, double hi) {
    RealFigures f;
    f.rps_min = lo;
    f.rps = median;
    f.rps_max = hi;
    return f;
  };
  const RealFigures before = figures(900, 1000, 1100);
  EXPECT_EQ(StepDirection(before, figures(1000, 1070, 1200)), 0);
  EXPECT_EQ(StepDirection(before, figures(1101, 1070, 1200)), 1);
  EXPECT_EQ(StepDirection(before, figures(1101, 1040, 1200)), 0);  // < 5 %
  EXPECT_EQ(StepDirection(before, figures(700, 800, 899)), -1);
  EXPECT_EQ(StepDirection(before, figures(700, 800, 950)), 0);
  // One repeat (--quick): the range is the point, so only the 5 % counts.
  EXPECT_EQ(StepDirection(figures(1000, 1000, 1000), figures(1060, 1060, 1060)),
            1);
}

TEST(OrdersServiceCli, BadInputIsOneLineAndExit2) {
  ExpectOneLineExit2({"orders-service", "--host", "10.0.0.1"}, "not loopback");
  ExpectOneLineExit2({"orders-service", "--threads", "0"}, "virtual");
  ExpectOneLineExit2({"orders-service", "--db-pool", "0"}, "--db-pool");
  ExpectOneLineExit2({"orders-service", "--max-seconds", "nan"}, "nan");
  ExpectOneLineExit2({"capstone", "--real", "--steps", "bogus"}, "bogus");
  ExpectOneLineExit2({"capstone", "--real", "--calibration", "/nonexistent"},
                     "/nonexistent");
  // The fixture was measured elsewhere and holds no canary baseline.
  ExpectOneLineExit2(
      {"capstone", "--real", "--calibration",
       absl::StrCat(PERFLAB_SOURCE_DIR,
                    "/fixtures/calibration/reference-xeon-2vcpu-2026-12.json")},
      "canary_reference");
  // A port in use: held by a listener of our own.
  const HeldPort held;
  ASSERT_NE(held.port(), 0);
  const std::string dataset =
      absl::StrCat(::testing::TempDir(), "perflab_cli_", ::getpid(), ".sqlite");
  ExpectOneLineExit2({"orders-service", "--port", absl::StrCat(held.port()),
                      "--dataset", dataset, "--scale", "0.02"},
                     "in use");
  ::unlink(dataset.c_str());
}

TEST(OrdersServiceCli, GeneratesAMissingDatasetAndStopsByItself) {
  const std::string dataset =
      absl::StrCat(::testing::TempDir(), "perflab_gen_", ::getpid(), ".sqlite");
  ::unlink(dataset.c_str());
  // The progress lines go to the process's stderr, not the CLI's error
  // stream: capture it.
  std::ostringstream progress;
  std::streambuf* saved = std::cerr.rdbuf(progress.rdbuf());
  perflab::testing::CliResult r =
      perflab::testing::RunCli({"orders-service", "--dataset", dataset,
                                "--scale", "0.02", "--max-seconds", "0.3"});
  std::cerr.rdbuf(saved);
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(absl::StrContains(progress.str(), "generating the dataset"))
      << progress.str();
  EXPECT_TRUE(absl::StrContains(r.out, "--max-seconds")) << r.out;
  ::unlink(dataset.c_str());
}

}  // namespace
}  // namespace perflab::capstone
