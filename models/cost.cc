#include "models/cost.h"

#include <cmath>

#include "absl/strings/str_cat.h"

namespace perflab::models {
namespace {

absl::Status Check(bool ok, const char* what, double value,
                   const char* accepted) {
  if (ok) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat(what, ": got ", value, "; accepted: ", accepted));
}

}  // namespace

absl::StatusOr<Cost> CostPerMillion(double rps, double vcpu, double mem_gib,
                                    const CostOptions& o) {
  for (absl::Status s : {
           Check(rps > 0, "rps", rps, "> 0"),
           Check(vcpu > 0, "vcpu", vcpu, "> 0"),
           Check(mem_gib >= 0, "mem_gib", mem_gib, ">= 0"),
           Check(o.usd_per_vcpu_hour >= 0, "usd_per_vcpu_hour",
                 o.usd_per_vcpu_hour, ">= 0"),
           Check(o.usd_per_gib_hour >= 0, "usd_per_gib_hour",
                 o.usd_per_gib_hour, ">= 0"),
           Check(o.target_utilisation > 0 && o.target_utilisation <= 1,
                 "target_utilisation", o.target_utilisation, "(0, 1]"),
       }) {
    if (!s.ok()) return s;
  }
  Cost c;
  c.usd_per_hour = vcpu * o.usd_per_vcpu_hour + mem_gib * o.usd_per_gib_hour;
  c.usd_per_million =
      c.usd_per_hour / (o.target_utilisation * rps * 3600.0) * 1e6;
  // Finite inputs whose ratio is not (a huge price over a tiny rate) have
  // no cost to print.
  if (!std::isfinite(c.usd_per_hour) || !std::isfinite(c.usd_per_million)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "cost: ", vcpu, " vCPU and ", mem_gib, " GiB at ", rps,
        " req/s give a cost per hour or per million requests beyond the "
        "largest double; accepted: inputs whose cost is finite"));
  }
  return c;
}

}  // namespace perflab::models
