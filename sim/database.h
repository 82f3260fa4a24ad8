// A database reached through a connection pool (Hikari in front of an
// embedded H2 or a networked server): each statement takes a pooled
// connection (waiting up to the pool's timeout), pays the network round trip
// if the database is across a network, runs its CPU on the application's
// cores while holding the connection (an embedded database executes inside
// the application's process), and gives the connection back. Counts
// statements and timeouts; waits respect a Gc's stop-the-world pauses.
// Single-threaded, like the Simulation it belongs to.
#ifndef PERFLAB_SIM_DATABASE_H_
#define PERFLAB_SIM_DATABASE_H_

#include <cstdint>
#include <vector>

#include "core/case_study.h"
#include "sim/cpu.h"
#include "sim/engine.h"
#include "sim/gc.h"
#include "sim/pooled_client.h"
#include "sim/task.h"

namespace perflab::sim {

struct DatabaseOptions {
  int64_t pool = 4;  // pooled connections
  // Longest wait for a connection (Hikari's connectionTimeout).
  Time acquire_timeout = static_cast<Time>(case_study::kDbTimeoutMs * kMs);
  Time round_trip = 0;  // network per statement (0: an embedded database)
};

struct DatabaseStats {
  int64_t statements = 0;  // statements run to completion
  int64_t timeouts = 0;    // statements that got no connection in time
};

class Database : public PooledClient<DatabaseOptions, DatabaseStats> {
 public:
  // `cpu` runs the statements' CPU; `gc` (optional) holds waits that end
  // during a pause until it is over.
  Database(Simulation& sim, Cpu& cpu, DatabaseOptions options, Gc* gc = nullptr)
      : PooledClient(sim, options, "db connections", options.pool, &cpu, gc) {}

  // One statement of `cpu_work` ns of CPU and `hold` ns more of holding its
  // connection without CPU (waits inside the database); false if no
  // connection came in time. The CPU is a job of `thread` (Cpu::Run).
  Task<bool> Statement(Time cpu_work, Time hold = 0, uint64_t thread = 0);
  // Statements of `cpu_works` ns each on one connection borrowed once, held
  // `hold` ns more after the last; false if no connection came in time.
  Task<bool> Statements(std::vector<Time> cpu_works, Time hold = 0,
                        uint64_t thread = 0);
};

}  // namespace perflab::sim

#endif  // PERFLAB_SIM_DATABASE_H_
