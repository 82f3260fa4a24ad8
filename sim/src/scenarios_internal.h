// Private to the sim library: the scenario factories and helpers they share.
#ifndef PERFLAB_SIM_SRC_SCENARIOS_INTERNAL_H_
#define PERFLAB_SIM_SRC_SCENARIOS_INTERNAL_H_

#include "sim/scenario.h"

namespace perflab::sim {

Scenario CoordinatedOmissionScenario();
Scenario LatencyMixtureScenario();
Scenario LittlesLawScenario();
Scenario ThreadPoolScenario();
Scenario PoolStarvationScenario();
Scenario ClientPoolScenario();
Scenario UslScenario();
Scenario MmcScenario();
Scenario HockeyStickScenario();
Scenario KeepaliveRaceScenario();
Scenario LockContentionScenario();

}  // namespace perflab::sim

#endif  // PERFLAB_SIM_SRC_SCENARIOS_INTERNAL_H_
