// CPU as C cores under processor sharing: n runnable jobs each progress at
// min(1, C / n) nanoseconds of work per nanosecond, so CPU-bound work slows
// down once the cores are saturated. Reports the cores used (time-weighted
// min(n, C)) and the CPU time spent per category (database, HTTP,
// serialisation, GC, other), so a model can print the simulated counterpart of
// a profiler's "97 % in the database". Work done outside the job queue (GC
// threads during a pause) is added with Charge(). Implemented with virtual
// finish tags, O(log n) per job. Single-threaded, like its Simulation.
#ifndef PERFLAB_SIM_CPU_H_
#define PERFLAB_SIM_CPU_H_

#include <array>
#include <coroutine>
#include <cstdint>
#include <queue>
#include <string_view>
#include <vector>

#include "sim/engine.h"
#include "sim/resource.h"

namespace perflab::sim {

// What CPU time is spent on, for attribution.
enum class CpuUse : uint8_t { kDatabase, kHttp, kSerialisation, kGc, kOther };
inline constexpr int kCpuUses = 5;
// "database", "http", "serialisation", "gc", "other".
std::string_view CpuUseName(CpuUse use);

class Cpu {
 public:
  Cpu(Simulation& sim, int64_t cores)
      : sim_(&sim), cores_(cores), timer_(sim.AddTimer(&OnTick, this)) {}
  ~Cpu() { sim_->ClearTimer(timer_); }
  Cpu(const Cpu&) = delete;  // the Simulation's timer points at this one
  Cpu& operator=(const Cpu&) = delete;

  struct Awaiter {
    Cpu* cpu;
    Time work;
    CpuUse use;
    bool await_ready() const noexcept { return work <= 0; }
    void await_suspend(std::coroutine_handle<> h) { cpu->Add(h, work, use); }
    void await_resume() const noexcept {}
  };
  // co_await cpu.Run(work, use): resumes once `work` ns of CPU have been
  // received; the time is attributed to `use`.
  Awaiter Run(Time work, CpuUse use = CpuUse::kOther) {
    return {this, work, use};
  }

  // Stops all job progress for `duration` from now (a stop-the-world pause):
  // running jobs keep their remaining work and finish that much later. The
  // frozen cores count as idle unless the pause's own work is Charge()d.
  void Freeze(Time duration);
  Time frozen_until() const { return frozen_until_; }

  // Adds `cpu` ns of work done outside the job queue (GC threads in a pause).
  void Charge(CpuUse use, Time cpu);

  int64_t cores() const { return cores_; }
  int64_t runnable() const { return static_cast<int64_t>(jobs_.size()); }
  void ResetStats();
  // Mean cores busy since ResetStats(): jobs' progress plus charged work.
  double CoresUsed() const;
  // Mean cores spent on `use` since ResetStats().
  double CoresUsedFor(CpuUse use) const;

 private:
  struct Job {
    double tag;  // virtual time at which the job's work is done
    uint64_t seq;
    CpuUse use;
    std::coroutine_handle<> handle;
    bool operator>(const Job& o) const {
      return tag > o.tag || (tag == o.tag && seq > o.seq);
    }
  };
  double Rate() const;  // virtual (per-job) ns of work per real ns
  void Advance();
  void Reschedule();
  void Add(std::coroutine_handle<> h, Time work, CpuUse use);
  static void OnTick(void* ctx, uint64_t);
  double Elapsed() const;

  Simulation* sim_;
  int64_t cores_;
  double vtime_ = 0;
  Time last_ = 0;
  Time frozen_until_ = 0;
  uint64_t seq_ = 0;
  // Set to the next job's finish: when it is, and its place among events
  // at that time (a seq taken when the finish was last computed).
  Simulation::TimerId timer_;
  std::priority_queue<Job, std::vector<Job>, std::greater<Job>> jobs_;
  // Core-nanoseconds of progress since the reset: exact integer total (so a
  // run without pauses or charges reports exactly the time-weighted
  // min(n, C)), and a per-use split.
  __int128 used_ = 0;
  std::array<int64_t, kCpuUses> runnable_by_use_{};
  std::array<double, kCpuUses> used_by_use_{};
  Time reset_at_ = 0;
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
