// thread-pool (pools chapter): 400 closed-loop clients against a request-thread
// cap (Tomcat's maxThreads, with its accept queue in front), or against
// virtual threads, where the CPU becomes the limit instead.
#include <optional>

#include "absl/strings/str_cat.h"
#include "sim/cpu.h"
#include "sim/load.h"
#include "sim/random.h"
#include "sim/resource.h"
#include "sim/scenarios/internal/common.h"

namespace perflab::sim {
namespace {

struct Model {
  Simulation& sim;
  Resource* pool;  // nullptr: virtual threads, no cap
  Resource* db;    // nullptr: no database pool in the handler
  Time db_hold;
  Time db_timeout;
  Cpu& cpu;
  Dist io;        // the handler's blocking part (I/O, downstream)
  Time cpu_work;  // the handler's CPU part
  Rng& rng;
};

// One request through the handler: a request thread (if capped), the CPU
// part, the blocking part, then the database part if there is a pool.
Task<bool> Handle(const Model& m) {
  if (m.pool != nullptr) co_await m.pool->Acquire();
  co_await m.cpu.Run(m.cpu_work);
  co_await m.sim.Delay(SampleNs(m.io, m.rng));
  bool ok = true;
  if (m.db != nullptr) {
    ok = co_await m.db->Acquire(m.db_timeout);
    if (ok) {
      co_await m.sim.Delay(m.db_hold);
      m.db->Release();
    }
  }
  if (m.pool != nullptr) m.pool->Release();
  co_return ok;
}

absl::StatusOr<core::Document> Run(const Params& p, uint64_t seed) {
  const bool virtual_threads = p.Text("threads") == "virtual";
  const int64_t clients = p.Integer("clients");
  const double handler_ms = p.Number("handler_ms");
  const double cpu_ms = p.Number("cpu_per_request_ms");
  if (cpu_ms > handler_ms) {
    return absl::InvalidArgumentError(absl::StrCat(
        "key 'cpu_per_request_ms' = '", p.Text("cpu_per_request_ms"),
        "': accepted a number in [0, handler_ms = ", p.Text("handler_ms"),
        "]"));
  }
  Simulation sim(BudgetFrom(p));
  const MeterOptions mo = MeterOptionsFrom(p);
  Meter meter(sim, mo);
  Cpu cpu(sim, p.Integer("cores"));
  std::optional<Resource> pool, db;
  if (!virtual_threads)
    pool.emplace(sim, "request threads", p.Integer("threads"));
  if (p.Integer("db_pool") > 0)
    db.emplace(sim, "db connections", p.Integer("db_pool"));
  Rng rng(seed, "handler");
  const double io_ms = handler_ms - cpu_ms;
  const Model m{sim,
                pool ? &*pool : nullptr,
                db ? &*db : nullptr,
                MsToNs(p.Number("db_hold_ms")),
                MsToNs(p.Number("db_timeout_ms")),
                cpu,
                Dist::Lognormal(io_ms * 1e6, p.Number("handler_cv")),
                MsToNs(cpu_ms),
                rng};
  LoadOptions load;
  const std::string& kind = p.Text("load");
  load.kind = kind == "closed"     ? LoadOptions::Kind::kClosed
              : kind == "constant" ? LoadOptions::Kind::kConstant
                                   : LoadOptions::Kind::kPoisson;
  load.clients = clients;
  load.think = MsToNs(p.Number("think_ms"));
  load.stagger = MsToNs(handler_ms);
  load.rate_per_s = p.Number("rate_per_s");
  StartLoad(
      sim, meter, load, [&m] { return Handle(m); }, seed);
  if (absl::Status s = sim.Run(mo.warmup); !s.ok()) return s;
  cpu.ResetStats();
  if (pool) pool->ResetStats();
  if (db) db->ResetStats();
  if (absl::Status s = sim.Run(meter.window_end()); !s.ok()) return s;

  const Summary sum = meter.Summarise();
  const bool closed = load.kind == LoadOptions::Kind::kClosed;
  core::Document doc(
      absl::StrCat("Thread pool: ",
                   closed ? absl::StrCat(clients, " closed-loop clients")
                          : absl::StrCat(p.Text("load"), " arrivals at ",
                                         p.Text("rate_per_s"), " req/s"),
                   ", threads = ", p.Text("threads")));
  AddSummaryFields(doc, meter);
  doc.Set("cpu_cores", "CPU cores used", cpu.CoresUsed(), 2);
  if (pool) {
    const ResourceStats rs = pool->Stats();
    const double ceiling =
        static_cast<double>(p.Integer("threads")) / (handler_ms / 1e3);
    doc.Set("ceiling_per_s", "threads / handler time (req/s)", ceiling, 1);
    doc.Set("pool_utilisation", "thread pool utilisation", rs.utilisation, 3);
    doc.Set("pool_mean_queue", "mean accept-queue length", rs.mean_queue_length,
            1);
  } else if (cpu_ms > 0) {
    const double ceiling =
        static_cast<double>(p.Integer("cores")) / (cpu_ms / 1e3);
    doc.Set("ceiling_per_s", "cores / CPU per request (req/s)", ceiling, 1);
  }
  if (closed) {
    const double think_s = p.Number("think_ms") / 1e3;
    doc.Set(
        "closed_loop_latency_ms", "clients / throughput - think (ms)",
        sum.throughput_per_s > 0
            ? (static_cast<double>(clients) / sum.throughput_per_s - think_s) *
                  1e3
            : 0.0,
        1);
  }
  std::vector<const Resource*> resources;
  if (pool) resources.push_back(&*pool);
  if (db) resources.push_back(&*db);
  if (!resources.empty()) AddResourceTable(doc, resources);
  if (db) {
    doc.Note(
        "With a database pool in the handler the queue moves there: threads "
        "hold their slot while they wait for a connection, and its timeouts "
        "fire.");
  }
  doc.Note(
      virtual_threads
          ? "Virtual threads: no cap, so every client is in the handler and "
            "the CPU (processor sharing over `cores`) sets the throughput."
          : "Capped: throughput = threads / handler time; the rest of the "
            "clients wait in the accept queue (latency = clients / "
            "throughput).");
  return doc;
}

}  // namespace

Scenario ThreadPoolScenario() {
  KeySpec threads = IntKey("threads", "200", 1, 1000000,
                           "request threads (Tomcat maxThreads), or virtual");
  threads.choices = {"virtual"};
  return {
      "thread-pool",
      "closed-loop clients against a request-thread cap or virtual threads",
      {IntKey("clients", "400", 1, 1000000, "closed-loop clients"), threads,
       NumKey("handler_ms", "50", 0, 600000, "handler time per request (ms)",
              true),
       NumKey("handler_cv", "0.25", 0, 10,
              "variation of the handler's blocking part (lognormal cv)"),
       NumKey("cpu_per_request_ms", "2", 0, 600000,
              "CPU time inside the handler (ms)"),
       IntKey("cores", "12", 1, 4096, "CPU cores"),
       ChoiceKey("load", "closed", {"closed", "constant", "poisson"},
                 "closed loop of `clients`, or open arrivals at rate_per_s"),
       NumKey("rate_per_s", "1000", 0, 1e7, "open loop: arrival rate (req/s)",
              true),
       NumKey("think_ms", "0", 0, 3600000, "client think time (ms)"),
       IntKey("db_pool", "0", 0, 100000,
              "database connections needed after the handler (0 = none)"),
       NumKey("db_hold_ms", DefaultText(case_study::kDbHoldMs), 0, 600000,
              "time each request holds one (ms)"),
       NumKey("db_timeout_ms", DefaultText(case_study::kDbTimeoutMs), 0,
              86400000, "wait for a connection (ms)"),
       NumKey("warmup_s", "5", 0, 86400, "discarded warm-up (s)"),
       NumKey("duration_s", "30", 0, 86400, "measured window (s)", true),
       MaxPendingKey()},
      Run};
}

const ScenarioRegistration kThreadPool(ThreadPoolScenario);

}  // namespace perflab::sim
