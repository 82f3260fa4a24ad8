// Customer ids as the case study's load generator draws them: skewed
// 1 + n·u³ (core::SkewedKey) or uniform 1 + n·u, from a seeded splitmix64.
// Not thread-safe: one picker per thread.
#ifndef PERFLAB_BENCH_ORDER_SERVICE_CUSTOMER_PICKER_H_
#define PERFLAB_BENCH_ORDER_SERVICE_CUSTOMER_PICKER_H_

#include <algorithm>
#include <cstdint>

#include "core/random.h"

namespace perflab::orders {

class CustomerPicker {
 public:
  CustomerPicker(int64_t customers, bool skewed, uint64_t seed)
      : customers_(customers), skewed_(skewed), rng_(seed) {}

  // An id in [1, customers].
  int64_t Next() {
    const double u = rng_.Uniform01();
    if (skewed_) return core::SkewedKey(customers_, u);
    return std::min(customers_, 1 + static_cast<int64_t>(
                                        static_cast<double>(customers_) * u));
  }

 private:
  int64_t customers_;
  bool skewed_;
  core::SplitMix64 rng_;
};

}  // namespace perflab::orders

#endif  // PERFLAB_BENCH_ORDER_SERVICE_CUSTOMER_PICKER_H_
