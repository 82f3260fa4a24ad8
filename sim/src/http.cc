#include "sim/http.h"

namespace perflab::sim {

Task<bool> HttpClient::Call(Time server_time, uint64_t thread) {
  ++stats_.calls;
  // The result is named before it is tested: GCC 12 miscompiles
  // `if (!co_await ...)` in some coroutines (see sim/src/database.cc).
  const bool got = co_await pool_.Acquire(options_.acquire_timeout);
  if (!got) {
    ++stats_.timeouts;
    co_return false;
  }
  co_await Safepoint();
  Time t = options_.call + server_time;
  bool reused = false;
  if (options_.keep_alive && idle_ > 0) {
    --idle_;
    reused = true;
  } else {
    ++stats_.connects;
    t += options_.connect + (options_.tls ? options_.tls_handshake : 0);
  }
  if (options_.tls) t += options_.tls_per_call;
  if (reused && options_.two_writes && !options_.tcp_nodelay) {
    ++stats_.stalls;
    t += options_.delayed_ack;
  }
  if (cpu_ != nullptr) {
    co_await cpu_->Run(options_.call_cpu + (reused ? 0 : options_.connect_cpu),
                       CpuUse::kHttp, Cpu::kDefaultWorkingSet, thread);
  }
  co_await Blocked(t);
  if (options_.keep_alive) ++idle_;
  pool_.Release();
  co_return true;
}

}  // namespace perflab::sim
