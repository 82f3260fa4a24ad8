// Determinism: every scenario run twice gives the same JSON bytes, and its
// default output matches fixtures/golden/sim/<name>.json byte for byte.
// Regenerate deliberately with PERFLAB_UPDATE_GOLDEN=1 (a reviewed commit).
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "core/document.h"
#include "gtest/gtest.h"
#include "sim/scenarios/scenario.h"

namespace perflab::sim {
namespace {

std::string Json(const std::string& name,
                 const std::vector<std::string>& sets) {
  absl::StatusOr<core::Document> doc = RunScenario(name, sets, kDefaultSeed);
  EXPECT_TRUE(doc.ok()) << doc.status();
  return doc.ok() ? core::ToJson(*doc) : "";
}

class ScenarioDeterminism : public testing::TestWithParam<std::string> {};

// Smaller runs for the repeat check: determinism does not need the full size.
const std::map<std::string, std::vector<std::string>>& Small() {
  static const auto* m = new std::map<std::string, std::vector<std::string>>{
      {"mmc", {"customers=50000", "warmup_customers=5000"}},
      {"cache", {"lookups=20000", "warmup_s=10"}},
      {"hockey-stick", {"customers=20000"}},
      {"thread-pool", {"threads=virtual", "duration_s=2", "warmup_s=1"}},
      {"littles-law", {"arrivals=poisson", "duration_s=5"}},
      {"lock-contention", {"duration_s=20"}},
      {"pool-starvation", {"duration_s=60"}},
      {"latency-mixture", {"samples=20000"}},
      {"usl", {"jobs=20", "jitter_cv=0.1"}},
  };
  return *m;
}

TEST_P(ScenarioDeterminism, TwoRunsGiveIdenticalJson) {
  const std::string& name = GetParam();
  auto it = Small().find(name);
  const std::vector<std::string> sets =
      it == Small().end() ? std::vector<std::string>{} : it->second;
  const std::string first = Json(name, sets);
  EXPECT_FALSE(first.empty());
  EXPECT_EQ(first, Json(name, sets));
}

TEST_P(ScenarioDeterminism, DefaultOutputMatchesGolden) {
  const std::string& name = GetParam();
  const std::string path = "fixtures/golden/sim/" + name + ".json";
  const std::string actual = Json(name, {}) + "\n";
  if (std::getenv("PERFLAB_UPDATE_GOLDEN") != nullptr) {
    std::ofstream(path, std::ios::binary) << actual;
  }
  std::ifstream in(path, std::ios::binary);
  ASSERT_TRUE(in.good())
      << "missing " << path
      << " (run from the repo root; PERFLAB_UPDATE_GOLDEN=1 writes it)";
  std::stringstream expected;
  expected << in.rdbuf();
  EXPECT_EQ(actual, expected.str()) << path;
}

// A scenario whose registration went missing (or was dropped by the linker)
// would silently leave the listing; its golden file gives it away.
TEST(ScenarioRegistry, EveryGoldenFileHasARegisteredScenario) {
  int goldens = 0;
  for (const auto& entry :
       std::filesystem::directory_iterator("fixtures/golden/sim")) {
    if (entry.path().extension() != ".json") continue;
    ++goldens;
    const std::string name = entry.path().stem().string();
    EXPECT_NE(FindScenario(name), nullptr) << name << " has a golden file but "
                                           << "no registered scenario";
  }
  EXPECT_GE(goldens, 14);
  EXPECT_EQ(static_cast<size_t>(goldens), Scenarios().size());
}

std::vector<std::string> Names() {
  std::vector<std::string> names;
  for (const Scenario& s : Scenarios()) names.push_back(s.name);
  return names;
}

INSTANTIATE_TEST_SUITE_P(AllScenarios, ScenarioDeterminism,
                         testing::ValuesIn(Names()),
                         [](const testing::TestParamInfo<std::string>& info) {
                           std::string n = info.param;
                           for (char& c : n) {
                             if (c == '-') c = '_';
                           }
                           return n;
                         });

}  // namespace
}  // namespace perflab::sim
