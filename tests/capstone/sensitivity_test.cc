// The composer's --sensitivity against the fake model: the elasticity of a
// model whose RPS is an explicit function of one cost, against the run with
// the same seed, over several seeds with their range, the +-delta runs'
// warm-up and window, and the ranking of what to fix next.
#include <algorithm>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/capstone/fake_model.h"
#include "tools/capstone/composer.h"

namespace perflab::capstone {
namespace {

using fake::Edited;
using fake::FakeModel;
using fake::Options;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

// A step without the cache and one with it, each with one cost to vary (the
// scan at the baseline, the cache hit at the cache step), +-delta runs
// measuring a 4 s window.
ComposeOptions WithAndWithoutTheCache() {
  ComposeOptions o = Options("index,cache");
  o.calibration.cache_hit_us = 10;  // read by the cache step alone
  o.sensitivity = true;
  o.sensitivity_window_s = 4;
  return o;
}

// By default every +-delta run warms up as the rig did, 8 s, with the cache
// or without it: a shorter warm-up is asked for, never assumed.
TEST(Composer, SensitivityRunsKeepTheRigsWarmUpByDefault) {
  FakeModel fake;
  ComposeOptions o = WithAndWithoutTheCache();
  std::vector<sim::OrderServiceLoad> varied;
  std::mutex mu;
  StepRunner runner = Edited(fake, [&](const sim::OrderServiceConfig&,
                                       const sim::OrderServiceLoad& load,
                                       uint64_t, sim::OrderServiceResult&) {
    std::lock_guard<std::mutex> lock(mu);
    if (load.duration_s == 4) varied.push_back(load);
  });
  absl::StatusOr<Composition> c = Compose(o, runner);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->sensitivity_warmup_s, 8);
  // The scan's pair at the baseline and the cache hit's at the cache step.
  ASSERT_EQ(varied.size(), 4u);
  for (const sim::OrderServiceLoad& l : varied) EXPECT_EQ(l.warmup_s, 8);
}

TEST(Composer, SensitivityRunsWarmUpShortUnlessTheCacheIsOn) {
  FakeModel fake;
  ComposeOptions o = WithAndWithoutTheCache();
  o.sensitivity_warmup_s = 3;
  struct Seen {
    bool cache;
    sim::OrderServiceLoad load;
  };
  std::vector<Seen> seen;  // the runner's threads add in any order
  std::mutex mu;
  StepRunner runner = Edited(fake, [&](const sim::OrderServiceConfig& config,
                                       const sim::OrderServiceLoad& load,
                                       uint64_t, sim::OrderServiceResult&) {
    std::lock_guard<std::mutex> lock(mu);
    seen.push_back({config.cache, load});
  });
  absl::StatusOr<Composition> c = Compose(o, runner);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->sensitivity_warmup_s, 3);
  // 18 table runs (3 steps x 3 seeds x 2 loops) at the rig's warm-up; the
  // scan's -delta and +delta at the baseline (no cache: the short warm-up)
  // and the cache hit's at the cache step (the rig's warm-up).
  ASSERT_EQ(seen.size(), 22u);
  int varied_with_cache = 0, varied_without = 0;
  for (const Seen& s : seen) {
    if (s.load.duration_s != 4) {
      EXPECT_EQ(s.load.warmup_s, 8);
      continue;
    }
    EXPECT_FALSE(s.load.open);
    EXPECT_EQ(s.load.clients, 32);
    EXPECT_EQ(s.load.warmup_s, s.cache ? 8 : 3);
    ++(s.cache ? varied_with_cache : varied_without);
  }
  EXPECT_EQ(varied_with_cache, 2);
  EXPECT_EQ(varied_without, 2);
  // The output says which warm-up each step's runs had.
  CalibrationIdentity id{"t", "t.json", "sha256:0"};
  EXPECT_THAT(core::ToText(ToDocument(*c, id, {})),
              HasSubstr("closed loop (4 s window after a 3 s warm-up, or the "
                        "rig's 8 s where the cache is on)"));
  const std::string json = core::ToJson(ToDocument(*c, id, {}));
  EXPECT_THAT(json, HasSubstr("\"sensitivity_warmup_s\": 3")) << json;
  // At the rig's warm-up every step's runs had the same: one figure.
  o.sensitivity_warmup_s = 8;
  absl::StatusOr<Composition> rig = Compose(o, fake.Runner());
  ASSERT_TRUE(rig.ok()) << rig.status();
  EXPECT_THAT(core::ToText(ToDocument(*rig, id, {})),
              HasSubstr("closed loop (4 s window after the rig's 8 s "
                        "warm-up), with"));
  o.sensitivity_warmup_s = 0;
  EXPECT_EQ(Compose(o, fake.Runner()).status().code(),
            absl::StatusCode::kInvalidArgument);
  o.sensitivity_warmup_s = 3;
  o.sensitivity_window_s = 0;
  EXPECT_EQ(Compose(o, fake.Runner()).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(Composer, ElasticityOfAnExplicitFunction) {
  FakeModel fake;
  ComposeOptions o = Options("index");
  o.sensitivity = true;
  absl::StatusOr<Composition> c = Compose(o, fake.Runner());
  ASSERT_TRUE(c.ok());
  // RPS ~ 1 / (100 + s) at s = 100: (1/210 - 1/190) / (0.2 x 1/200)
  // = 200 x (190 - 210) / (210 x 190 x 0.2) = -4000 / 7980.
  size_t scan = 0;
  const auto& fields = sim::CalibrationFields();
  while (fields[scan].name != "orders_query_scan_us") ++scan;
  ASSERT_EQ(c->sensitivity.size(), 2u);
  ASSERT_EQ(c->sensitivity[0].size(), fields.size());
  EXPECT_NEAR(c->sensitivity[0][scan].elasticity, -4000.0 / 7980, 1e-12);
  for (size_t k = 0; k < fields.size(); ++k) {
    if (k != scan) {
      EXPECT_EQ(c->sensitivity[0][k].elasticity, 0);
    }
    // With the index the scan is never read: nothing to vary at step 2.
    EXPECT_EQ(c->sensitivity[1][k].elasticity, 0);
    EXPECT_EQ(c->sensitivity[1][k].plus_rps, 0);
  }
  EXPECT_THAT(TopThree(c->sensitivity[0]), ElementsAre(scan));
  EXPECT_TRUE(TopThree(c->sensitivity[1]).empty());
  // 12 main runs + 1 step x 1 read non-zero cost x 2 signs x 1 run, and
  // those two with the first seed (common random numbers).
  ASSERT_EQ(fake.seeds.size(), 14u);
  EXPECT_EQ(std::count(fake.seeds.begin(), fake.seeds.end(), 42u), 6);
}

TEST(Composer, ElasticityAgainstTheRunWithTheSameSeed) {
  // The fake's RPS at seed 42 is x1.0, the median over {42, 43, 44} also
  // x1.0; make seed 42 the odd one out so the two bases differ.
  FakeModel fake;
  StepRunner skewed = Edited(
      fake, [](const sim::OrderServiceConfig&, const sim::OrderServiceLoad&,
               uint64_t seed, sim::OrderServiceResult& r) {
        if (seed == 42) r.rps *= 2;
      });
  ComposeOptions o = Options("");
  o.sensitivity = true;
  absl::StatusOr<Composition> c = Compose(o, skewed);
  ASSERT_TRUE(c.ok());
  size_t scan = 0;
  while (sim::CalibrationFields()[scan].name != "orders_query_scan_us") ++scan;
  // RPS at seed 42 = 2 x 200 x 100 / (100 + s): minus 2 x 20000/190, plus
  // 2 x 20000/210, base 200; (plus - minus) / (0.2 x 200) = -4000 / 7980
  // again; the median's base (130) would give about -0.77.
  EXPECT_NEAR(c->sensitivity[0][scan].minus_rps, 40000.0 / 190, 1e-9);
  EXPECT_NEAR(c->sensitivity[0][scan].elasticity, -4000.0 / 7980, 1e-12);
}

// Each sensitivity seed runs its own -delta/+delta pair against the step's
// run with that seed. The fake's elasticity to the scan is E = -4000 / 7980
// at every seed (its seed factor scales all three runs alike); planted: the
// +delta run gains 26 RPS at seed 43 (base 130: +26 / (0.2 x 130) = +1) and
// loses 16 at seed 44 (base 80: -1). So the seeds give E, E + 1, E - 1.
TEST(Composer, SensitivitySeedsAverageTheirElasticitiesAndKeepTheRange) {
  FakeModel fake;
  std::mutex mu;
  std::vector<uint64_t> varied_seeds;
  StepRunner runner =
      [&](const sim::Calibration& cal, const sim::OrderServiceConfig& config,
          const sim::OrderServiceLoad& load,
          uint64_t seed) -> absl::StatusOr<sim::OrderServiceResult> {
    absl::StatusOr<sim::OrderServiceResult> r =
        fake.Runner()(cal, config, load, seed);
    if (cal.orders_query_scan_us != 100) {
      std::lock_guard<std::mutex> lock(mu);
      varied_seeds.push_back(seed);
    }
    if (r.ok() && cal.orders_query_scan_us > 100) {
      if (seed == 43) r->rps += 26;
      if (seed == 44) r->rps -= 16;
    }
    return r;
  };
  const double e = -4000.0 / 7980;
  size_t scan = 0;
  while (sim::CalibrationFields()[scan].name != "orders_query_scan_us") ++scan;
  ComposeOptions o = Options("");
  o.sensitivity = true;
  o.sensitivity_seeds = 3;
  absl::StatusOr<Composition> c = Compose(o, runner);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->sensitivity_seeds, 3);
  const Elasticity& three = c->sensitivity[0][scan];
  EXPECT_NEAR(three.elasticity, e, 1e-12);
  EXPECT_NEAR(three.lowest, e - 1, 1e-12);
  EXPECT_NEAR(three.highest, e + 1, 1e-12);
  // Means of the pairs: minus 20000 / 190 x (1 + 1.3 + 0.8) / 3; plus
  // (20000 / 210 x 3.1 + 26 - 16) / 3.
  EXPECT_NEAR(three.minus_rps, 20000.0 / 190 * 3.1 / 3, 1e-9);
  EXPECT_NEAR(three.plus_rps, (20000.0 / 210 * 3.1 + 10) / 3, 1e-9);
  std::sort(varied_seeds.begin(), varied_seeds.end());
  EXPECT_THAT(varied_seeds, ElementsAre(42, 42, 43, 43, 44, 44));

  varied_seeds.clear();
  o.sensitivity_seeds = 2;
  c = Compose(o, runner);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_NEAR(c->sensitivity[0][scan].elasticity, e + 0.5, 1e-12);
  EXPECT_NEAR(c->sensitivity[0][scan].lowest, e, 1e-12);
  EXPECT_NEAR(c->sensitivity[0][scan].highest, e + 1, 1e-12);
  std::sort(varied_seeds.begin(), varied_seeds.end());
  EXPECT_THAT(varied_seeds, ElementsAre(42, 42, 43, 43));

  // One seed: the range is the elasticity itself.
  o.sensitivity_seeds = 1;
  c = Compose(o, runner);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->sensitivity[0][scan].lowest, c->sensitivity[0][scan].elasticity);
  EXPECT_EQ(c->sensitivity[0][scan].highest,
            c->sensitivity[0][scan].elasticity);

  for (int bad : {0, 4}) {
    o.sensitivity_seeds = bad;
    EXPECT_EQ(Compose(o, runner).status().code(),
              absl::StatusCode::kInvalidArgument)
        << bad;
  }
}

// The output of several seeds: each elasticity's range, which of the three
// ranks are apart, the seeds in the note and the JSON; one seed (the
// default) shows none of it.
TEST(Composer, SensitivitySeedsAreShownOnlyWhenSeveral) {
  FakeModel fake;
  ComposeOptions o = Options("");
  o.sensitivity = true;
  CalibrationIdentity id{"t", "t.json", "sha256:0"};
  absl::StatusOr<Composition> one = Compose(o, fake.Runner());
  ASSERT_TRUE(one.ok());
  const std::string one_text = core::ToText(ToDocument(*one, id, {}));
  const std::string one_json = core::ToJson(ToDocument(*one, id, {}));
  EXPECT_THAT(one_text, Not(HasSubstr("ranks apart")));
  EXPECT_THAT(one_text, HasSubstr("with the first seed (42)"));
  EXPECT_THAT(one_json, Not(HasSubstr("sensitivity_seeds")));
  EXPECT_THAT(one_json, Not(HasSubstr("elasticity_lowest")));
  o.sensitivity_seeds = 3;
  absl::StatusOr<Composition> three = Compose(o, fake.Runner());
  ASSERT_TRUE(three.ok());
  const core::Document doc = ToDocument(*three, id, {});
  const std::string csv = core::ToCsv(doc);
  EXPECT_THAT(csv, HasSubstr("name,field,minus_rps,plus_rps,elasticity,"
                             "lowest,highest\n"));
  // The scan is the one cost, its range 0 wide and apart from the zeros.
  EXPECT_THAT(csv, HasSubstr("third_elasticity,apart\nbaseline,"
                             "orders_query_scan_us,"));
  EXPECT_THAT(csv, HasSubstr(",first\n"));
  EXPECT_THAT(core::ToText(doc),
              HasSubstr("with the first 3 seeds (42, 43, 44)"));
  const std::string json = core::ToJson(doc);
  EXPECT_THAT(json, HasSubstr("\"sensitivity_seeds\": 3"));
  EXPECT_THAT(json, HasSubstr("\"what_to_fix_next_apart\": [\n"));
  EXPECT_THAT(json, HasSubstr("\"elasticity_highest\": {"));
}

// Ranges against their neighbours in the whole order, fields never run
// (0 to 0) included: a third rank reaching 0 is not apart.
TEST(Composer, ApartFromNeighboursComparesRanges) {
  auto at = [](double e, double lo, double hi) {
    Elasticity x;
    x.minus_rps = 1;
    x.elasticity = e;
    x.lowest = lo;
    x.highest = hi;
    return x;
  };
  // Order: 0 (-0.9), 2 (-0.6), 1 (-0.5), 4 (-0.1), 3 (never run).
  std::vector<Elasticity> row = {at(-0.9, -1.0, -0.8), at(-0.5, -0.7, -0.45),
                                 at(-0.6, -0.65, -0.55), Elasticity{},
                                 at(-0.1, -0.2, 0.05)};
  ASSERT_THAT(TopThree(row), ElementsAre(0, 2, 1));
  EXPECT_THAT(ApartFromNeighbours(row), ElementsAre(true, false, false));
  row = {at(-0.9, -1.0, -0.8), at(-0.5, -0.6, -0.4), at(-0.05, -0.1, 0.02),
         Elasticity{}};
  EXPECT_THAT(ApartFromNeighbours(row), ElementsAre(true, true, false));
  row[2].highest = -0.01;  // now below the never-run 0
  EXPECT_THAT(ApartFromNeighbours(row), ElementsAre(true, true, true));
  row[1].lowest = -0.85;  // touches the first's -0.8: both overlap
  EXPECT_THAT(ApartFromNeighbours(row), ElementsAre(false, false, true));
}

TEST(Composer, TopThreeMostNegativeFirstTiesInFieldOrder) {
  std::vector<Elasticity> row(5);
  row[0].elasticity = -0.2;
  row[1].elasticity = 0.5;
  row[2].elasticity = -0.9;
  row[3].elasticity = -0.2;
  row[4].elasticity = -0.1;
  EXPECT_THAT(TopThree(row), ElementsAre(2, 0, 3));
}

}  // namespace
}  // namespace perflab::capstone
