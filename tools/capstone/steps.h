// The capstone's ten named steps: the baseline and nine changes of ONE
// sim::OrderServiceConfig field each, in the case study's order. A step list
// (`--steps NAME,...`) applies any subset in any order on top of the
// baseline, so a fix's gain can be seen to depend on what came before it.
// Immutable data and pure functions; thread-safe.
#ifndef PERFLAB_TOOLS_CAPSTONE_STEPS_H_
#define PERFLAB_TOOLS_CAPSTONE_STEPS_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "core/case_study.h"
#include "sim/order_service/model.h"

namespace perflab::capstone {

struct Step {
  case_study::CapstoneStep row;  // its row of the case study's table
  std::string_view name;         // the row's step: "index", "keep-alive", ...
  std::string_view key;          // the OrderServiceConfig field it sets ("" for
                                 // the baseline)
  std::string value;             // the new value as text: "true", "8", "768"
  std::string_view change;       // what it means, for humans
  void (*apply)(sim::OrderServiceConfig&);
};

// All ten, baseline first, in the case study's order.
const std::vector<Step>& AllSteps();

// "key=value" of a step ("baseline" for the baseline).
std::string StepChange(const Step& step);

// Parses "NAME,NAME,...": names from AllSteps(), each at most once; the
// baseline is prepended when absent and must come first when present. An
// empty list means all ten. Unknown or repeated names: InvalidArgument.
absl::StatusOr<std::vector<const Step*>> ParseSteps(std::string_view list);

// The configuration after steps[0..i] (cumulative), one per step.
std::vector<sim::OrderServiceConfig> CumulativeConfigs(
    const std::vector<const Step*>& steps);

}  // namespace perflab::capstone

#endif  // PERFLAB_TOOLS_CAPSTONE_STEPS_H_
