// `perflab orders-service` as a child process, the service under test of
// `capstone --real`: started with one step's flags on a free loopback port,
// asked where it listens, measured for CPU, and stopped (SIGTERM, SIGKILL
// after 10 s) and reaped when its owner goes. Not safe to share between
// threads; distinct processes are independent.
#ifndef PERFLAB_BENCH_ORDER_SERVICE_ORDERS_SERVICE_PROCESS_H_
#define PERFLAB_BENCH_ORDER_SERVICE_ORDERS_SERVICE_PROCESS_H_

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "core/subprocess.h"

namespace perflab::orders {

class OrdersServiceProcess {
 public:
  // Runs `binary orders-service --port 0 --max-seconds 3600 <flags>` on
  // `cpus` (empty: the calling thread's), its stdout discarded, and waits up
  // to 60 s (a cold start) for the whole "listening on
  // http://127.0.0.1:PORT/" line on its stderr, whatever lines come before
  // it. `db` is the database behind it: "sqlite" (passes nothing) or
  // "postgres" (passes --db postgres; the service then starts and loads its
  // own cluster first, so the wait is 180 s). A bad `db` or a binary that
  // cannot be started is InvalidArgument naming it; a service that exits or
  // never says where it listens is Internal with what it printed.
  static absl::StatusOr<OrdersServiceProcess> Start(
      const std::string& binary, const std::vector<std::string>& flags,
      std::vector<int> cpus = {}, const std::string& db = "sqlite");

  uint16_t port() const { return port_; }
  pid_t pid() const { return child_.pid(); }
  // User + system CPU seconds the service has used so far (its threads
  // included), from /proc; 0 once it is gone.
  double CpuSeconds() const;
  // User + system CPU seconds of every process the service started, living
  // or reaped by its parent: with --db postgres, the cluster's postmaster
  // and its backends (the service starts no other process). 0 without any.
  double DatabaseCpuSeconds() const;

 private:
  OrdersServiceProcess(core::Subprocess child, uint16_t port);

  core::Subprocess child_;
  uint16_t port_ = 0;
};

// The fields of one /proc/PID/stat line read here.
struct ProcStat {
  pid_t pid = 0;
  pid_t ppid = 0;
  // utime + stime + cutime + cstime, in clock ticks: its own CPU and that of
  // the children it has reaped (a backend that ended stays counted).
  int64_t ticks = 0;
};
// Parses a /proc/PID/stat line ("pid (comm) state ppid ...", comm may hold
// spaces and parentheses); nullopt when it is not one.
std::optional<ProcStat> ParseProcStat(std::string_view line);
// The ticks of every descendant of `root` in `procs` (not root's own).
int64_t DescendantTicks(pid_t root, const std::vector<ProcStat>& procs);

}  // namespace perflab::orders

#endif  // PERFLAB_BENCH_ORDER_SERVICE_ORDERS_SERVICE_PROCESS_H_
