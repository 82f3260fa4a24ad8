// The mean and the sample standard deviation of finite numbers, computed so
// that they are finite too. A plain sum of values near DBL_MAX overflows to
// infinity (and a JSON writer prints null), as do the squares of large
// deviations; when it would, the values are scaled by a power of two (an
// exact operation) so that the sum cannot overflow, and the result is scaled
// back. Inputs whose plain sums are finite get exactly the plain result, so
// no existing output changes. Pure functions; thread-safe.
#ifndef PERFLAB_MODELS_MOMENTS_H_
#define PERFLAB_MODELS_MOMENTS_H_

#include <vector>

namespace perflab::models {

// Sum / n of finite `xs` (0 for none); finite whenever every x is.
double MeanOf(const std::vector<double>& xs);

// sqrt(sum (x - mean)^2 / (n - 1)) for n >= 2 (0 otherwise), `mean` as given
// by MeanOf; finite whenever every x is, except that a spread beyond DBL_MAX
// itself (values near -DBL_MAX and +DBL_MAX together) is DBL_MAX.
double SampleSdOf(const std::vector<double>& xs, double mean);

}  // namespace perflab::models

#endif  // PERFLAB_MODELS_MOMENTS_H_
