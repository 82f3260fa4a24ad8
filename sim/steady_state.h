// The one steady-state check every measured run goes through. A run is only
// reported as a steady result when none of these hold:
//   - the offered load reaches the capacity the scenario knows it has;
//   - the warm-up is shorter than a few mean response times (the window then
//     starts inside the transient from an empty system);
//   - the sampled in-flight count L and lambda x W disagree by more than the
//     window's edge effect and sampling error allow;
//   - the first and second half of the window differ (throughput or mean
//     latency) by more than their sampling error: a trend, not a level.
// Each failed check gives one plain reason that names the knob which fixes
// it. Pure functions over plain structs: safe from any thread.
#ifndef PERFLAB_SIM_STEADY_STATE_H_
#define PERFLAB_SIM_STEADY_STATE_H_

#include <string>
#include <vector>

namespace perflab::sim {

// What a run measured, in the units the checks need. The Meter fills the
// window fields (Summary::Steady()); the scenario adds what it knows.
struct SteadyInputs {
  double warmup_s = 0;          // discarded warm-up before the window
  double window_s = 0;          // measured window
  double mean_response_s = -1;  // W of the requests that left (-1: unknown)
  // Time-average in-flight count over the window (-1: unknown). Exact, not
  // sampled: a periodic sampler can alias with a constant arrival rate.
  double l_mean = -1;
  double l_little = -1;  // lambda x W over the window
  // The window's two halves: completions, mean latency and its standard
  // error (0 when a half has fewer than two samples).
  double half_completed[2] = {-1, -1};
  double half_mean_s[2] = {0, 0};
  double half_se_s[2] = {0, 0};
  // What the scenario knows (-1: unknown): offered load and its capacity.
  double offered_per_s = -1;
  double capacity_per_s = -1;
  // Knob names for the reasons, as the user types them.
  std::string warmup_knob = "warmup_s";
  std::string window_knob = "duration_s";
  std::string load_knob = "rate_per_s";
};

struct SteadyOptions {
  double warmup_responses = 3;     // warm-up must cover this many W
  double transient_share = 0.01;   // ...unless that transient is this small
                                   // a share of the window
  double little_tolerance = 0.05;  // |L - lambda W| / lambda W beyond edges
  double trend_tolerance = 0.05;   // relative half-to-half change allowed
  double sigmas = 3;               // ...and it must also exceed this many SE
};

struct SteadyVerdict {
  bool steady = true;
  std::vector<std::string> reasons;  // one line each, naming the fixing knob
};

SteadyVerdict CheckSteady(const SteadyInputs& in,
                          const SteadyOptions& options = SteadyOptions());

// "steady" or "not steady: reason; reason" for a table cell or a note.
std::string SteadyText(const SteadyVerdict& v);

}  // namespace perflab::sim

#endif  // PERFLAB_SIM_STEADY_STATE_H_
