// The step list: ten names, each changing one config field; parsing subsets
// in any order; unknown and repeated names rejected.
#include "tools/capstone/steps.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace perflab::capstone {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::vector<std::string> Names(const std::vector<const Step*>& steps) {
  std::vector<std::string> names;
  names.reserve(steps.size());
  for (const Step* s : steps) names.emplace_back(s->name);
  return names;
}

TEST(Steps, TenInTheCaseStudysOrderAsKeyValue) {
  std::vector<std::string> changes;
  for (const Step& s : AllSteps()) changes.push_back(StepChange(s));
  EXPECT_THAT(changes, ElementsAre("baseline", "index=true", "join=true",
                                   "keep_alive=true", "tcp_nodelay=true",
                                   "db_pool=8", "virtual_threads=true",
                                   "cache=true", "heap_mib=768", "cores=4"));
}

// Counts the fields of two configs that differ (all ten fields, by hand).
int Differences(const sim::OrderServiceConfig& a,
                const sim::OrderServiceConfig& b) {
  return (a.index != b.index) + (a.join != b.join) +
         (a.keep_alive != b.keep_alive) + (a.tcp_nodelay != b.tcp_nodelay) +
         (a.db_pool != b.db_pool) + (a.virtual_threads != b.virtual_threads) +
         (a.request_threads != b.request_threads) + (a.cache != b.cache) +
         (a.heap_mib != b.heap_mib) + (a.cores != b.cores);
}

TEST(Steps, EachStepChangesExactlyOneField) {
  absl::StatusOr<std::vector<const Step*>> steps = ParseSteps("");
  ASSERT_TRUE(steps.ok());
  std::vector<sim::OrderServiceConfig> configs = CumulativeConfigs(*steps);
  ASSERT_EQ(configs.size(), 10u);
  EXPECT_EQ(Differences(configs[0], sim::OrderServiceConfig{}), 0);
  for (size_t i = 1; i < configs.size(); ++i) {
    EXPECT_EQ(Differences(configs[i - 1], configs[i]), 1) << i;
  }
  const sim::OrderServiceConfig& last = configs.back();
  EXPECT_TRUE(last.index && last.join && last.keep_alive && last.tcp_nodelay &&
              last.virtual_threads && last.cache);
  EXPECT_EQ(last.db_pool, 8);
  EXPECT_EQ(last.heap_mib, 768);
  EXPECT_EQ(last.cores, 4);
}

TEST(Steps, SubsetInAnyOrderStartsFromTheBaseline) {
  absl::StatusOr<std::vector<const Step*>> steps = ParseSteps("cache,index");
  ASSERT_TRUE(steps.ok()) << steps.status();
  EXPECT_THAT(Names(*steps), ElementsAre("baseline", "cache", "index"));
  std::vector<sim::OrderServiceConfig> c = CumulativeConfigs(*steps);
  EXPECT_TRUE(c[1].cache);
  EXPECT_FALSE(c[1].index);
  EXPECT_TRUE(c[2].cache && c[2].index);
  steps = ParseSteps("baseline,right-size");
  ASSERT_TRUE(steps.ok());
  EXPECT_THAT(Names(*steps), ElementsAre("baseline", "right-size"));
}

TEST(Steps, UnknownRepeatedOrMisplacedNames) {
  absl::StatusOr<std::vector<const Step*>> s = ParseSteps("index,idx");
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.status().message(), HasSubstr("unknown step 'idx'"));
  EXPECT_THAT(s.status().message(), HasSubstr("accepted: baseline, index"));
  s = ParseSteps("index,cache,index");
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.status().message(), HasSubstr("'index' is repeated"));
  s = ParseSteps("index,baseline");
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.status().message(), HasSubstr("must come first"));
  s = ParseSteps("index,");
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.status().message(), HasSubstr("unknown step ''"));
}

}  // namespace
}  // namespace perflab::capstone
