// The calibration's field table: every member listed once, with a unit that
// is its name's suffix.
#include "sim/order_service/calibration.h"

#include <cctype>
#include <set>
#include <string>

#include "absl/status/status.h"
#include "gtest/gtest.h"

namespace perflab::sim {
namespace {

TEST(CalibrationTest, FieldListCoversEveryMemberOnce) {
  const auto& fields = CalibrationFields();
  // Every member is a double: the list is complete when it accounts for all.
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

}  // namespace
}  // namespace perflab::sim
