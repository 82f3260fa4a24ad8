// Doubles where a rounding to whole nanoseconds is most likely to go wrong,
// for the tests that check one against libm.
#ifndef PERFLAB_TESTS_SIM_ROUNDING_HELPERS_H_
#define PERFLAB_TESTS_SIM_ROUNDING_HELPERS_H_

#include <cmath>
#include <initializer_list>
#include <vector>

namespace perflab::sim::testing_helpers {

// Appends, for each power of two p = 2^lo..2^hi and each offset d, the four
// doubles from p + d downwards and the four from it upwards: where a binade
// ends and where a fraction crosses a half or a whole.
inline void AddValuesNearPowersOfTwo(int lo, int hi,
                                     std::initializer_list<double> offsets,
                                     std::vector<double>& values) {
  for (int k = lo; k <= hi; ++k) {
    const double p = std::ldexp(1.0, k);
    for (const double d : offsets) {
      double below = p + d;
      double above = p + d;
      for (int i = 0; i < 4; ++i) {
        values.push_back(below);
        values.push_back(above);
        below = std::nextafter(below, 0.0);
        above = std::nextafter(above, 1e300);
      }
    }
  }
}

}  // namespace perflab::sim::testing_helpers

#endif  // PERFLAB_TESTS_SIM_ROUNDING_HELPERS_H_
