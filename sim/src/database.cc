#include "sim/database.h"

namespace perflab::sim {

Task<bool> Database::StatementTask(Time cpu_work, Time hold, uint64_t thread) {
  // (Not `if (!co_await ...)`: GCC 12 miscompiles that shape here and the
  // coroutine never starts.)
  const bool got = co_await pool_.Acquire(options_.acquire_timeout);
  if (!got) {
    ++stats_.timeouts;
    co_return false;
  }
  co_await Safepoint();
  if (options_.round_trip > 0) co_await Blocked(options_.round_trip);
  co_await cpu_->Run(cpu_work, CpuUse::kDatabase, Cpu::kDefaultWorkingSet,
                     thread);
  if (hold > 0) co_await Blocked(hold);
  ++stats_.statements;
  pool_.Release();
  co_return true;
}

Task<bool> Database::Statements(std::vector<Time> cpu_works, Time hold,
                                uint64_t thread) {
  const bool got = co_await pool_.Acquire(options_.acquire_timeout);
  if (!got) {
    ++stats_.timeouts;
    co_return false;
  }
  co_await Safepoint();
  for (const Time work : cpu_works) {
    if (options_.round_trip > 0) co_await Blocked(options_.round_trip);
    co_await cpu_->Run(work, CpuUse::kDatabase, Cpu::kDefaultWorkingSet,
                       thread);
    ++stats_.statements;
  }
  if (hold > 0) co_await Blocked(hold);
  pool_.Release();
  co_return true;
}

}  // namespace perflab::sim
