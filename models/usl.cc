#include "models/usl.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include "absl/strings/str_cat.h"

namespace perflab::models {
namespace {

// 2^53: every integer up to it is a double, so the best integer N beside the
// peak can be found by comparing neighbours.
constexpr double kMaxPeakN = 9007199254740992.0;

}  // namespace

double UslCapacity(double sigma, double kappa, double n) {
  return n / (1.0 + sigma * (n - 1.0) + kappa * n * (n - 1.0));
}

absl::StatusOr<UslPeak> UslPeakOf(double sigma, double kappa) {
  if (!(sigma >= 0 && sigma <= 1)) {
    return absl::InvalidArgumentError(
        absl::StrCat("sigma: got ", sigma, "; accepted: 0..1"));
  }
  if (!(kappa > 0 && std::isfinite(kappa))) {
    return absl::InvalidArgumentError(
        absl::StrCat("kappa: got ", kappa,
                     "; accepted: > 0 (with kappa = 0 capacity never peaks)"));
  }
  UslPeak p;
  // Two roots, not the root of the quotient: (1 - sigma) / kappa overflows
  // for a kappa near the smallest double while N* itself is representable.
  p.n_exact = std::sqrt(1.0 - sigma) / std::sqrt(kappa);
  if (p.n_exact > kMaxPeakN) {
    return absl::InvalidArgumentError(absl::StrCat(
        "kappa: got ", kappa, "; the peak N* = ", p.n_exact,
        " is beyond 2^53, where the best integer N cannot be told apart; "
        "accepted: kappa >= (1 - sigma) / 2^106 (here ",
        (1.0 - sigma) / (kMaxPeakN * kMaxPeakN), ")"));
  }
  // C(N) is unimodal, so the best integer is a neighbour of the real peak.
  auto lo = std::max<int64_t>(1, static_cast<int64_t>(std::floor(p.n_exact)));
  int64_t hi = lo + 1;
  p.n = UslCapacity(sigma, kappa, static_cast<double>(hi)) >
                UslCapacity(sigma, kappa, static_cast<double>(lo))
            ? hi
            : lo;
  p.capacity = UslCapacity(sigma, kappa, static_cast<double>(p.n));
  return p;
}

namespace {

using Vec3 = std::array<double, 3>;  // sigma, kappa, lambda

double Model(const Vec3& p, double n) {
  return p[2] * UslCapacity(p[0], p[1], n);
}

double SumSquares(const Vec3& p, const std::vector<UslPoint>& pts) {
  double s = 0;
  for (const UslPoint& q : pts) {
    double r = q.throughput - Model(p, q.n);
    s += r * r;
  }
  return s;
}

// Solves a 3x3 system by Gaussian elimination with partial pivoting.
bool Solve3(std::array<Vec3, 3> a, Vec3 b, Vec3& x) {
  for (int c = 0; c < 3; ++c) {
    int piv = c;
    for (int r = c + 1; r < 3; ++r)
      if (std::fabs(a[r][c]) > std::fabs(a[piv][c])) piv = r;
    if (std::fabs(a[piv][c]) < 1e-300) return false;
    std::swap(a[c], a[piv]);
    std::swap(b[c], b[piv]);
    for (int r = c + 1; r < 3; ++r) {
      double f = a[r][c] / a[c][c];
      for (int k = c; k < 3; ++k) a[r][k] -= f * a[c][k];
      b[r] -= f * b[c];
    }
  }
  for (int r = 2; r >= 0; --r) {
    double s = b[r];
    for (int k = r + 1; k < 3; ++k) s -= a[r][k] * x[k];
    x[r] = s / a[r][r];
  }
  return true;
}

// Starting point: lambda from the smallest N (nearly linear there), then
// sigma and kappa from the linearised form lambda N / X - 1 = s (N-1) + k N
// (N-1).
Vec3 InitialGuess(const std::vector<UslPoint>& pts) {
  const UslPoint& first = *std::min_element(
      pts.begin(), pts.end(),
      [](const UslPoint& a, const UslPoint& b) { return a.n < b.n; });
  double lambda = first.throughput / first.n;
  double s11 = 0, s12 = 0, s22 = 0, t1 = 0, t2 = 0;
  for (const UslPoint& q : pts) {
    double y = lambda * q.n / q.throughput - 1.0;
    double a = q.n - 1.0, b = q.n * (q.n - 1.0);
    s11 += a * a;
    s12 += a * b;
    s22 += b * b;
    t1 += a * y;
    t2 += b * y;
  }
  double det = s11 * s22 - s12 * s12;
  double sigma = 0.01, kappa = 1e-4;
  if (std::fabs(det) > 1e-300) {
    sigma = (t1 * s22 - t2 * s12) / det;
    kappa = (s11 * t2 - s12 * t1) / det;
  }
  return {std::max(sigma, 1e-6), std::max(kappa, 1e-9), lambda};
}

// The bounds FitUsl accepts, and three different N: three unknowns need
// them, since repeated points at fewer N fit exactly and say nothing about
// sigma or kappa (R^2 = 1 and a made-up peak).
absl::Status CheckUslPoints(const std::vector<UslPoint>& points) {
  if (points.size() < 3) {
    return absl::InvalidArgumentError(absl::StrCat(
        "USL fit: got ", points.size(), " points; accepted: at least 3"));
  }
  if (points.size() > kMaxUslFitPoints) {
    return absl::InvalidArgumentError(
        absl::StrCat("USL fit: got ", points.size(), " points; accepted: 3..",
                     kMaxUslFitPoints));
  }
  for (const UslPoint& q : points) {
    if (!(q.n >= 1 && q.n <= kMaxUslFitN && q.throughput > 0 &&
          q.throughput <= kMaxUslFitThroughput)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "USL fit: point (", q.n, ", ", q.throughput, "); accepted: n in [1, ",
          kMaxUslFitN, "] and throughput in (0, ", kMaxUslFitThroughput, "]"));
    }
  }
  std::vector<double> ns;
  ns.reserve(points.size());
  for (const UslPoint& q : points) ns.push_back(q.n);
  std::sort(ns.begin(), ns.end());
  const auto distinct = std::unique(ns.begin(), ns.end()) - ns.begin();
  if (distinct < 3) {
    return absl::InvalidArgumentError(absl::StrCat(
        "USL fit: ", points.size(), " points at only ", distinct,
        " different N; accepted: at least 3 different N (sigma, kappa and "
        "lambda are three unknowns)"));
  }
  return absl::OkStatus();
}

// Gauss-Newton's normal equations at p: a = J^T J and g = J^T r, with J the
// Jacobian of the model's throughput and r the residuals.
void NormalEquations(const Vec3& p, const std::vector<UslPoint>& points,
                     std::array<Vec3, 3>& a, Vec3& g) {
  for (const UslPoint& q : points) {
    double n = q.n;
    double d = 1.0 + p[0] * (n - 1.0) + p[1] * n * (n - 1.0);
    Vec3 j = {-p[2] * n * (n - 1.0) / (d * d),
              -p[2] * n * n * (n - 1.0) / (d * d), n / d};
    double r = q.throughput - p[2] * n / d;
    for (int x = 0; x < 3; ++x) {
      g[x] += j[x] * r;
      for (int y = 0; y < 3; ++y) a[x][y] += j[x] * j[y];
    }
  }
}

// Projected Levenberg-Marquardt from p: a damped Gauss-Newton step, clipped
// to the feasible region sigma, kappa >= 0, accepted only if it lowers SSE.
// Leaves the best p and its sse; returns the iterations run.
int LevenbergMarquardt(const std::vector<UslPoint>& points, Vec3& p,
                       double& sse) {
  double mu = 1e-3;
  int iterations = 0;
  for (int it = 0; it < 500; ++it) {
    iterations = it + 1;
    std::array<Vec3, 3> a{};
    Vec3 g{};
    NormalEquations(p, points, a, g);
    bool improved = false;
    for (int tries = 0; tries < 30 && !improved; ++tries) {
      std::array<Vec3, 3> damped = a;
      for (int x = 0; x < 3; ++x)
        damped[x][x] += mu * std::max(a[x][x], 1e-300);
      Vec3 step{};
      if (!Solve3(damped, g, step)) {
        mu *= 10;
        continue;
      }
      Vec3 next = {std::max(0.0, p[0] + step[0]), std::max(0.0, p[1] + step[1]),
                   std::max(1e-300, p[2] + step[2])};
      double next_sse = SumSquares(next, points);
      if (next_sse < sse) {
        double gain = (sse - next_sse) / std::max(sse, 1e-300);
        p = next;
        sse = next_sse;
        mu = std::max(mu / 3, 1e-12);
        improved = true;
        if (gain < 1e-14) it = 500;  // converged
      } else {
        mu *= 4;
      }
    }
    if (!improved) break;
  }
  return iterations;
}

}  // namespace

absl::StatusOr<UslFit> FitUsl(const std::vector<UslPoint>& points) {
  if (absl::Status ok = CheckUslPoints(points); !ok.ok()) return ok;
  Vec3 p = InitialGuess(points);
  double sse = SumSquares(p, points);
  UslFit fit;
  fit.iterations = LevenbergMarquardt(points, p, sse);
  fit.sigma = p[0];
  fit.kappa = p[1];
  fit.lambda = p[2];
  fit.rms_residual = std::sqrt(sse / static_cast<double>(points.size()));
  double mean = 0;
  for (const UslPoint& q : points) mean += q.throughput;
  mean /= static_cast<double>(points.size());
  double sst = 0;
  for (const UslPoint& q : points)
    sst += (q.throughput - mean) * (q.throughput - mean);
  fit.r_squared = sst > 0 ? 1.0 - sse / sst : 1.0;
  // A guard, not a path the bounds above are known to reach: a fit that
  // went numerically wrong is refused rather than printed.
  for (double v :
       {fit.sigma, fit.kappa, fit.lambda, fit.rms_residual, fit.r_squared}) {
    if (!std::isfinite(v)) {
      return absl::InvalidArgumentError(
          "USL fit: the points give no finite fit; accepted: points whose "
          "throughputs a USL curve can follow");
    }
  }
  return fit;
}

}  // namespace perflab::models
