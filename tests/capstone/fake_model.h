// A fake order-service model for the composer's tests: its answers are
// explicit functions of the step, the seed and one cost, so every figure the
// composer derives from them can be worked by hand.
#ifndef PERFLAB_TESTS_CAPSTONE_FAKE_MODEL_H_
#define PERFLAB_TESTS_CAPSTONE_FAKE_MODEL_H_

#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "sim/order_service/calibration.h"
#include "tools/capstone/composer.h"
#include "tools/capstone/steps.h"

namespace perflab::capstone::fake {

// Per-seed multipliers: the median of {1.0, 1.3, 0.8} is 1.0, the mean 1.033.
inline double SeedFactor(uint64_t seed) {
  static const std::map<uint64_t, double> kBySeed = {
      {42, 1.0}, {43, 1.3}, {44, 0.8}};
  return kBySeed.at(seed);
}

// Called from the composer's worker threads: what it records is guarded.
struct FakeModel {
  std::mutex mu;
  std::vector<sim::OrderServiceLoad> loads;
  std::vector<uint64_t> seeds;

  StepRunner Runner() {
    return [this](const sim::Calibration& cal,
                  const sim::OrderServiceConfig& config,
                  const sim::OrderServiceLoad& load,
                  uint64_t seed) -> absl::StatusOr<sim::OrderServiceResult> {
      {
        std::lock_guard<std::mutex> lock(mu);
        loads.push_back(load);
        seeds.push_back(seed);
      }
      const double m = SeedFactor(seed);
      // Base RPS 100; the index x8; the cache x2; a 100 us scan halves it.
      const double base = 100 * (config.index ? 8 : 1) *
                          (config.cache ? 2 : 1) * 200 /
                          (100 + cal.orders_query_scan_us);
      sim::OrderServiceResult r;
      r.rps = base * m;
      r.avg_ms = 1000 / base * m;
      r.p95_ms = 5000 / base * m;
      r.p99_ms = load.open ? (config.index ? 5 : 25) * m : 10000 / base * m;
      r.cpu_cores = 4 * m;
      r.cpu.database = 3 * m;
      r.cpu.http = 0.5 * m;
      r.cpu.other = 0.5 * m;
      r.queries_per_request = config.cache ? 0.1 : 81;
      r.cache_hit_ratio = config.cache ? 0.9 : 0;
      r.generator_utilisation = 0.01 * m;
      r.app_cores = config.cores / 2;
      r.threads = config.virtual_threads ? 0 : config.request_threads;
      if (r.threads > 0) {
        r.threads_busy = 10 * m;
        r.thread_wait_ms = 2 * m;
      }
      r.pool_busy = 3 * m;
      r.pool_wait_ms = load.open ? 99 : m;  // the open loop's must not show
      return r;
    };
  }
};

// The fake's runner with `edit` applied to each successful result (a
// planted per-run difference for one test).
using Edit = std::function<void(const sim::OrderServiceConfig&,
                                const sim::OrderServiceLoad&, uint64_t,
                                sim::OrderServiceResult&)>;
inline StepRunner Edited(FakeModel& fake, const Edit& edit) {
  return [&fake, edit](
             const sim::Calibration& cal, const sim::OrderServiceConfig& config,
             const sim::OrderServiceLoad& load,
             uint64_t seed) -> absl::StatusOr<sim::OrderServiceResult> {
    absl::StatusOr<sim::OrderServiceResult> r =
        fake.Runner()(cal, config, load, seed);
    if (r.ok()) edit(config, load, seed, *r);
    return r;
  };
}

inline ComposeOptions Options(const std::string& steps) {
  ComposeOptions o;
  o.steps = *ParseSteps(steps);
  for (const auto& f : sim::CalibrationFields()) o.calibration.*f.member = 0;
  o.calibration.orders_query_scan_us = 100;
  return o;
}

}  // namespace perflab::capstone::fake

#endif  // PERFLAB_TESTS_CAPSTONE_FAKE_MODEL_H_
