#include "tools/capstone/canary.h"

#include <cmath>

namespace perflab::capstone {

std::vector<std::string> CanaryFields(const sim::OrderServiceConfig& c) {
  std::vector<std::string> f;
  if (c.join) {
    f.emplace_back(c.index ? "join_index_us" : "join_scan_us");
  } else {
    f.emplace_back(c.index ? "orders_query_index_us" : "orders_query_scan_us");
    f.emplace_back("item_statement_us");
  }
  f.emplace_back("serialize_us");
  f.emplace_back("cpp_build_page_us");
  if (c.cache) f.emplace_back("cache_hit_us");
  return f;
}

bool CanaryResult::flagged() const {
  return std::fabs(ratio - 1) > kCanaryFlag;
}

CanaryResult CompareCanary(const sim::Calibration& calibrated,
                           const sim::Calibration& now,
                           const std::vector<std::string>& fields) {
  CanaryResult r;
  double log_sum = 0;
  for (const std::string& name : fields) {
    for (const sim::CalibrationField& f : sim::CalibrationFields()) {
      if (f.name != name) continue;
      const double then = calibrated.*f.member;
      const double again = now.*f.member;
      if (!(then > 0) || !(again > 0)) break;
      r.fields.emplace_back(name, again / then);
      log_sum += std::log(again / then);
    }
  }
  if (!r.fields.empty()) {
    r.ratio = std::exp(log_sum / static_cast<double>(r.fields.size()));
  }
  return r;
}

absl::StatusOr<CanaryResult> RunCanary(CalibrateOptions options,
                                       const sim::Calibration& calibrated,
                                       const sim::OrderServiceConfig& config) {
  options.quick = true;
  options.quiet = true;
  options.from_dir.clear();
  options.only_fields = CanaryFields(config);
  absl::StatusOr<CalibrationFile> now = Calibrate(options, nullptr);
  if (!now.ok()) return now.status();
  return CompareCanary(calibrated, now->values, options.only_fields);
}

sim::Calibration ScaleCosts(sim::Calibration c, double ratio) {
  using C = sim::Calibration;
  for (const sim::CalibrationField& f : sim::CalibrationFields()) {
    if (f.unit != "us" || f.member == &C::generator_cpu_per_request_us ||
        f.member == &C::cpp_generator_cpu_us ||
        f.member == &C::sched_quantum_us) {
      continue;
    }
    c.*f.member *= ratio;
  }
  return c;
}

}  // namespace perflab::capstone
