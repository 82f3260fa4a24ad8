// Measurement for simulated runs: a latency recorder (exact nearest-rank
// percentiles while the sample count is small enough to keep, the models
// histogram beyond that) and a Meter that applies the warm-up and measured
// window, counts errors, samples the in-flight count L on a fixed period, and
// hands what the steady-state check needs (sim/steady_state.h) to the caller.
// Single-threaded, like the Simulation it belongs to.
#ifndef PERFLAB_SIM_MEASURE_H_
#define PERFLAB_SIM_MEASURE_H_

#include <cstdint>
#include <vector>

#include "models/histogram.h"
#include "sim/engine.h"
#include "sim/resource.h"
#include "sim/steady_state.h"

namespace perflab::sim {

class LatencyRecorder {
 public:
  // Keeps up to `exact_limit` raw samples; past that, percentiles come from
  // the histogram (3 significant digits).
  explicit LatencyRecorder(size_t exact_limit = 2'000'000);

  void Record(Time latency);
  int64_t Count() const { return count_; }
  bool Exact() const { return count_ <= static_cast<int64_t>(exact_limit_); }
  double MeanMs() const;
  double PercentileMs(double p) const;  // nearest rank, p in (0, 100]
  double MaxMs() const { return ToMs(max_); }
  const models::Histogram& histogram() const { return hist_; }
  // The raw samples, in recording order until a percentile reorders them;
  // empty once past the exact limit.
  const std::vector<Time>& samples() const { return samples_; }

 private:
  size_t exact_limit_;
  mutable std::vector<Time> samples_;
  // Ranks (0-based, ascending) whose sample is in its sorted place, with
  // none greater before it and none smaller after (std::nth_element): a
  // percentile selects between its two nearest, where a sort of all would
  // cost a log factor more for the four a summary asks.
  mutable std::vector<size_t> placed_;
  models::Histogram hist_;
  int64_t count_ = 0;
  __int128 sum_ = 0;
  Time max_ = 0;
};

struct MeterOptions {
  Time warmup = 0;               // completions before this are discarded
  Time window = 60 * kSec;       // measured window after the warm-up
  Time sample_period = 5 * kMs;  // in-flight L is sampled this often
  size_t exact_limit = 2'000'000;
};

struct Summary {
  int64_t completed = 0;  // successful completions in the window
  int64_t errors = 0;     // failures (timeouts, refused) in the window
  double throughput_per_s = 0;
  double mean_ms = 0, p50_ms = 0, p95_ms = 0, p99_ms = 0, p999_ms = 0,
         max_ms = 0;
  double arrival_rate_per_s = 0;  // requests started in the window
  double l_sampled = 0;           // mean of the periodic in-flight samples
  double l_little = 0;  // arrival rate x mean time in system (all outcomes)
};

class Meter {
 public:
  Meter(Simulation& sim, MeterOptions options);

  Time window_start() const { return options_.warmup; }
  Time window_end() const { return options_.warmup + options_.window; }

  // A request entered the system (in-flight + 1).
  void Begin();
  // A request left the system; `start` is the time its latency counts from.
  // `ok` false counts an error (its time still counts toward W for Little).
  void End(Time start, bool ok = true);

  Summary Summarise() const;
  // The window's figures for CheckSteady (warm-up, window, W, L, lambda W and
  // the two halves); the caller adds offered load and capacity if it knows.
  SteadyInputs SteadyWindow() const;
  const LatencyRecorder& latencies() const { return latencies_; }

 private:
  static void OnSample(void* ctx, uint64_t);

  Simulation* sim_;
  MeterOptions options_;
  LatencyRecorder latencies_;
  // A sample that coincides with arrivals or departures takes the mean of
  // the count just before and just after that instant, so what it sees does
  // not depend on the order of same-time events (or on a sampler that is in
  // phase with a constant arrival rate). It is settled once time moves on.
  void ChangeInFlight(int64_t delta);
  // The in-flight count's area over the window up to `now` (count x ns).
  __int128 AreaUntil(Time now) const;
  void SettleSample() const;
  int64_t in_flight_ = 0;
  int64_t in_flight_before_ =
      0;  // value before the first change at changed_at_
  Time changed_at_ = -1;
  mutable Time pending_at_ = -1;  // time of a sample not yet settled
  mutable int64_t pending_left_ = 0;
  int64_t started_ = 0;
  int64_t errors_ = 0;
  int64_t left_ = 0;  // completions + errors in the window
  __int128 time_in_system_ = 0;
  int64_t samples_ = 0;
  __int128 area_ = 0;  // in-flight x ns inside the window, up to area_at_
  Time area_at_ = 0;
  // Completions per half of the window, with latency sums for the mean and
  // its standard error (seconds).
  int64_t half_n_[2] = {0, 0};
  double half_sum_s_[2] = {0, 0};
  double half_sum2_s_[2] = {0, 0};
  mutable __int128 sample_sum2_ = 0;  // twice the sum of the samples
};

}  // namespace perflab::sim

#endif  // PERFLAB_SIM_MEASURE_H_
