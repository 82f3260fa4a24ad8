// The calibration's field table: every member listed once, with a unit that
// is its name's suffix.
#include "sim/order_service/calibration.h"

#include <cctype>
#include <set>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "gtest/gtest.h"

namespace perflab::sim {
namespace {

TEST(CalibrationTest, FieldListCoversEveryMemberOnce) {
  std::vector<CalibrationField> fields = CalibrationFields();
  fields.insert(fields.end(), PostgresFields().begin(), PostgresFields().end());
  // Every member is a double: the two lists are complete when they account
  // for all.
  EXPECT_EQ(sizeof(Calibration), fields.size() * sizeof(double));
  std::set<std::string> names;
  std::set<const double*> members;
  const Calibration c;
  for (const CalibrationField& f : fields) {
    EXPECT_TRUE(names.insert(std::string(f.name)).second) << f.name;
    EXPECT_TRUE(members.insert(&(c.*f.member)).second) << f.name;
    const std::set<std::string> units = {"us",  "ms",    "MiB",
                                         "KiB", "cores", "cv"};
    EXPECT_TRUE(units.count(std::string(f.unit))) << f.name;
    // The unit is the name's suffix, in lower case (MiB -> _mib).
    std::string suffix = "_" + std::string(f.unit);
    for (char& ch : suffix) ch = static_cast<char>(std::tolower(ch));
    EXPECT_TRUE(f.name.ends_with(suffix)) << f.name;
  }
}

// Each contention field alone at a value just past 1e6 us is refused by
// name; the bound itself and 0 are accepted.
TEST(CalibrationTest, ContentionFieldsBeyondTheirBoundAreRefusedByName) {
  EXPECT_TRUE(ValidateContention(Calibration{}).ok());
  int checked = 0;
  for (const char* part : {"cache", "pool", "page", "stats"}) {
    for (int n : {2, 4, 8, 16}) {
      const std::string name =
          "contention_" + std::string(part) + "_" + std::to_string(n) + "t_us";
      const CalibrationField* field = nullptr;
      for (const CalibrationField& f : CalibrationFields()) {
        if (f.name == name) field = &f;
      }
      ASSERT_NE(field, nullptr) << name;
      EXPECT_EQ(field->unit, "us") << name;
      Calibration c;
      c.*field->member = 1e6;
      EXPECT_TRUE(ValidateContention(c).ok()) << name;
      c.*field->member = 1.5e6;
      const absl::Status s = ValidateContention(c);
      ASSERT_FALSE(s.ok()) << name;
      EXPECT_NE(s.message().find("'" + name + "' = 1.5e+06"), std::string::npos)
          << s;
      EXPECT_NE(s.message().find("accepted 0 to 1e6"), std::string::npos);
      ++checked;
    }
  }
  EXPECT_EQ(checked, 16);
}

// The curve by hand: 0 at one thread; the points; linear between them
// (3 threads: halfway from 2's 1 us to 4's 3 us = 2; 12: halfway from 8's
// 5 to 16's 9 = 7); 16's figure beyond; each part its own fields.
TEST(CalibrationTest, ContentionIsLinearBetweenTheMeasuredThreadCounts) {
  Calibration c;
  c.contention_pool_2t_us = 1;
  c.contention_pool_4t_us = 3;
  c.contention_pool_8t_us = 5;
  c.contention_pool_16t_us = 9;
  c.contention_stats_16t_us = 0.5;
  EXPECT_DOUBLE_EQ(ContentionUs(c, SharedPart::kPool, 1), 0);
  EXPECT_DOUBLE_EQ(ContentionUs(c, SharedPart::kPool, 0), 0);
  EXPECT_DOUBLE_EQ(ContentionUs(c, SharedPart::kPool, 2), 1);
  EXPECT_DOUBLE_EQ(ContentionUs(c, SharedPart::kPool, 3), 2);
  EXPECT_DOUBLE_EQ(ContentionUs(c, SharedPart::kPool, 4), 3);
  EXPECT_DOUBLE_EQ(ContentionUs(c, SharedPart::kPool, 12), 7);
  EXPECT_DOUBLE_EQ(ContentionUs(c, SharedPart::kPool, 16), 9);
  EXPECT_DOUBLE_EQ(ContentionUs(c, SharedPart::kPool, 32), 9);
  EXPECT_DOUBLE_EQ(ContentionUs(c, SharedPart::kStats, 16), 0.5);
  EXPECT_DOUBLE_EQ(ContentionUs(c, SharedPart::kStats, 12), 0.25);
  EXPECT_DOUBLE_EQ(ContentionUs(c, SharedPart::kCache, 16), 0);
  EXPECT_DOUBLE_EQ(ContentionUs(c, SharedPart::kPage, 16), 0);
}

}  // namespace
}  // namespace perflab::sim
