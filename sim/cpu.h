// CPU as C cores under processor sharing: n runnable jobs each progress at
// min(1, C / n) nanoseconds of work per nanosecond, so CPU-bound work slows
// down once the cores are saturated. Reports the cores used (time-weighted
// min(n, C)). Implemented with virtual finish tags, O(log n) per job.
// Single-threaded, like the Simulation it belongs to.
#ifndef PERFLAB_SIM_CPU_H_
#define PERFLAB_SIM_CPU_H_

#include <coroutine>
#include <cstdint>
#include <queue>
#include <vector>

#include "sim/engine.h"
#include "sim/resource.h"

namespace perflab::sim {

class Cpu {
 public:
  Cpu(Simulation& sim, int64_t cores) : sim_(&sim), cores_(cores) {}

  struct Awaiter {
    Cpu* cpu;
    Time work;
    bool await_ready() const noexcept { return work <= 0; }
    void await_suspend(std::coroutine_handle<> h) { cpu->Add(h, work); }
    void await_resume() const noexcept {}
  };
  // co_await cpu.Run(work): resumes once `work` ns of CPU have been received.
  Awaiter Run(Time work) { return {this, work}; }

  // Stops all CPU progress for `duration` from now (a stop-the-world pause):
  // running jobs keep their remaining work and finish that much later.
  void Freeze(Time duration);
  Time frozen_until() const { return frozen_until_; }

  int64_t cores() const { return cores_; }
  int64_t runnable() const { return static_cast<int64_t>(jobs_.size()); }
  void ResetStats() { busy_.Reset(sim_->now()); }
  double CoresUsed() const { return busy_.Mean(sim_->now()); }

 private:
  struct Job {
    double tag;  // virtual time at which the job's work is done
    uint64_t seq;
    std::coroutine_handle<> handle;
    bool operator>(const Job& o) const {
      return tag > o.tag || (tag == o.tag && seq > o.seq);
    }
  };
  double Rate() const;  // virtual (per-job) ns of work per real ns
  void Advance();
  void Reschedule();
  void Add(std::coroutine_handle<> h, Time work);
  static void OnTick(void* ctx, uint64_t gen);

  Simulation* sim_;
  int64_t cores_;
  double vtime_ = 0;
  Time last_ = 0;
  Time frozen_until_ = 0;
  uint64_t seq_ = 0;
  uint64_t gen_ = 0;
  std::priority_queue<Job, std::vector<Job>, std::greater<Job>> jobs_;
  TimeWeighted busy_;
};

// Stop-the-world intervals [start, end) during which no service work
// progresses (a GC pause, a failover, an operator freezing the process).
class Freezes {
 public:
  void Add(Time start, Time end) { spans_.push_back({start, end}); }
  // When work of `work` ns started at `start` finishes, skipping frozen time.
  Time Finish(Time start, Time work) const;
  // The end of the freeze covering t, or t if none does.
  Time Thaw(Time t) const;

 private:
  struct Span {
    Time start, end;
  };
  std::vector<Span> spans_;  // sorted, non-overlapping (Add in order)
};

}  // namespace perflab::sim

#endif  // PERFLAB_SIM_CPU_H_
