// PooledClient: what the simulated clients of a connection pool share (the
// Database's statements, the HttpClient's calls), so each one is only its
// own costs. The Simulation, an optional Cpu for the client's CPU and Gc
// whose pauses hold its waits, its options, the pool of connections (a
// Resource), its counts, and a ResetStats that restarts both counts and
// pool after a warm-up. Single-threaded, like the Simulation it belongs to.
#ifndef PERFLAB_SIM_POOLED_CLIENT_H_
#define PERFLAB_SIM_POOLED_CLIENT_H_

#include <coroutine>
#include <cstdint>
#include <string>
#include <utility>

#include "sim/cpu.h"
#include "sim/engine.h"
#include "sim/gc.h"
#include "sim/resource.h"

namespace perflab::sim {

// Options is the client's option struct, Stats a struct of counts whose
// default value is all zero.
template <typename Options, typename Stats>
class PooledClient {
 public:
  const Stats& stats() const { return stats_; }
  const Resource& pool() const { return pool_; }
  // Restarts the counts and the pool's statistics (after a warm-up).
  void ResetStats() {
    stats_ = {};
    pool_.ResetStats();
  }

 protected:
  PooledClient(Simulation& sim, Options options, std::string pool_name,
               int64_t connections, Cpu* cpu, Gc* gc)
      : sim_(&sim),
        cpu_(cpu),
        gc_(gc),
        options_(std::move(options)),
        pool_(sim, std::move(pool_name), connections) {}

  // co_await Safepoint(): with a Gc, waits out a pause in progress (a
  // connection handed over during a pause is taken up after it); without
  // one, does not suspend.
  struct SafepointAwaiter {
    Gc* gc;
    bool await_ready() const noexcept {
      return gc == nullptr || gc->Safepoint().await_ready();
    }
    void await_suspend(std::coroutine_handle<> h) const {
      gc->Safepoint().await_suspend(h);
    }
    void await_resume() const noexcept {}
  };
  SafepointAwaiter Safepoint() const { return {gc_}; }
  // Whether co_await Safepoint() would go on at once (and then, as that
  // would, counts its resumption as an event).
  bool SafepointReady() const { return Safepoint().await_ready(); }

  // co_await Blocked(d): a blocking wait of d (the network); with a Gc, one
  // that ends during a pause resumes only when the pause is over.
  struct BlockedAwaiter {
    Simulation* sim;
    Gc* gc;
    Time delay;
    bool await_ready() const noexcept { return false; }
    void await_suspend(std::coroutine_handle<> h) const {
      if (gc != nullptr) {
        gc->Sleep(delay).await_suspend(h);
      } else {
        sim->Delay(delay).await_suspend(h);
      }
    }
    void await_resume() const noexcept {}
  };
  BlockedAwaiter Blocked(Time delay) const { return {sim_, gc_, delay}; }

  Simulation* sim_;
  Cpu* cpu_;  // may be null: the calls cost no CPU
  Gc* gc_;    // may be null: no pauses
  Options options_;
  Resource pool_;
  Stats stats_;
};

}  // namespace perflab::sim

#endif  // PERFLAB_SIM_POOLED_CLIENT_H_
