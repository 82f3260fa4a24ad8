// The calibration's field table: every member listed once, with a unit that
// is its name's suffix.
#include "sim/order_service/calibration.h"

#include <cctype>
#include <set>
#include <string>

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

}  // namespace
}  // namespace perflab::sim
