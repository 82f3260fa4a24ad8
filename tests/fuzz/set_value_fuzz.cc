// libFuzzer target: the `--set key=value` parsers of `perflab sim` (one value
// per key) and `perflab sweep` (key=v1,v2,...). The input is a scenario name
// on its first line and one setting per following line. Any input must give
// parameters or a clean InvalidArgument: no crash, hang or undefined
// behaviour; what parses must hold every given value as written, parse again
// from its own texts, and (for a sweep) pass the experiment's own checks.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "sim/scenarios/scenario.h"
#include "tools/sweep/experiment.h"

namespace {

void Require(bool ok) {
  if (!ok) std::abort();
}

void RequireInvalidArgument(const absl::Status& s) {
  Require(s.code() == absl::StatusCode::kInvalidArgument &&
          !s.message().empty());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 4096) return 0;
  const std::string text(reinterpret_cast<const char*>(data), size);
  std::vector<std::string> lines = absl::StrSplit(text, '\n');
  const perflab::sim::Scenario* scenario =
      perflab::sim::FindScenario(lines.front());
  if (scenario == nullptr) return 0;
  const std::vector<std::string> sets(lines.begin() + 1, lines.end());

  absl::StatusOr<perflab::sim::Params> params =
      perflab::sim::ParseParams(*scenario, sets);
  if (params.ok()) {
    std::vector<std::string> again;
    for (const auto& [key, value] : params->Texts()) {
      again.push_back(key + "=" + value);
    }
    for (const std::string& set : sets) {  // each given value, as written
      bool found = false;
      for (const std::string& kv : again) found = found || kv == set;
      Require(found);
    }
    absl::StatusOr<perflab::sim::Params> reparsed =
        perflab::sim::ParseParams(*scenario, again);
    Require(reparsed.ok() && reparsed->Texts() == params->Texts());
  } else {
    RequireInvalidArgument(params.status());
  }

  absl::StatusOr<perflab::sweep::Experiment> e =
      perflab::sweep::MakeExperiment(scenario->name, sets, 1, 7);
  if (e.ok()) {
    Require(perflab::sweep::CheckExperiment(*e).ok());
    Require(perflab::sweep::TotalRuns(*e) >= 1 &&
            perflab::sweep::TotalRuns(*e) <= perflab::sweep::Limits().max_runs);
  } else {
    RequireInvalidArgument(e.status());
  }
  return 0;
}
