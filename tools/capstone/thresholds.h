// The thresholds the capstone's verdicts read, each defined once: the flat
// band of a step factor, a full cap, the load generator's ceiling and the
// bands of agreement with a reference. The composer, --validate, --real and
// the MVA estimate read them here; the plots (tools/plots/capstone.py) read
// tools/plots/capstone_thresholds.json, which is ThresholdsJson()'s output
// (tests/capstone/thresholds_test.cc keeps the two the same). Constants and
// pure functions; thread-safe.
#ifndef PERFLAB_TOOLS_CAPSTONE_THRESHOLDS_H_
#define PERFLAB_TOOLS_CAPSTONE_THRESHOLDS_H_

#include <string>

namespace perflab::capstone {

// A step factor within this share of 1 is "about the same" on either side
// (the case study's heap step, x0.99).
inline constexpr double kFlatBand = 0.05;
// A cap (request threads, database pool, cores) this busy, as a share of its
// size, is full: it is the limit.
inline constexpr double kCapFullShare = 0.95;
// A load generator this busy (share of its cores) sets the step's RPS: the
// figure measures the rig, not the service.
inline constexpr double kGeneratorCeiling = 0.9;
// RPS (or a step factor) within these shares of a reference's agrees with it.
inline constexpr double kWithinLoose = 0.3;
inline constexpr double kWithinTight = 0.15;

// Direction of a step factor: +1 above 1 + kFlatBand, -1 below 1 -
// kFlatBand, 0 between.
constexpr int FactorWay(double factor) {
  if (factor > 1 + kFlatBand) return 1;
  if (factor < 1 - kFlatBand) return -1;
  return 0;
}

// The thresholds the plots read, as percentages: {"cap_full_pct": 95,
// "generator_ceiling_pct": 90} with a line saying where they come from.
std::string ThresholdsJson();

}  // namespace perflab::capstone

#endif  // PERFLAB_TOOLS_CAPSTONE_THRESHOLDS_H_
