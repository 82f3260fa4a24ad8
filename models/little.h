// Little's Law, L = lambda W, and the pool sizing that follows from it.
// Pure functions; thread-safe.
#ifndef PERFLAB_MODELS_LITTLE_H_
#define PERFLAB_MODELS_LITTLE_H_

#include <cstdint>
#include <optional>

#include "absl/status/statusor.h"

namespace perflab::models {

struct Little {
  double l = 0;           // mean number in the system (in flight)
  double rate_per_s = 0;  // arrival = departure rate
  double w_s = 0;         // mean time in the system
};
// Give exactly two of the three; the third is solved. All must be > 0.
absl::StatusOr<Little> SolveLittle(std::optional<double> l,
                                   std::optional<double> rate_per_s,
                                   std::optional<double> w_s);

struct PoolSizing {
  double in_flight = 0;       // peak rate x hold time
  int64_t minimum = 0;        // ceil(in_flight): a pool any smaller queues
  int64_t with_headroom = 0;  // ceil(in_flight x (1 + headroom))
};
// pool >= peak rate x hold time, plus headroom (0.2-0.3 is the usual range).
absl::StatusOr<PoolSizing> SizePool(double peak_rate_per_s, double hold_s,
                                    double headroom = 0.3);

// The most a pool of `size` can serve when each use holds it `hold_s`.
double PoolCeilingPerS(double size, double hold_s);

}  // namespace perflab::models

#endif  // PERFLAB_MODELS_LITTLE_H_
