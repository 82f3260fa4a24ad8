#include "sim/steady_state.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

namespace perflab::sim {
namespace {

std::string Num(double v) { return absl::StrFormat("%.4g", v); }

}  // namespace

SteadyVerdict CheckSteady(const SteadyInputs& in, const SteadyOptions& o) {
  SteadyVerdict v;
  auto fail = [&v](std::string reason) {
    v.steady = false;
    v.reasons.push_back(std::move(reason));
  };
  if (in.offered_per_s > 0 && in.capacity_per_s > 0 &&
      in.offered_per_s >= in.capacity_per_s) {
    fail(absl::StrCat("offered load ", Num(in.offered_per_s),
                      "/s reaches the capacity ", Num(in.capacity_per_s),
                      "/s, so the queue only grows (lower ", in.load_knob,
                      " below the capacity)"));
  }
  const double w = in.mean_response_s;
  if (w > 0 && in.window_s > 0) {
    const double transient = o.warmup_responses * w;
    if (in.warmup_s < transient &&
        transient > o.transient_share * in.window_s) {
      fail(absl::StrCat(
          "warm-up ", Num(in.warmup_s), " s is shorter than ",
          Num(o.warmup_responses), " mean response times (", Num(transient),
          " s): the window starts in the "
          "transient (raise ",
          in.warmup_knob, " to at least ", Num(std::ceil(transient)), ")"));
    }
  }
  if (in.l_mean >= 0 && in.l_little > 0 && in.window_s > 0 && w > 0) {
    // Requests straddling either edge of the window count in L but not fully
    // in lambda x W: an error of about W / window on each side.
    const double allowed = o.little_tolerance + 2 * w / in.window_s;
    const double err = std::fabs(in.l_mean - in.l_little) / in.l_little;
    if (err > allowed) {
      fail(absl::StrCat("Little's Law does not hold: L ", Num(in.l_mean),
                        " against lambda x W ", Num(in.l_little), " (",
                        Num(err * 100), " % apart, allowed ",
                        Num(allowed * 100),
                        " %): the system is not in equilibrium (raise ",
                        in.warmup_knob, " or ", in.window_knob, ")"));
    }
  }
  const double n0 = in.half_completed[0], n1 = in.half_completed[1];
  if (n0 >= 0 && n1 >= 0 && n0 + n1 > 0) {
    // Completions per half are counts: Poisson-like error sqrt(n0 + n1).
    const double dn = std::fabs(n1 - n0);
    if (dn > o.trend_tolerance * std::max(n0, n1) &&
        dn > o.sigmas * std::sqrt(n0 + n1)) {
      fail(absl::StrCat("throughput moved from ", Num(n0), " to ", Num(n1),
                        " completions between the window's halves: a trend, "
                        "not a level (raise ",
                        in.warmup_knob, ", or lower ", in.load_knob, ")"));
    }
    const double m0 = in.half_mean_s[0], m1 = in.half_mean_s[1];
    const double se = std::hypot(in.half_se_s[0], in.half_se_s[1]);
    const double dm = std::fabs(m1 - m0);
    if (n0 > 1 && n1 > 1 && dm > o.trend_tolerance * std::max(m0, m1) &&
        dm > o.sigmas * se) {
      fail(absl::StrCat("mean latency moved from ", Num(m0 * 1e3), " to ",
                        Num(m1 * 1e3),
                        " ms between the window's halves: a trend, not a "
                        "level (raise ",
                        in.warmup_knob, " and ", in.window_knob, ", or lower ",
                        in.load_knob, ")"));
    }
  }
  return v;
}

std::string SteadyText(const SteadyVerdict& v) {
  if (v.steady) return "steady";
  return absl::StrCat("not steady: ", absl::StrJoin(v.reasons, "; "));
}

}  // namespace perflab::sim
