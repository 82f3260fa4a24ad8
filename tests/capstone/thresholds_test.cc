// The capstone's thresholds: a step factor's direction at the edges of the
// flat band, and the constants file the plots read is ThresholdsJson()'s
// output (run from the source root; PERFLAB_UPDATE_GOLDEN=1 rewrites it).
#include "tools/capstone/thresholds.h"

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "gtest/gtest.h"
#include "tests/file_text.h"

namespace perflab::capstone {
namespace {

constexpr char kPlotsPath[] = "tools/plots/capstone_thresholds.json";

using ::perflab::testing::FileText;

// Within 5 % of 1, both edges included, is flat: the case study's heap step
// (x0.99) is flat, its pool step (x1.12) up, its keep-alive step (x0.21)
// down.
TEST(Thresholds, FactorWayAtTheEdgesOfTheFlatBand) {
  EXPECT_EQ(FactorWay(1.0), 0);
  EXPECT_EQ(FactorWay(0.99), 0);
  EXPECT_EQ(FactorWay(1.05), 0);
  EXPECT_EQ(FactorWay(0.95), 0);
  EXPECT_EQ(FactorWay(1.0500001), 1);
  EXPECT_EQ(FactorWay(0.9499999), -1);
  EXPECT_EQ(FactorWay(1.12), 1);
  EXPECT_EQ(FactorWay(0.21), -1);
}

// Python reads the percentages the C++ defines: 95 % busy is a full cap,
// 90 % busy is the load generator's ceiling.
TEST(Thresholds, PlotsReadTheSameThresholds) {
  const std::string text = ThresholdsJson();
  EXPECT_NE(text.find("\"cap_full_pct\": 95,"), std::string::npos) << text;
  EXPECT_NE(text.find("\"generator_ceiling_pct\": 90\n"), std::string::npos)
      << text;
  if (std::getenv("PERFLAB_UPDATE_GOLDEN") != nullptr) {
    std::ofstream(kPlotsPath, std::ios::binary) << text;
  }
  EXPECT_EQ(FileText(kPlotsPath), text)
      << kPlotsPath
      << " is not ThresholdsJson()'s output (run from the source root; "
         "PERFLAB_UPDATE_GOLDEN=1 writes it)";
}

}  // namespace
}  // namespace perflab::capstone
