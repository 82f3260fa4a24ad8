#include "sim/measure.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "models/percentiles.h"

namespace perflab::sim {
namespace {

models::Histogram MakeHistogram() {
  models::HistogramOptions o;
  o.lowest_discernible = 1;
  o.highest_trackable = int64_t{24} * 3600 * kSec;
  o.significant_digits = 3;
  return *models::Histogram::Create(o);
}

}  // namespace

LatencyRecorder::LatencyRecorder(size_t exact_limit)
    : exact_limit_(exact_limit), hist_(MakeHistogram()) {}

void LatencyRecorder::Record(Time latency) {
  if (latency < 0) latency = 0;
  ++count_;
  sum_ += latency;
  max_ = std::max(max_, latency);
  hist_.Record(latency);
  if (samples_.size() < exact_limit_) {
    samples_.push_back(latency);
    placed_.clear();
  } else if (!samples_.empty()) {
    samples_.clear();  // too many to keep: the histogram answers from now on
    samples_.shrink_to_fit();
    placed_.clear();
  }
}

double LatencyRecorder::MeanMs() const {
  if (count_ == 0) return 0;
  return static_cast<double>(sum_) / static_cast<double>(count_) / kMs;
}

double LatencyRecorder::PercentileMs(double p) const {
  if (count_ == 0) return 0;
  if (!Exact()) return ToMs(hist_.Percentile(p));
  const auto k = static_cast<size_t>(models::NearestRank(p, count_) - 1);
  const auto next = std::lower_bound(placed_.begin(), placed_.end(), k);
  if (next == placed_.end() || *next != k) {
    // Between the nearest placed ranks lie exactly the samples of the ranks
    // between them, in some order.
    const size_t from = next == placed_.begin() ? 0 : *(next - 1) + 1;
    const size_t to = next == placed_.end() ? samples_.size() : *next;
    const auto at = [&](size_t i) {
      return samples_.begin() + static_cast<std::ptrdiff_t>(i);
    };
    std::nth_element(at(from), at(k), at(to));
    placed_.insert(next, k);
  }
  return ToMs(samples_[k]);
}

Meter::Meter(Simulation& sim, MeterOptions options)
    : sim_(&sim), options_(options), latencies_(options.exact_limit) {
  if (options_.sample_period > 0) {
    sim_->Schedule(window_start(), &OnSample, this);
  }
}

void Meter::OnSample(void* ctx, uint64_t) {
  auto* m = static_cast<Meter*>(ctx);
  const Time now = m->sim_->now();
  if (now >= m->window_end()) return;
  m->SettleSample();
  ++m->samples_;
  m->pending_at_ = now;
  m->pending_left_ =
      now == m->changed_at_ ? m->in_flight_before_ : m->in_flight_;
  m->sim_->Schedule(now + m->options_.sample_period, &OnSample, m);
}

void Meter::SettleSample() const {
  if (pending_at_ < 0) return;
  sample_sum2_ += pending_left_ + in_flight_;  // left and right limits
  pending_at_ = -1;
}

__int128 Meter::AreaUntil(Time now) const {
  const Time from = std::max(area_at_, window_start());
  const Time to = std::min(now, window_end());
  return area_ +
         (to > from ? static_cast<__int128>(in_flight_) * (to - from) : 0);
}

void Meter::ChangeInFlight(int64_t delta) {
  const Time now = sim_->now();
  area_ = AreaUntil(now);
  area_at_ = now;
  if (pending_at_ >= 0 && now > pending_at_) SettleSample();
  if (now != changed_at_) {
    in_flight_before_ = in_flight_;
    changed_at_ = now;
  }
  in_flight_ += delta;
}

void Meter::Begin() {
  ChangeInFlight(1);
  const Time now = sim_->now();
  if (now >= window_start() && now < window_end()) ++started_;
}

void Meter::End(Time start, bool ok) {
  ChangeInFlight(-1);
  const Time now = sim_->now();
  if (now < window_start() || now >= window_end()) return;
  ++left_;
  time_in_system_ += now - start;
  if (ok) {
    latencies_.Record(now - start);
    const int half = now - window_start() < options_.window / 2 ? 0 : 1;
    const double v = ToSec(now - start);
    ++half_n_[half];
    half_sum_s_[half] += v;
    half_sum2_s_[half] += v * v;
  } else {
    ++errors_;
  }
}

Summary Meter::Summarise() const {
  Summary s;
  const double window_s = ToSec(options_.window);
  s.completed = latencies_.Count();
  s.errors = errors_;
  s.throughput_per_s = static_cast<double>(s.completed) / window_s;
  s.mean_ms = latencies_.MeanMs();
  s.p50_ms = latencies_.PercentileMs(50);
  s.p95_ms = latencies_.PercentileMs(95);
  s.p99_ms = latencies_.PercentileMs(99);
  s.p999_ms = latencies_.PercentileMs(99.9);
  s.max_ms = latencies_.MaxMs();
  s.arrival_rate_per_s = static_cast<double>(started_) / window_s;
  SettleSample();
  s.l_sampled =
      samples_ > 0 ? static_cast<double>(sample_sum2_) / 2 / samples_ : 0;
  if (left_ > 0) {
    const double w_s = static_cast<double>(time_in_system_) / left_ / kSec;
    s.l_little = static_cast<double>(left_) / window_s * w_s;
  }
  return s;
}

SteadyInputs Meter::SteadyWindow() const {
  const Summary s = Summarise();
  SteadyInputs in;
  in.warmup_s = ToSec(options_.warmup);
  in.window_s = ToSec(options_.window);
  if (left_ > 0) {
    in.mean_response_s = static_cast<double>(time_in_system_) / left_ / kSec;
  }
  const Time measured = std::min(sim_->now(), window_end()) - window_start();
  if (measured > 0) {
    in.l_mean = static_cast<double>(AreaUntil(sim_->now())) /
                static_cast<double>(measured);
  }
  in.l_little = s.l_little;
  for (int h = 0; h < 2; ++h) {
    const auto n = static_cast<double>(half_n_[h]);
    in.half_completed[h] = n;
    if (half_n_[h] == 0) continue;
    in.half_mean_s[h] = half_sum_s_[h] / n;
    if (half_n_[h] > 1) {
      const double var = std::max(
          0.0, (half_sum2_s_[h] - n * in.half_mean_s[h] * in.half_mean_s[h]) /
                   (n - 1));
      in.half_se_s[h] = std::sqrt(var / n);
    }
  }
  return in;
}

}  // namespace perflab::sim
