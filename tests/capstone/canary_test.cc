// The drift canary's parts: which costs a step reruns, the ratio by hand,
// which calibration fields it scales, and the composed side scaled by it.
#include "tools/capstone/canary.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tools/capstone/real_run.h"
#include "tools/capstone/steps.h"

namespace perflab::capstone {
namespace {

using ::testing::ElementsAre;

TEST(Canary, EachStepRerunsItsOwnCosts) {
  sim::OrderServiceConfig c;
  EXPECT_THAT(CanaryFields(c),
              ElementsAre("orders_query_scan_us", "item_statement_us",
                          "serialize_us", "cpp_build_page_us"));
  c.index = true;
  EXPECT_THAT(CanaryFields(c),
              ElementsAre("orders_query_index_us", "item_statement_us",
                          "serialize_us", "cpp_build_page_us"));
  c.join = true;
  c.cache = true;
  EXPECT_THAT(CanaryFields(c),
              ElementsAre("join_index_us", "serialize_us", "cpp_build_page_us",
                          "cache_hit_us"));
}

// Two costs, one 21 % dearer now and one unchanged: the geometric mean is
// sqrt(1.21 x 1) = 1.1 (at the flag's edge); 10.25 % dearer gives 1.05, not
// flagged; 44 % dearer gives 1.2, flagged. A cost at 0 (not measured) is
// left out.
TEST(Canary, RatioIsTheGeometricMeanOfTheCostsMoves) {
  sim::Calibration then, now;
  then.join_index_us = 100;
  then.serialize_us = 10;
  then.cpp_build_page_us = 0;
  now = then;
  now.join_index_us = 121;
  now.cpp_build_page_us = 7;
  const std::vector<std::string> fields = {"join_index_us", "serialize_us",
                                           "cpp_build_page_us"};
  CanaryResult r = CompareCanary(then, now, fields);
  ASSERT_EQ(r.fields.size(), 2u);
  EXPECT_DOUBLE_EQ(r.fields[0].second, 1.21);
  EXPECT_DOUBLE_EQ(r.fields[1].second, 1.0);
  EXPECT_NEAR(r.ratio, 1.1, 1e-12);
  now.join_index_us = 110.25;
  r = CompareCanary(then, now, fields);
  EXPECT_NEAR(r.ratio, 1.05, 1e-12);
  EXPECT_FALSE(r.flagged());
  now.join_index_us = 144;
  r = CompareCanary(then, now, fields);
  EXPECT_NEAR(r.ratio, 1.2, 1e-12);
  EXPECT_TRUE(r.flagged());
  EXPECT_DOUBLE_EQ(CompareCanary(then, now, {}).ratio, 1);
}

TEST(Canary, ScalesTheServicesCpuCostsOnly) {
  sim::Calibration c;
  c.cpp_front_end_us = 30;
  c.sched_switch_us = 2;
  c.sched_quantum_us = 3000;
  c.cpp_generator_cpu_us = 45;
  const sim::Calibration s = ScaleCosts(c, 2);
  EXPECT_DOUBLE_EQ(s.join_index_us, 2 * c.join_index_us);
  EXPECT_DOUBLE_EQ(s.serialize_us, 2 * c.serialize_us);
  EXPECT_DOUBLE_EQ(s.cpp_front_end_us, 60);
  EXPECT_DOUBLE_EQ(s.sched_switch_us, 4);
  // Not the service's CPU: the generator's, a time slice, times and counts.
  EXPECT_DOUBLE_EQ(s.generator_cpu_per_request_us,
                   c.generator_cpu_per_request_us);
  EXPECT_DOUBLE_EQ(s.cpp_generator_cpu_us, 45);
  EXPECT_DOUBLE_EQ(s.sched_quantum_us, 3000);
  EXPECT_DOUBLE_EQ(s.inventory_service_ms, c.inventory_service_ms);
  EXPECT_DOUBLE_EQ(s.effective_cores, c.effective_cores);
}

// A step scaled by 1 is the step unscaled, bit for bit; by 2, its composed
// CPU per request doubles (the same parts, each twice as dear).
TEST(Canary, TheComposedStepRunsWithItsCostsScaled) {
  RealOptions o = QuickRealOptions({});
  o.steps = {&AllSteps()[0], &AllSteps()[1]};
  o.warmup_s = 0.2;
  o.closed_s = 1;
  o.open_s = 0.5;
  o.calibration.cpp_front_end_us = 20;
  o.calibration.cpp_generator_cpu_us = 1;
  o.calibration.work_cv = 0;
  auto base = ComposeScaled(o);
  ASSERT_TRUE(base.ok()) << base.status();
  o.step_scale = {1.0, 2.0};
  auto scaled = ComposeScaled(o);
  ASSERT_TRUE(scaled.ok()) << scaled.status();
  EXPECT_EQ((*scaled)[0].rps, (*base)[0].rps);
  EXPECT_EQ((*scaled)[0].cpu_us_per_request, (*base)[0].cpu_us_per_request);
  EXPECT_NEAR((*scaled)[1].cpu_us_per_request,
              2 * (*base)[1].cpu_us_per_request,
              0.03 * (*base)[1].cpu_us_per_request);
}

}  // namespace
}  // namespace perflab::capstone
