#include "sim/mmc.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <optional>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "models/histogram.h"
#include "sim/internal/ring_queue.h"
#include "sim/random.h"
#include "sim/resource.h"

namespace perflab::sim {
namespace {

// Batch means: successive waits are strongly correlated near saturation, so
// the spread of a few long batch averages, not of single waits, measures the
// error of the mean. 20 batches keep each batch long at default sizes.
constexpr int kBatches = 20;
// Student's t quantile for 95 % two-sided with kBatches - 1 = 19 degrees of
// freedom (a table value, not computed: no std:: distribution may be used).
constexpr double kStudentT95Df19 = 2.093;

// A customer in the system: when it arrived, and its place in arrival order.
struct Customer {
  Time arrived;
  int64_t index;
};

// Customers are records and the c servers processes, as in Cimba's own
// benchmark: a customer as a process of its own costs a frame, a spawn and
// a hand-over event, about a quarter of the instructions of a run. The counts
// are those of a Resource of c units that each customer would acquire (busy
// servers, waiting customers), changed at the same instants.
struct Model {
  Simulation sim;
  int64_t servers;
  Rng arrivals, service;
  Dist interarrival, service_time;
  TimeWeighted busy, waiting;
  internal::RingQueue<Customer> queue;        // waiting, in arrival order
  std::vector<std::coroutine_handle<>> idle;  // servers waiting for one
  Customer handed{};  // the arrival an idle or new server serves first
  int64_t total = 0, warmup = 0, done = 0, measured = 0, waited = 0;
  int64_t departed = 0;  // departures of any customer since t0
  // The batch BatchOf found last and its measured indices [start, end).
  int64_t batch = 0, batch_start = 0, batch_end = 0;
  bool started = false;  // t0 has been set
  __int128 wait_sum = 0, response_sum = 0;
  std::array<__int128, kBatches> batch_wait_sum{};
  Time t0 = 0, t_end = 0;
  std::optional<models::Histogram> hist;
  int64_t max_pending;
  absl::Status budget;  // a breach by waiting customers (see Arrive)

  Model(const MmcOptions& o, Dist ia, Dist st)
      : sim(o.budget),
        servers(o.servers),
        arrivals(o.seed, "arrivals"),
        service(o.seed, "service"),
        interarrival(ia),
        service_time(st),
        max_pending(o.budget.max_pending) {}
};

// floor(i kBatches / n) for the measured customer i of n, without a
// division while i stays in the last batch found: batch b holds the i with
// b n <= kBatches i < (b + 1) n, that is ceil(b n / kBatches) <= i <
// ceil((b + 1) n / kBatches). A 64-bit division per customer costs about as
// much as the rest of its bookkeeping.
int64_t BatchOf(Model& m, int64_t i) {
  if (i >= m.batch_start && i < m.batch_end) [[likely]] {
    return m.batch;
  }
  const int64_t n = m.total - m.warmup;
  m.batch = i * kBatches / n;
  m.batch_start = (m.batch * n + kBatches - 1) / kBatches;
  m.batch_end = ((m.batch + 1) * n + kBatches - 1) / kBatches;
  return m.batch;
}

// The customer's figures once its service ends; the last one stops the run.
void Depart(Model& m, const Customer& c, Time wait) {
  m.departed += m.started;
  if (c.index >= m.warmup) {
    ++m.measured;
    m.wait_sum += wait;
    m.batch_wait_sum[static_cast<size_t>(BatchOf(m, c.index - m.warmup))] +=
        wait;
    m.waited += wait > 0;
    const Time response = m.sim.now() - c.arrived;
    m.response_sum += response;
    if (m.hist) m.hist->Record(response);
  }
  if (++m.done == m.total) {
    m.t_end = m.sim.now();
    m.sim.Stop();
  }
}

// co_await NextArrival{&m}: an idle server's wait for the Source's hand.
struct NextArrival {
  Model* m;
  bool await_ready() const noexcept { return false; }
  void await_suspend(std::coroutine_handle<> h) const { m->idle.push_back(h); }
  Customer await_resume() const noexcept { return m->handed; }
};

// Serves the customer it was started for, then the queue's head while there
// is one, else waits idle for the next arrival.
Process Server(Model& m) {
  Customer c = m.handed;
  while (true) {
    const Time wait = m.sim.now() - c.arrived;
    co_await m.sim.Delay(SampleNs(m.service_time, m.service));
    Depart(m, c, wait);
    if (!m.queue.empty()) {
      c = m.queue.front();
      m.queue.pop_front();
      m.waiting.Set(m.sim.now(), static_cast<int64_t>(m.queue.size()));
    } else {
      m.busy.Add(m.sim.now(), -1);
      c = co_await NextArrival{&m};
    }
  }
}

// A customer arrives: served at once by a free server if none is queued
// (an idle one, or a new one while fewer than c were needed), else queued.
// Waiting customers count against max_pending as the processes they would
// be, with the engine's pending events and live processes.
void Arrive(Model& m, const Customer& c) {
  const Time now = m.sim.now();
  if (m.busy.value() < m.servers && m.queue.empty()) {
    m.busy.Add(now, 1);
    m.handed = c;
    if (m.idle.empty()) {
      m.sim.Spawn(Server(m));
    } else {
      const std::coroutine_handle<> server = m.idle.back();
      m.idle.pop_back();
      m.sim.ResumeNested(server);
    }
    return;
  }
  m.queue.push_back(c);
  const auto waiting = static_cast<int64_t>(m.queue.size());
  m.waiting.Set(now, waiting);
  const auto pending = static_cast<int64_t>(m.sim.pending_events());
  if (waiting + pending + m.sim.live_processes() > m.max_pending) {
    m.budget = absl::ResourceExhaustedError(
        absl::StrCat("memory budget exceeded: ", waiting,
                     " waiting customers + ", pending, " pending events + ",
                     m.sim.live_processes(), " live processes > max_pending ",
                     m.max_pending, " at t = ", ToSec(now), " s"));
    m.sim.Stop();
  }
}

Process Source(Model& m) {
  for (int64_t i = 0; i < m.total; ++i) {
    co_await m.sim.Delay(SampleNs(m.interarrival, m.arrivals));
    if (i == m.warmup) {
      m.busy.Reset(m.sim.now());
      m.waiting.Reset(m.sim.now());
      m.t0 = m.sim.now();
      m.started = true;
    }
    Arrive(m, {m.sim.now(), i});
  }
}

// The run's expected simulated span, every customer (warm-up too) over the
// rate they leave at, must stay far inside the clock's int64 nanoseconds
// (9.2e9 s): past it the clock wraps and the waits, their interval and the
// throughput become nonsense. 1e8 s leaves a factor of 92 for the spread of
// the draws.
constexpr double kMaxSpanS = 1e8;

absl::Status CheckSpan(const MmcOptions& o) {
  const int64_t warmup =
      o.warmup_customers >= 0 ? o.warmup_customers : o.customers / 10;
  const double rate =
      std::min(o.arrival_rate_per_s,
               static_cast<double>(o.servers) * o.service_rate_per_s);
  const double span_s = static_cast<double>(warmup + o.customers) / rate;
  if (span_s <= kMaxSpanS) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      warmup + o.customers,
      " customers (warm-up included) at min(arrival_rate_per_s, servers x "
      "service_rate_per_s) = ",
      rate, "/s span ", span_s, " s of simulated time; accepted: at most ",
      kMaxSpanS, " s (raise the rates or lower customers)"));
}

}  // namespace

absl::StatusOr<MmcResult> RunMmc(const MmcOptions& o) {
  if (o.servers < 1 || !(o.arrival_rate_per_s > 0) ||
      !(o.service_rate_per_s > 0) || o.customers < 1 || !(o.service_cv >= 0)) {
    return absl::InvalidArgumentError(
        "mmc: servers >= 1, rates > 0, customers >= 1 and service_cv >= 0 "
        "required");
  }
  if (absl::Status s = CheckSpan(o); !s.ok()) return s;
  const double mean_service_ns = 1e9 / o.service_rate_per_s;
  Dist st = Dist::Exp(mean_service_ns);
  if (o.service == MmcOptions::Service::kDet)
    st = Dist::Constant(mean_service_ns);
  if (o.service == MmcOptions::Service::kLognormal) {
    st = Dist::Lognormal(mean_service_ns, o.service_cv);
  }
  auto m =
      std::make_unique<Model>(o, Dist::Exp(1e9 / o.arrival_rate_per_s), st);
  m->warmup = o.warmup_customers >= 0 ? o.warmup_customers : o.customers / 10;
  m->total = m->warmup + o.customers;
  if (o.percentiles) {
    models::HistogramOptions ho;
    ho.highest_trackable = int64_t{1} << 62;
    m->hist = *models::Histogram::Create(ho);
  }
  m->sim.Spawn(Source(*m));
  if (absl::Status s = m->sim.Run(kForever); !s.ok()) return s;
  if (!m->budget.ok()) return m->budget;

  MmcResult r;
  r.rho = o.arrival_rate_per_s /
          (static_cast<double>(o.servers) * o.service_rate_per_s);
  r.unstable = r.rho >= 1;
  r.customers = m->measured;
  r.events = m->sim.events_executed();
  const double n = static_cast<double>(m->measured);
  r.mean_wait_s = static_cast<double>(m->wait_sum) / n / kSec;
  r.mean_response_s = static_cast<double>(m->response_sum) / n / kSec;
  r.p_wait = static_cast<double>(m->waited) / n;
  const Time end = m->sim.now();
  r.utilisation = m->busy.Mean(end) / static_cast<double>(o.servers);
  r.mean_queue_length = m->waiting.Mean(end);
  // Departures over the window: when rho >= 1 this is the service capacity,
  // not the (higher) arrival rate.
  r.throughput_per_s =
      static_cast<double>(m->departed) / ToSec(m->t_end - m->t0);
  if (m->hist) r.p99_response_s = ToSec(m->hist->Percentile(99));
  if (o.customers >= kBatches) {
    // Batch sizes differ by at most one customer; each mean uses its own.
    double sum = 0, sum_sq = 0;
    for (int b = 0; b < kBatches; ++b) {
      const int64_t first = (o.customers * b + kBatches - 1) / kBatches;
      const int64_t last = (o.customers * (b + 1) + kBatches - 1) / kBatches;
      const double mean = static_cast<double>(m->batch_wait_sum[b]) /
                          static_cast<double>(last - first) / kSec;
      sum += mean;
      sum_sq += mean * mean;
    }
    const double mean = sum / kBatches;
    const double var =
        std::max(0.0, (sum_sq - kBatches * mean * mean) / (kBatches - 1));
    r.mean_wait_ci95_s = kStudentT95Df19 * std::sqrt(var / kBatches);
  }
  return r;
}

}  // namespace perflab::sim
