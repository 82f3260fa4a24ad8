#include "tools/calibration/canary.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"

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

std::vector<std::string> AllCanaryFields() {
  std::vector<std::string> every;
  for (bool join : {false, true}) {
    for (bool index : {false, true}) {
      sim::OrderServiceConfig c;
      c.join = join;
      c.index = index;
      c.cache = true;
      for (std::string& f : CanaryFields(c)) every.push_back(std::move(f));
    }
  }
  std::vector<std::string> ordered;
  for (const sim::CalibrationField& f : sim::CalibrationFields()) {
    if (std::find(every.begin(), every.end(), f.name) != every.end()) {
      ordered.emplace_back(f.name);
    }
  }
  return ordered;
}

absl::Status AddCanaryReference(CalibrateOptions options,
                                CalibrationFile& file) {
  const std::vector<std::string> fields = AllCanaryFields();
  const sim::Calibration* values = &file.values;
  absl::StatusOr<CalibrationFile> rerun;
  if (!options.quick) {
    options.quick = true;
    options.quiet = true;
    options.from_dir.clear();
    options.only_fields = fields;
    rerun = Calibrate(options, nullptr);
    if (!rerun.ok()) return rerun.status();
    values = &rerun->values;
  }
  file.canary_reference.clear();
  for (const sim::CalibrationField& f : sim::CalibrationFields()) {
    if (std::find(fields.begin(), fields.end(), f.name) == fields.end()) {
      continue;
    }
    if (values->*f.member > 0) {
      file.canary_reference.emplace_back(f.name, values->*f.member);
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<sim::Calibration> CanaryReferenceOf(
    const CalibrationFile& file) {
  if (file.canary_reference.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "calibration '", file.name,
        "' has no canary_reference, so a drift canary would compare a quick "
        "rerun with a full measurement; accepted: a calibration written by "
        "perflab calibrate (not --from-dir), or --no-canary"));
  }
  sim::Calibration c;
  for (const sim::CalibrationField& f : sim::CalibrationFields()) {
    c.*f.member = 0;
  }
  for (const auto& [name, value] : file.canary_reference) {
    for (const sim::CalibrationField& f : sim::CalibrationFields()) {
      if (f.name == name) c.*f.member = value;
    }
  }
  return c;
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
                                       const sim::Calibration& reference,
                                       const sim::OrderServiceConfig& config) {
  options.quick = true;
  options.quiet = true;
  options.from_dir.clear();
  options.only_fields = CanaryFields(config);
  absl::StatusOr<CalibrationFile> now = Calibrate(options, nullptr);
  if (!now.ok()) return now.status();
  return CompareCanary(reference, now->values, options.only_fields);
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
