#include "models/student_t.h"

#include <cmath>
#include <limits>

namespace perflab::models {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Lentz's evaluation of the continued fraction for I_x(a, b); it converges
// fast for x < (a + 1) / (a + b + 2), the caller uses symmetry otherwise.
double BetaContinuedFraction(double a, double b, double x) {
  constexpr double kTiny = 1e-300;
  constexpr double kEps = 1e-16;
  double qab = a + b, qap = a + 1, qam = a - 1;
  double c = 1, d = 1 - qab * x / qap;
  if (std::fabs(d) < kTiny) d = kTiny;
  d = 1 / d;
  double h = d;
  for (int m = 1; m <= 1000; ++m) {
    double m2 = 2.0 * m;
    // Even step of the fraction.
    double aa = m * (b - m) * x / ((qam + m2) * (a + m2));
    d = 1 + aa * d;
    if (std::fabs(d) < kTiny) d = kTiny;
    c = 1 + aa / c;
    if (std::fabs(c) < kTiny) c = kTiny;
    d = 1 / d;
    h *= d * c;
    // Odd step.
    aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
    d = 1 + aa * d;
    if (std::fabs(d) < kTiny) d = kTiny;
    c = 1 + aa / c;
    if (std::fabs(c) < kTiny) c = kTiny;
    d = 1 / d;
    double delta = d * c;
    h *= delta;
    if (std::fabs(delta - 1) < kEps) break;
  }
  return h;
}

}  // namespace

double RegularizedIncompleteBeta(double a, double b, double x) {
  if (!(a > 0) || !(b > 0) || !(x >= 0) || !(x <= 1)) return kNaN;
  if (x == 0 || x == 1) return x;
  // x^a (1-x)^b / (a B(a, b)), in logs so large a, b do not overflow.
  double log_front = std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) +
                     a * std::log(x) + b * std::log1p(-x);
  double front = std::exp(log_front);
  if (x < (a + 1) / (a + b + 2)) {
    return front * BetaContinuedFraction(a, b, x) / a;
  }
  return 1 - front * BetaContinuedFraction(b, a, 1 - x) / b;
}

double StudentTCdf(double t, double df) {
  if (!(df > 0) || std::isnan(t)) return kNaN;
  if (std::isinf(t)) return t > 0 ? 1 : 0;
  // P(|T| > |t|) = I_{df / (df + t^2)}(df / 2, 1 / 2).
  double tail = 0.5 * RegularizedIncompleteBeta(df / 2, 0.5, df / (df + t * t));
  return t > 0 ? 1 - tail : tail;
}

double StudentTQuantile(double p, double df) {
  if (!(p > 0) || !(p < 1) || !(df > 0)) return kNaN;
  if (p == 0.5) return 0;
  // Solve on the upper half and mirror: the CDF is symmetric about 0.
  double q = p > 0.5 ? p : 1 - p;
  double lo = 0, hi = 1;
  while (StudentTCdf(hi, df) < q) {
    hi *= 2;
    if (std::isinf(hi)) return p > 0.5 ? hi : -hi;
  }
  // Bisection until the interval cannot shrink: the CDF is monotone, so this
  // always converges, where Newton can overshoot in the heavy tails of df ~ 1.
  for (int i = 0; i < 2000; ++i) {
    double mid = lo + (hi - lo) / 2;
    if (mid <= lo || mid >= hi) break;
    if (StudentTCdf(mid, df) < q) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  double t = lo + (hi - lo) / 2;
  return p > 0.5 ? t : -t;
}

double ConfidenceHalfWidth95(double sd, int n) {
  if (n < 2) return kNaN;
  return StudentTQuantile(0.975, n - 1) * sd /
         std::sqrt(static_cast<double>(n));
}

}  // namespace perflab::models
