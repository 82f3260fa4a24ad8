#include "bench/order_service/bench_support.h"

#include <cstdio>
#include <map>
#include <mutex>

#include "bench/order_service/dataset.h"

namespace perflab::orders {

absl::StatusOr<std::string> BenchDataset(double scale) {
  static std::mutex mu;
  static auto* ready = new std::map<double, absl::StatusOr<std::string>>();
  std::lock_guard<std::mutex> lock(mu);
  auto it = ready->find(scale);
  if (it != ready->end()) return it->second;
  std::string path = DefaultDatasetPath(scale);
  auto report = EnsureDataset(path, DatasetOptions{.scale = scale});
  absl::StatusOr<std::string> result = path;
  if (report.ok()) {
    std::fprintf(stderr, "dataset %s: %s (%.2f s)\n", path.c_str(),
                 report->reason.c_str(), report->seconds);
  } else {
    result = report.status();
    std::fprintf(stderr, "dataset %s: %s\n", path.c_str(),
                 report.status().ToString().c_str());
  }
  ready->emplace(scale, result);
  return result;
}

}  // namespace perflab::orders
