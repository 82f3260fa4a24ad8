// The case study's order service as a simulated model: the request's story
// from the request thread through the cache, the inventory call, the pooled
// database statements and serialisation, on shared application cores with
// stop-the-world GC, driven by a closed or open load generator on its own
// cores. `perflab sim order-service` runs it with --set keys; the capstone
// composer (tools/capstone/) calls RunOrderService directly, once per step,
// loop and repeat. Thread-compatible: each call owns its Simulation, so calls
// may run on different threads at once.
#ifndef PERFLAB_SIM_ORDER_SERVICE_MODEL_H_
#define PERFLAB_SIM_ORDER_SERVICE_MODEL_H_

#include <cstdint>
#include <optional>

#include "absl/status/statusor.h"
#include "models/histogram.h"
#include "sim/cpu.h"
#include "sim/order_service/calibration.h"
#include "sim/steady_state.h"

namespace perflab::sim {

// The N+1 page's follow-up statements: 20 item queries and 60 product
// lookups after the orders query (81 in all; the join does it in one).
inline constexpr int64_t kItemStatements = 80;

// The service's configuration: what the ten steps change, one field each.
struct OrderServiceConfig {
  bool index = false;            // orders(customer_id, created_at) exists
  bool join = false;             // one join instead of N+1 (81 statements)
  bool keep_alive = false;       // inventory client reuses connections
  bool tcp_nodelay = false;      // inventory server disables Nagle
  int64_t db_pool = 4;           // pooled database connections
  bool virtual_threads = false;  // false: a cap of `request_threads`
  int64_t request_threads = 16;  // platform request threads
  bool cache = false;  // page cache (case_study::kCacheEntries, kCacheTtlS)
  double heap_mib = case_study::kHeapMib;  // JVM heap (-Xmx)
  int64_t cores = 8;                       // the application's vCPUs
  // How the page's statements hold a connection: one borrow per statement
  // (false: the case study's repository calls) or one for the whole page
  // (true: the C++ service's repository, capstone --real's composed side).
  bool page_on_one_connection = false;

  bool operator==(const OrderServiceConfig&) const = default;
};

// How the service is driven and measured (the case study's rig).
struct OrderServiceLoad {
  bool open = false;  // false: closed loop of `clients`; true: open at rate
  int64_t clients = case_study::kClosedLoopClients;
  // Open loop; latency from the intended send.
  double rate_per_s = case_study::kOpenLoopRatePerS;
  double warmup_s = 8;       // discarded
  double duration_s = 15;    // measured window (the case study: 15 s closed,
                             // 20 s open)
  int64_t customers = 5000;  // ids drawn as 1 + customers * u^3
  // The cache as a closed loop just before left it (the case study's rig ran
  // its open loop right after the closed one, in the same JVM): this many
  // requests' ids, evenly over the cache_prewarm_s seconds before time 0,
  // each a write on a miss. 0 = an empty cache. Only with the cache on.
  int64_t cache_prewarm_requests = 0;
  double cache_prewarm_s = 0;
  // Whether the result carries the latency histogram (about 300 KiB at 3
  // digits over a day); a caller that reads only the summary leaves it out.
  bool latency_histogram = true;
};

// `open` runs right after `closed` in the same service (the rig's order):
// it starts on the cache the closed loop's requests left, RPS x its warm-up
// and window, spread over that time before `open`'s time 0.
void StartOnClosedLoopsCache(const OrderServiceLoad& closed, double closed_rps,
                             OrderServiceLoad& open);

// CPU of the application by category, in cores (averaged over the window).
struct CpuShare {
  double database = 0, http = 0, serialisation = 0, gc = 0, other = 0;
};

struct OrderServiceResult {
  double rps = 0;
  double avg_ms = 0, p95_ms = 0, p99_ms = 0;
  double cpu_cores = 0;  // the application's cores used (all categories)
  double queries_per_request = 0;
  double cache_hit_ratio = 0;  // 0 without the cache
  CpuShare cpu;
  double generator_utilisation = 0;  // the load generator's cores, 0..1
  int64_t gc_pauses = 0;
  double gc_pause_total_ms = 0;
  int64_t timeouts = 0;  // pool acquisitions that timed out
  // The caps in series (the case study's chapter seven), over the window:
  // each cap's capacity, mean units held (time-weighted) and mean wait per
  // completed request. Which one is full says which cap is the limit.
  int64_t app_cores = 0;  // whole cores of work the model ran on
  int64_t threads = 0;    // request threads (0: virtual threads, no cap)
  double threads_busy = 0, thread_wait_ms = 0;  // Tomcat's accept queue
  double pool_busy = 0, pool_wait_ms = 0;  // every statement's wait, summed
  // The kernel's view of the application's CPU, per completed request (as
  // /proc/PID/task/*/schedstat counts it): CPU time, time runnable but
  // waiting for a core, and the times a thread was put on a core. The last
  // two are 0 under processor sharing, which has no run queue.
  double cpu_us_per_request = 0;
  double run_queue_wait_us_per_request = 0;
  double slices_per_request = 0;
  double scheduling_cores = 0;  // cores spent switching and refilling
  int64_t events = 0;           // engine events executed, warm-up included
  SteadyVerdict steady;         // the shared steady-state check over the window
  std::optional<models::Histogram> latency;  // measured latencies (ns)
};

// Whether a run with `config` reads the calibration field `member` at all
// (a scan cost with the index on, the stall without keep-alive, ...). A
// field it does not read cannot change the result: the composer's
// sensitivity skips it (a test checks the claim by running both).
bool ReadsField(const OrderServiceConfig& config, double Calibration::*member);

// Whether runs with calibrations `a` and `b` must give identical results
// for `config` (same seed): every field it reads is equal, the two core
// counts compared as the whole cores the model rounds them to.
bool SameRun(const Calibration& a, const Calibration& b,
             const OrderServiceConfig& config);

// The application CPU's discipline and costs the calibration gives:
// processor sharing when sched_quantum_us is 0, else time-sliced with its
// switch, its refill curve (0 at an empty working set, then the four
// measured points) and handler_working_set_kib for every job.
CpuScheduling SchedulingOf(const Calibration& calibration);

absl::StatusOr<OrderServiceResult> RunOrderService(
    const Calibration& calibration, const OrderServiceConfig& config,
    const OrderServiceLoad& load, uint64_t seed);

}  // namespace perflab::sim

#endif  // PERFLAB_SIM_ORDER_SERVICE_MODEL_H_
