// perflab capstone --real, the step protocol: each cumulative capstone step
// run for real and the same scaled steps composed by the simulator, side by
// side. For real: the order service of bench/order_service as a child
// `perflab orders-service` (orders_service_process.h), its counters read from
// /stats (service_stats.h), perflab's own load generator, and wrk as the
// witness, asking for the same pages through its Lua script (wrk_script.h).
//
// Scaling to this machine: the case study ran the service on 8 vCPU with the
// generator elsewhere. Here the service is pinned to the last CPU and the
// generator (and wrk) to the first, so the real run and the composed model
// both get cores = 1 at every step (and the model's generator_cores = 1, its
// generator CPU per request the one measured for perflab's client in the
// same run); the "right-size 8 -> 4 vCPU" step cannot halve one core, so it
// changes nothing in either run and only its price changes ($/1M is priced
// at the case study's 8 and 4 vCPU, 1 GiB, in both tables, so price
// differences come from RPS alone). The heap step maps to the service's
// --arena (a per-request arena instead of the global allocator for the
// page's object graph).
//
// RunReal is not thread-safe (it pins the calling thread's CPUs for the
// duration and restores them); it always stops and reaps the child.
#ifndef PERFLAB_TOOLS_CAPSTONE_REAL_RUN_H_
#define PERFLAB_TOOLS_CAPSTONE_REAL_RUN_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "core/case_study.h"
#include "core/document.h"
#include "sim/order_service/calibration.h"
#include "sim/order_service/model.h"
#include "tools/calibration/calibrate.h"
#include "tools/calibration/canary.h"
#include "tools/capstone/steps.h"

namespace perflab::capstone {

struct RealOptions {
  std::vector<const Step*> steps;  // from ParseSteps; baseline first
  std::string service_binary;      // the perflab executable to spawn
  // The service's database: "sqlite" or "postgres" (its own throwaway
  // cluster, a libpq pool of the step's size; the composed side OnPostgres).
  std::string db = "sqlite";
  std::string dataset;   // "" = the benchmarks' default of scale
  double scale = 1.0;    // dataset scale (1: case_study::kCustomers)
  int repeats = 3;       // per step; the median is reported
  double warmup_s = 3;   // closed loop, not recorded
  double closed_s = 10;  // closed loop of `clients`, recorded
  double open_s = 10;    // open loop at `open_rate_per_s`
  int clients = static_cast<int>(case_study::kClosedLoopClients);
  double open_rate_per_s = case_study::kOpenLoopRatePerS;
  bool wrk = true;               // once per step, closed loop, as the witness
  double wrk_s = 5;              // whole seconds (wrk's resolution)
  uint64_t seed = 42;            // customer ids of repeat r: seed + r
  sim::Calibration calibration;  // for the composed table
  // Set: the drift canary (canary.h) runs with these options before each
  // step, and that step's composed costs are scaled by its ratio.
  std::optional<CalibrateOptions> canary;
  // What the canary compares with: the calibration's canary_reference
  // (CanaryReferenceOf).
  sim::Calibration canary_reference;
  // Per step, the composed costs' scale (ScaleCosts); missing steps: 1.
  std::vector<double> step_scale;
  // Called with one line after each step's real runs (null: quiet); the CLI
  // prints it on stderr, since a full run takes about 13 minutes.
  std::function<void(std::string_view)> progress = nullptr;
};

// Options for --quick: 1 s warm-up, 3 s closed, 3 s open, 1 repeat, wrk 2 s.
RealOptions QuickRealOptions(RealOptions base);

struct RealFigures {
  double rps_min = 0, rps_max = 0;  // the repeats' lowest and highest RPS
  double rps = 0, avg_ms = 0, p95_ms = 0, p99_ms = 0, open_p99_ms = 0;
  double cpu_cores = 0, queries_per_request = 0, cache_hit_ratio = 0;
  // Of cpu_cores, the database's: real, PostgreSQL's server processes (0 on
  // SQLite, which runs in the service); composed, the statements' CPU.
  double db_cpu_cores = 0;
  double usd_per_million = 0;
  int64_t errors = 0;
  double wrk_rps = 0, wrk_p99_ms = 0;  // 0 when wrk did not run
  // The kernel's view per request, closed loop (real: the service's
  // /proc/PID/task/*/schedstat; composed: the simulated CPU's): CPU time,
  // time runnable waiting for a core, times put on a core. 0: not read.
  double cpu_us_per_request = 0;
  double wait_us_per_request = 0;
  double slices_per_request = 0;
};

// The whole service's CPU per request (BM_OrdersService, 0: not measured)
// beside the sum of the parts CppService composes for the same request, at
// the configuration BM_OrdersService runs (index, join, kept-alive
// TCP_NODELAY inventory calls, the global heap): a hit with the cache full,
// a miss without a cache, for 16 pooled threads and one per connection.
struct CppWholeAndParts {
  struct Row {
    std::string what;  // "hit, 16 threads", ...
    double whole_us = 0, parts_us = 0;
  };
  std::vector<Row> rows;
};

struct RealComparison {
  std::vector<const Step*> steps;
  std::string db = "sqlite";                // RealOptions::db
  std::vector<RealFigures> real, composed;  // one per step
  int service_cores = 1, generator_cores = 1;
  // The load generator's CPU per request: measured in this run's closed
  // loops (0: not measured), shown beside the calibration's
  // cpp_generator_cpu_us, measured alone, which the composed side reads.
  double generator_cpu_per_request_us = 0;
  // The calibration's whole service against its parts (CompareCppParts).
  CppWholeAndParts whole_and_parts;
  // One per step when the canary ran (empty otherwise).
  std::vector<CanaryResult> canaries;
};

// The calibration for the C++ service at one step: the JVM-only costs
// (framework per request, garbage collection, the database connection's
// hold beyond the join's CPU, cores lost to the JVM) replaced by what the C++
// service has, composed from its parts only, each measured alone (the
// cpp_front_end_us, cpp_handoff_us, cpp_idle_wake_us and cpp_build_page*
// figures with the calibration's join, serialisation, lookup and inventory
// call) for the step's request threads (16 pooled, or one per connection at
// the virtual-threads step) and allocator (the arena from the heap step on),
// plus what sharing the counters, the cache, the pool and the allocator
// costs at the step's thread count (sim::ContentionUs). It never reads
// cpp_hit_* / cpp_miss_*, the whole service measured (BM_OrdersService), which
// CompareCppParts shows beside the parts. The generator's CPU per request is
// cpp_generator_cpu_us when measured.
sim::Calibration CppService(sim::Calibration calibration,
                            const sim::OrderServiceConfig& config);
// Whether the calibration has the C++ parts (cpp_front_end_us > 0).
bool HasCppParts(const sim::Calibration& calibration);
// See CppWholeAndParts.
CppWholeAndParts CompareCppParts(const sim::Calibration& calibration);
// The table "whole_and_parts" of `w`, with each gap in % of the whole: one
// table for perflab calibrate and capstone --real alike.
void AddWholeAndParts(core::Document& doc, const CppWholeAndParts& w);

// The composed side only (scaled configs, the same loads, median of
// `repeats` simulations), with options.calibration as read from the file:
// CppService is applied per step here. It reads nothing of a real run.
// InvalidArgument when repeats < 1. Exposed for tests.
absl::StatusOr<std::vector<RealFigures>> ComposeScaled(
    const RealOptions& options);

// Runs every step for real and composed. InvalidArgument for bad options;
// the service's own error line when it cannot start.
absl::StatusOr<RealComparison> RunReal(const RealOptions& options);

// The real table, the composed table and the difference per cell, with the
// agreement summary (within 30 % / 15 %, same direction).
//
// A step's direction on one side: up (+1) when its median RPS is over 1.05
// times the previous step's and its lowest repeat is over the previous
// step's highest, down (-1) the mirror image, flat (0) otherwise. A move
// within the spread of the repeats is the machine's noise, not the change's
// (the right-size step, which changes nothing here, can move x1.05 by noise
// alone).
int StepDirection(const RealFigures& before, const RealFigures& after);
core::Document ToRealDocument(const RealComparison& c,
                              const std::string& calibration_name);

// `perflab capstone --real [--quick]`: reads the calibration (default
// reports/calibration.json), parses the steps and runs them with this
// executable (/proc/self/exe) as the service. Bad input: InvalidArgument.
struct RealCliArgs {
  bool real = false;          // --real
  bool quick = false;         // --quick
  bool no_wrk = false;        // --no-wrk
  bool no_canary = false;     // --no-canary
  std::string calibration;    // --calibration ("" = the default)
  std::string steps;          // --steps
  std::string db = "sqlite";  // --db: sqlite or postgres
};
absl::StatusOr<core::Document> RunRealCapstone(const RealCliArgs& args);

}  // namespace perflab::capstone

#endif  // PERFLAB_TOOLS_CAPSTONE_REAL_RUN_H_
