#include "models/queues.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace perflab::models {
namespace {

absl::Status Positive(const char* name, double v) {
  if (v > 0 && std::isfinite(v)) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat(name, ": got ", v, "; accepted: a finite number > 0"));
}

absl::Status Unstable(double rho) {
  return absl::InvalidArgumentError(absl::StrFormat(
      "unstable: utilisation rho = %.4g >= 1, the queue grows without bound; "
      "lower the arrival rate or add servers",
      rho));
}

}  // namespace

double ErlangC(int servers, double offered_load) {
  // Erlang B by its recurrence (stable for large c, no factorials), then C.
  double b = 1.0;
  for (int k = 1; k <= servers; ++k)
    b = offered_load * b / (k + offered_load * b);
  double rho = offered_load / servers;
  return b / (1.0 - rho * (1.0 - b));
}

absl::StatusOr<QueueMetrics> MMc(int servers, double arrival_rate_per_s,
                                 double service_rate_per_s) {
  if (servers < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("servers: got ", servers, "; accepted: >= 1"));
  }
  if (auto s = Positive("arrival rate", arrival_rate_per_s); !s.ok()) return s;
  if (auto s = Positive("service rate", service_rate_per_s); !s.ok()) return s;
  double a = arrival_rate_per_s / service_rate_per_s;
  double rho = a / servers;
  if (rho >= 1) return Unstable(rho);
  QueueMetrics m;
  m.utilisation = rho;
  m.p_wait = ErlangC(servers, a);
  m.mean_wait_s =
      m.p_wait / (servers * service_rate_per_s - arrival_rate_per_s);
  m.mean_response_s = m.mean_wait_s + 1.0 / service_rate_per_s;
  m.mean_queue_length = arrival_rate_per_s * m.mean_wait_s;
  m.mean_in_system = arrival_rate_per_s * m.mean_response_s;
  m.throughput_per_s = arrival_rate_per_s;
  return m;
}

absl::StatusOr<QueueMetrics> MM1(double arrival_rate_per_s,
                                 double service_rate_per_s) {
  return MMc(1, arrival_rate_per_s, service_rate_per_s);
}

absl::StatusOr<QueueMetrics> MG1(double arrival_rate_per_s,
                                 double mean_service_s, double service_cv) {
  if (auto s = Positive("arrival rate", arrival_rate_per_s); !s.ok()) return s;
  if (auto s = Positive("mean service time", mean_service_s); !s.ok()) return s;
  if (!(service_cv >= 0 && std::isfinite(service_cv))) {
    return absl::InvalidArgumentError(absl::StrCat(
        "service cv: got ", service_cv, "; accepted: a finite number >= 0"));
  }
  double rho = arrival_rate_per_s * mean_service_s;
  if (rho >= 1) return Unstable(rho);
  QueueMetrics m;
  m.utilisation = rho;
  m.p_wait = rho;  // Poisson arrivals see time averages (PASTA)
  // Pollaczek-Khinchine: Wq = rho E[S] (1 + cv^2) / (2 (1 - rho)).
  m.mean_wait_s =
      rho * mean_service_s * (1 + service_cv * service_cv) / (2 * (1 - rho));
  m.mean_response_s = m.mean_wait_s + mean_service_s;
  m.mean_queue_length = arrival_rate_per_s * m.mean_wait_s;
  m.mean_in_system = arrival_rate_per_s * m.mean_response_s;
  m.throughput_per_s = arrival_rate_per_s;
  return m;
}

double ClosedLoopThroughputBound(double clients, double think_s,
                                 double response_s) {
  return clients / (think_s + response_s);
}

}  // namespace perflab::models
