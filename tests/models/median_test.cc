// The median on hand-worked samples: odd and even sizes, unsorted input,
// ties, a single value and the empty sample.
#include "models/median.h"

#include <cmath>
#include <vector>

#include "gtest/gtest.h"

namespace perflab::models {
namespace {

TEST(Median, OddSizeIsTheMiddleValueInSortedOrder) {
  // Sorted: 1 3 [5] 8 9.
  EXPECT_EQ(Median({9, 1, 5, 3, 8}), 5);
  EXPECT_EQ(Median({7}), 7);
}

TEST(Median, EvenSizeIsTheMeanOfTheTwoMiddleValues) {
  // Sorted: 1 [2 10] 20; (2 + 10) / 2 = 6.
  EXPECT_EQ(Median({20, 1, 10, 2}), 6);
  // (1.5 + 2.5) / 2 = 2, from two values only.
  EXPECT_EQ(Median({2.5, 1.5}), 2);
  // Sorted: 4 5 [6 9] 11 30; (6 + 9) / 2 = 7.5, neither middle value itself.
  EXPECT_EQ(Median({30, 9, 4, 11, 6, 5}), 7.5);
}

// Two middle values whose sum is past the largest double (about 1.798e308):
// their mean is still between them, never inf.
TEST(Median, EvenSizeNearTheLargestDoubleIsFinite) {
  EXPECT_EQ(Median({1.7e308, 1.7e308}), 1.7e308);
  EXPECT_DOUBLE_EQ(Median({-1.6e308, -1.7e308}), -1.65e308);
  EXPECT_DOUBLE_EQ(Median({1.6e308, 1, 2, 1.7e308}), 0.8e308);
}

TEST(Median, TiesAndNegativeValues) {
  // Sorted: -3 [-1 -1] 4; the two middle values are equal.
  EXPECT_EQ(Median({4, -1, -3, -1}), -1);
  // Sorted: 2 2 [2] 7 7.
  EXPECT_EQ(Median({7, 2, 7, 2, 2}), 2);
}

TEST(Median, AnEmptySampleIsNaN) { EXPECT_TRUE(std::isnan(Median({}))); }

}  // namespace
}  // namespace perflab::models
