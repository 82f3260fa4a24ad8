// The drift canary's parts: which costs a step reruns, the ratio by hand,
// which calibration fields it scales, and the composed side scaled by it.
#include "tools/calibration/canary.h"

#include <algorithm>
#include <string>
#include <utility>
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

// The union of every step's canary, by hand from the steps' databases
// (scan or index, N+1 or join), the page and the cache.
TEST(Canary, TheReferenceCoversEveryStepsCosts) {
  const std::vector<std::string> every = AllCanaryFields();
  EXPECT_THAT(every, ::testing::UnorderedElementsAre(
                         "orders_query_scan_us", "orders_query_index_us",
                         "item_statement_us", "join_scan_us", "join_index_us",
                         "serialize_us", "cpp_build_page_us", "cache_hit_us"));
  // In the calibration's own order, so a written file is stable.
  std::vector<size_t> at;
  for (const std::string& name : every) {
    for (size_t i = 0; i < sim::CalibrationFields().size(); ++i) {
      if (sim::CalibrationFields()[i].name == name) at.push_back(i);
    }
  }
  EXPECT_TRUE(std::is_sorted(at.begin(), at.end()));
}

// A quick calibration is its own reference; a file with none is refused
// with the way out; the reference read back holds its fields and 0 elsewhere
// (a 0 never compares).
TEST(Canary, ReferenceComesFromTheCalibrationsQuickReruns) {
  CalibrationFile file;
  file.name = "t";
  EXPECT_THAT(std::string(CanaryReferenceOf(file).status().message()),
              ::testing::AllOf(::testing::HasSubstr("no canary_reference"),
                               ::testing::HasSubstr("--no-canary")));
  file.values.serialize_us = 3;
  file.values.join_index_us = 50;
  file.values.cache_hit_us = 0;       // not measured: left out
  file.values.cpp_front_end_us = 30;  // not a canary field
  CalibrateOptions quick;
  quick.quick = true;
  ASSERT_TRUE(AddCanaryReference(quick, file).ok());
  EXPECT_THAT(
      file.canary_reference,
      ::testing::Contains(std::pair<std::string, double>("serialize_us", 3)));
  EXPECT_THAT(
      file.canary_reference,
      ::testing::Contains(std::pair<std::string, double>("join_index_us", 50)));
  for (const auto& [name, value] : file.canary_reference) {
    EXPECT_NE(name, "cache_hit_us");
    EXPECT_NE(name, "cpp_front_end_us");
  }
  absl::StatusOr<sim::Calibration> ref = CanaryReferenceOf(file);
  ASSERT_TRUE(ref.ok());
  EXPECT_EQ(ref->serialize_us, 3);
  EXPECT_EQ(ref->join_index_us, 50);
  EXPECT_EQ(ref->cpp_front_end_us, 0);
  EXPECT_EQ(ref->cache_hit_us, 0);
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
