// Student's t distribution: the quantile a confidence interval over a few
// replications needs (the 95 % half-width is t(0.975, n-1) * s / sqrt(n)).
// Computed from the regularized incomplete beta function, so any degrees of
// freedom work, not only the rows of a printed table. Pure functions;
// thread-safe.
#ifndef PERFLAB_MODELS_STUDENT_T_H_
#define PERFLAB_MODELS_STUDENT_T_H_

namespace perflab::models {

// I_x(a, b), the regularized incomplete beta function, for a, b > 0 and x in
// [0, 1] (continued fraction, relative error ~1e-14). NaN outside the domain.
double RegularizedIncompleteBeta(double a, double b, double x);

// P(T <= t) for T ~ Student's t with `df` > 0 degrees of freedom.
double StudentTCdf(double t, double df);

// The t with StudentTCdf(t, df) == p, for p in (0, 1) and df > 0; NaN
// outside the domain. Bisection to the last bit, so it is monotone in p.
double StudentTQuantile(double p, double df);

// The 95 % two-sided confidence half-width of a mean over n samples with
// sample standard deviation `sd`: t(0.975, n-1) * sd / sqrt(n). NaN for n < 2.
double ConfidenceHalfWidth95(double sd, int n);

}  // namespace perflab::models

#endif  // PERFLAB_MODELS_STUDENT_T_H_
