// The Universal Scalability Law: relative capacity C(N) of N workers that
// share a serial section (contention sigma) and pay a pairwise coherency cost
// (kappa), its peak, and a bounded least-squares fit to measured points.
// Pure functions; thread-safe.
#ifndef PERFLAB_MODELS_USL_H_
#define PERFLAB_MODELS_USL_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"

namespace perflab::models {

// C(N) = N / (1 + sigma (N - 1) + kappa N (N - 1)).
double UslCapacity(double sigma, double kappa, double n);

struct UslPeak {
  double n_exact = 0;   // sqrt((1 - sigma) / kappa); infinite when kappa = 0
  int64_t n = 0;        // the integer N with the highest C(N) (0 if none)
  double capacity = 0;  // C(n)
};
// Fails when sigma is outside [0, 1], kappa < 0, or kappa == 0 (no peak), or
// when N* is beyond 2^53 (kappa below (1 - sigma) / 2^106), where integers
// are no longer all doubles.
absl::StatusOr<UslPeak> UslPeakOf(double sigma, double kappa);

struct UslPoint {
  double n = 0;           // concurrency (workers, clients, threads)
  double throughput = 0;  // measured throughput at n, any unit
};

struct UslFit {
  double sigma = 0;         // contention, >= 0
  double kappa = 0;         // coherency, >= 0
  double lambda = 0;        // throughput of one worker, in the points' unit
  double rms_residual = 0;  // root mean square of (measured - fitted)
  double r_squared = 0;     // 1 - SSres / SStot
  int iterations = 0;       // Levenberg-Marquardt steps taken
};
// The bounds of a fit's input: they keep every square and cube of the
// least-squares sums finite (N^3 lambda^2, throughput^2 times the points).
inline constexpr size_t kMaxUslFitPoints = 1'000'000;
inline constexpr double kMaxUslFitN = 1e9;
inline constexpr double kMaxUslFitThroughput = 1e100;

// Fits X(N) = lambda * C(N) with sigma, kappa >= 0 by projected
// Levenberg-Marquardt. Needs 3..kMaxUslFitPoints points with n in [1,
// kMaxUslFitN] and throughput in (0, kMaxUslFitThroughput]; every number of
// the result is finite (a fit that is not is refused).
absl::StatusOr<UslFit> FitUsl(const std::vector<UslPoint>& points);

}  // namespace perflab::models

#endif  // PERFLAB_MODELS_USL_H_
