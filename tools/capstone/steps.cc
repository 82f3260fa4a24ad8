#include "tools/capstone/steps.h"

#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "core/case_study.h"

namespace perflab::capstone {
namespace {

std::string Number(double v) { return absl::StrCat(v); }

std::string Names() {
  std::vector<std::string> names;
  for (const Step& s : AllSteps()) names.emplace_back(s.name);
  return absl::StrJoin(names, ", ");
}

// A step named by its row of the case study's table.
Step RowStep(case_study::CapstoneStep row, std::string_view key,
             std::string value, std::string_view change,
             void (*apply)(sim::OrderServiceConfig&)) {
  return {row,    case_study::CapstoneRow(row).step,
          key,    std::move(value),
          change, apply};
}

}  // namespace

const std::vector<Step>& AllSteps() {
  using Config = sim::OrderServiceConfig;
  using S = case_study::CapstoneStep;
  static const std::vector<Step> kSteps = {
      RowStep(S::kBaseline, "", "",
              "no index, N+1, Connection: close, pool 4, 16 threads, 256 MiB "
              "heap, 8 vCPU",
              [](Config&) {}),
      RowStep(S::kIndex, "index", "true",
              "index orders(customer_id, created_at)",
              [](Config& c) { c.index = true; }),
      RowStep(S::kJoin, "join", "true", "N+1 (81 statements) -> one join",
              [](Config& c) { c.join = true; }),
      RowStep(S::kKeepAlive, "keep_alive", "true",
              "inventory client keeps connections alive (no TCP_NODELAY)",
              [](Config& c) { c.keep_alive = true; }),
      RowStep(S::kTcpNodelay, "tcp_nodelay", "true",
              "inventory server sets TCP_NODELAY",
              [](Config& c) { c.tcp_nodelay = true; }),
      RowStep(S::kPool8, "db_pool", Number(case_study::kTunedDbPool),
              "database pool 4 -> 8",
              [](Config& c) { c.db_pool = case_study::kTunedDbPool; }),
      RowStep(S::kVirtualThreads, "virtual_threads", "true",
              "virtual threads instead of 16 platform threads",
              [](Config& c) { c.virtual_threads = true; }),
      RowStep(S::kCache, "cache", "true",
              "page cache (30 s TTL, 10,000 entries)",
              [](Config& c) { c.cache = true; }),
      RowStep(S::kHeap768, "heap_mib", Number(case_study::kTunedHeapMib),
              "heap 256 -> 768 MiB",
              [](Config& c) { c.heap_mib = case_study::kTunedHeapMib; }),
      RowStep(S::kRightSize, "cores", Number(case_study::kRightSizedCores),
              "right-size 8 -> 4 vCPU",
              [](Config& c) { c.cores = case_study::kRightSizedCores; }),
  };
  return kSteps;
}

std::string StepChange(const Step& step) {
  if (step.key.empty()) return "baseline";
  return absl::StrCat(std::string(step.key), "=", step.value);
}

absl::StatusOr<std::vector<const Step*>> ParseSteps(std::string_view list) {
  const std::vector<Step>& all = AllSteps();
  std::vector<const Step*> steps;
  if (list.empty()) {
    for (const Step& s : all) steps.push_back(&s);
    return steps;
  }
  std::vector<const Step*> named;
  for (absl::string_view piece :
       absl::StrSplit(absl::string_view(list.data(), list.size()), ',')) {
    const std::string_view name(piece.data(), piece.size());
    const Step* found = nullptr;
    for (const Step& s : all) {
      if (s.name == name) found = &s;
    }
    if (found == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat("--steps: unknown step '",
                                                     std::string(name),
                                                     "'; accepted: ", Names()));
    }
    for (const Step* s : named) {
      if (s == found) {
        return absl::InvalidArgumentError(
            absl::StrCat("--steps: step '", std::string(name),
                         "' is repeated; accepted: each step once"));
      }
    }
    if (found == &all[0] && !named.empty()) {
      return absl::InvalidArgumentError(
          "--steps: 'baseline' must come first (every list starts from it); "
          "accepted: baseline first or absent");
    }
    named.push_back(found);
  }
  if (named.front() != &all[0]) steps.push_back(&all[0]);
  steps.insert(steps.end(), named.begin(), named.end());
  return steps;
}

std::vector<sim::OrderServiceConfig> CumulativeConfigs(
    const std::vector<const Step*>& steps) {
  std::vector<sim::OrderServiceConfig> configs;
  sim::OrderServiceConfig config;
  for (const Step* s : steps) {
    s->apply(config);
    configs.push_back(config);
  }
  return configs;
}

}  // namespace perflab::capstone
