#include "sim/database.h"

namespace perflab::sim {

Task<bool> Database::Statement(Time cpu_work) {
  // (Not `if (!co_await ...)`: GCC 12 miscompiles that shape here and the
  // coroutine never starts.)
  const bool got = co_await pool_.Acquire(options_.acquire_timeout);
  if (!got) {
    ++stats_.timeouts;
    co_return false;
  }
  // A connection handed over during a pause is taken up after it.
  if (gc_ != nullptr) co_await gc_->Safepoint();
  if (options_.round_trip > 0) {
    if (gc_ != nullptr) {
      co_await gc_->Sleep(options_.round_trip);
    } else {
      co_await sim_->Delay(options_.round_trip);
    }
  }
  co_await cpu_->Run(cpu_work, CpuUse::kDatabase);
  ++stats_.statements;
  pool_.Release();
  co_return true;
}

}  // namespace perflab::sim
