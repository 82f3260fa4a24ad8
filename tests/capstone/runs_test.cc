// OnlyConfigs: runs of the named configs reach the runner with their
// arguments; any other config returns an empty result without a call.
#include "tools/capstone/runs.h"

#include <vector>

#include "gtest/gtest.h"

namespace perflab::capstone {
namespace {

TEST(OnlyConfigs, RunsTheNamedConfigsAndSkipsTheRest) {
  int calls = 0;
  const StepRunner counting =
      [&calls](const sim::Calibration& cal, const sim::OrderServiceConfig& c,
               const sim::OrderServiceLoad& load,
               uint64_t seed) -> absl::StatusOr<sim::OrderServiceResult> {
    ++calls;
    sim::OrderServiceResult r;
    r.rps = static_cast<double>(c.db_pool) * 100 + static_cast<double>(seed);
    r.p99_ms = cal.other_cpu_us + (load.open ? 1 : 0);
    return r;
  };
  sim::OrderServiceConfig pool8;
  pool8.db_pool = 8;
  sim::OrderServiceConfig cached = pool8;
  cached.cache = true;
  const StepRunner only = OnlyConfigs(counting, {pool8, cached});
  sim::Calibration cal;
  cal.other_cpu_us = 7;
  sim::OrderServiceLoad open;
  open.open = true;

  absl::StatusOr<sim::OrderServiceResult> r = only(cal, cached, open, 3);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->rps, 803);   // 8 x 100 + seed 3, from the runner
  EXPECT_EQ(r->p99_ms, 8);  // other_cpu_us 7 + 1 for the open loop
  EXPECT_EQ(calls, 1);

  sim::OrderServiceConfig other = pool8;
  other.heap_mib = 768;  // one field away from pool8: not named
  r = only(cal, other, open, 3);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->rps, 0);
  EXPECT_EQ(r->p99_ms, 0);
  EXPECT_EQ(calls, 1);
}

}  // namespace
}  // namespace perflab::capstone
