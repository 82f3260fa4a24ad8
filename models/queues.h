// Steady-state queueing formulas: M/M/1, M/M/c (Erlang C), M/G/1 and M/D/1
// (Pollaczek-Khinchine), and the closed-loop throughput bound. Rates are per
// second, times in seconds. A queue with utilisation >= 1 has no steady state:
// that is an InvalidArgument error whose message says "unstable" and gives rho.
// Pure functions; thread-safe.
#ifndef PERFLAB_MODELS_QUEUES_H_
#define PERFLAB_MODELS_QUEUES_H_

#include "absl/status/statusor.h"

namespace perflab::models {

struct QueueMetrics {
  double utilisation = 0;        // rho = lambda / (c mu), per server
  double p_wait = 0;             // probability an arrival has to queue
  double mean_wait_s = 0;        // Wq: time in queue before service
  double mean_response_s = 0;    // W = Wq + mean service time
  double mean_queue_length = 0;  // Lq = lambda Wq
  double mean_in_system = 0;     // L = lambda W
  double throughput_per_s = 0;   // = arrival rate in steady state
};

absl::StatusOr<QueueMetrics> MM1(double arrival_rate_per_s,
                                 double service_rate_per_s);
absl::StatusOr<QueueMetrics> MMc(int servers, double arrival_rate_per_s,
                                 double service_rate_per_s);
// Service time with mean `mean_service_s` and coefficient of variation
// `service_cv` (0 = deterministic, M/D/1; 1 = exponential, M/M/1).
absl::StatusOr<QueueMetrics> MG1(double arrival_rate_per_s,
                                 double mean_service_s, double service_cv);

// Erlang C: probability of waiting in M/M/c with offered load a = lambda/mu.
double ErlangC(int servers, double offered_load);

// Closed loop of N clients with think time Z and response time R:
// X <= N / (Z + R) requests per second.
double ClosedLoopThroughputBound(double clients, double think_s,
                                 double response_s);

}  // namespace perflab::models

#endif  // PERFLAB_MODELS_QUEUES_H_
