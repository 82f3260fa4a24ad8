// The plain multi-server queue (M/M/c, M/D/c, M/G/c with lognormal service):
// Poisson arrivals, c identical servers, one FIFO queue. It is the engine's
// reference model: tests hold it against Erlang C and Pollaczek-Khinchine,
// and bench_sim times it. Thread-compatible (each call owns its Simulation).
#ifndef PERFLAB_SIM_MMC_H_
#define PERFLAB_SIM_MMC_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "sim/engine.h"

namespace perflab::sim {

struct MmcOptions {
  int64_t servers = 1;              // c
  double arrival_rate_per_s = 0.9;  // lambda (Poisson)
  double service_rate_per_s = 1.0;  // mu per server: mean service 1/mu
  enum class Service { kExp, kDet, kLognormal } service = Service::kExp;
  double service_cv = 1.0;        // lognormal only: sd / mean of service
  int64_t customers = 1'000'000;  // measured customers
  int64_t warmup_customers = -1;  // discarded first; -1 = customers / 10
  bool percentiles = true;        // keep a response-time histogram (p99)
  uint64_t seed = 42;
  Budget budget;
};

struct MmcResult {
  int64_t customers = 0;         // measured (after warm-up)
  double mean_wait_s = 0;        // Wq
  double mean_response_s = 0;    // W
  double p_wait = 0;             // share of customers that queued
  double utilisation = 0;        // mean busy servers / c over the window
  double mean_queue_length = 0;  // time-weighted waiters
  double throughput_per_s = 0;
  double p99_response_s = 0;  // 0 unless options.percentiles
  // Half-width of a 95 % confidence interval of mean_wait_s by batch means
  // (20 consecutive batches of measured customers): the sampling error a
  // difference from Erlang C should be read against. 0 if too few customers.
  double mean_wait_ci95_s = 0;
  double rho = 0;         // offered lambda / (c mu)
  bool unstable = false;  // rho >= 1: no steady state exists
  int64_t events = 0;     // engine events executed
};

absl::StatusOr<MmcResult> RunMmc(const MmcOptions& options);

}  // namespace perflab::sim

#endif  // PERFLAB_SIM_MMC_H_
