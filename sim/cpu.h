// CPU as C cores under one of two disciplines.
//
// Processor sharing (the default, the ideal limit): n runnable jobs each
// progress at min(1, C / n) nanoseconds of work per nanosecond, for free, so
// CPU-bound work slows down once the cores are saturated. Implemented with
// virtual finish tags, O(log n) per job.
//
// Time-sliced (as a kernel schedules threads): one job a core, for at most a
// quantum; then, if others wait, it goes to the tail of a FIFO run queue and
// the head takes the core. A woken job joins the tail. Dispatching a job other
// than the one the core last ran costs a switch plus a cache refill that grows
// with the working set the job brings back, as CPU time of the category
// `scheduling`. A job of a thread (Run's `thread`) that finishes keeps its
// core for the thread's next job of the same instant, as a thread runs on
// until it blocks: the rest of its quantum, no switch. O(C) per slice.
//
// Both report the cores used (time-weighted) and the CPU time spent per
// category (database, HTTP, serialisation, GC, other, scheduling), so a model
// can print the simulated counterpart of a profiler's "97 % in the database".
// Work done outside the job queue (GC threads during a pause) is added with
// Charge(). Single-threaded, like its Simulation.
#ifndef PERFLAB_SIM_CPU_H_
#define PERFLAB_SIM_CPU_H_

#include <array>
#include <bit>
#include <coroutine>
#include <cstdint>
#include <deque>
#include <memory>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "sim/engine.h"
#include "sim/resource.h"

namespace perflab::sim {

// What CPU time is spent on, for attribution. kScheduling is the
// dispatcher's own (switches and cache refills of the time-sliced
// discipline); a job's work is never attributed to it.
enum class CpuUse : uint8_t {
  kDatabase,
  kHttp,
  kSerialisation,
  kGc,
  kOther,
  kScheduling
};
// The uses a job's own work can have, kDatabase..kOther: tables of a model's
// work by use iterate these, and stay as they are under processor sharing.
inline constexpr int kCpuUses = 5;
// Every use, kScheduling included.
inline constexpr int kAllCpuUses = 6;
// "database", "http", "serialisation", "gc", "other", "scheduling".
std::string_view CpuUseName(CpuUse use);

// How the cores choose which runnable job progresses.
enum class CpuDiscipline : uint8_t {
  kProcessorSharing,  // "ps"
  kSliced,            // "sliced"
};
// "ps" or "sliced"; anything else is InvalidArgument naming what is accepted.
absl::StatusOr<CpuDiscipline> ParseCpuDiscipline(std::string_view name);
std::string_view CpuDisciplineName(CpuDiscipline discipline);

// One measured point of the cache-refill curve.
struct RefillPoint {
  int64_t working_set_bytes = 0;  // what the job touches between switches
  Time refill_ns = 0;  // extra CPU its dispatch costs, beyond the switch
};

// The discipline and its costs. The time-sliced fields are calibration
// inputs; processor sharing ignores them.
struct CpuScheduling {
  // Processor sharing unless a model asks for the scheduled CPU.
  CpuDiscipline discipline = CpuDiscipline::kProcessorSharing;
  // Longest a job runs while others wait (a kernel's base slice is ms).
  Time quantum_ns = 3 * kMs;
  // CPU a dispatch of a job other than the core's last one costs.
  Time switch_ns = 0;
  // Refill by working set, working sets strictly ascending, interpolated
  // linearly between points; empty: no refill cost.
  std::vector<RefillPoint> refill;
  // The working set of a job whose Run() declares none.
  int64_t working_set_bytes = 0;
};

// OK, or InvalidArgument naming the field, its value and what is accepted:
// quantum_ns <= 0, a negative switch_ns or refill_ns, refill points not
// strictly ascending from a working set >= 0, or a working_set_bytes outside
// [first, last] point of a non-empty curve.
absl::Status ValidateCpuScheduling(const CpuScheduling& scheduling);
// The refill of a job with `working_set_bytes`: linear between the curve's
// points, the end points' values beyond them, 0 for an empty curve.
Time RefillNs(const std::vector<RefillPoint>& curve, int64_t working_set_bytes);

class Cpu {
 public:
  // `scheduling` must pass ValidateCpuScheduling (a model validates its
  // inputs before building a Cpu).
  Cpu(Simulation& sim, int64_t cores, const CpuScheduling& scheduling = {});
  ~Cpu();
  Cpu(const Cpu&) = delete;  // the Simulation's timer points at this one
  Cpu& operator=(const Cpu&) = delete;

  // A Run() with this working set takes the scheduling's working_set_bytes.
  static constexpr int64_t kDefaultWorkingSet = -1;

  struct Awaiter {
    Cpu* cpu;
    Time work;
    CpuUse use;
    bool await_ready() const noexcept { return work <= 0; }
    void await_suspend(std::coroutine_handle<> h) {
      if (cpu->sliced_ == nullptr) [[likely]] {
        cpu->Add(h, work, use);
      } else {
        cpu->AddSliced(h, work, use, kDefaultWorkingSet, 0);
      }
    }
    void await_resume() const noexcept {}
  };
  // co_await cpu.Run(work, use): resumes once `work` ns of CPU have been
  // received; the time is attributed to `use`.
  Awaiter Run(Time work, CpuUse use = CpuUse::kOther) {
    return {this, work, use};
  }

  // A Run() that also tells the time-sliced discipline the job's working set
  // (its refill on each switch back to it; beyond the curve, the curve's end)
  // and its thread: a job of thread t dispatched onto the core that last ran
  // thread t costs no switch (0: no thread, every Run() is a job of its own;
  // ids below 2^63). A separate awaiter, so processor sharing's plain Run()
  // carries nothing more than it did.
  struct JobAwaiter {
    Cpu* cpu;
    Time work;
    CpuUse use;
    int64_t working_set_bytes;
    uint64_t thread;
    bool await_ready() const noexcept { return work <= 0; }
    void await_suspend(std::coroutine_handle<> h) {
      if (cpu->sliced_ == nullptr) {
        cpu->Add(h, work, use);
      } else {
        cpu->AddSliced(h, work, use, working_set_bytes, thread);
      }
    }
    void await_resume() const noexcept {}
  };
  JobAwaiter Run(Time work, CpuUse use, int64_t working_set_bytes,
                 uint64_t thread = 0) {
    return {this, work, use, working_set_bytes, thread};
  }

  // A job of `work` ns started now that would finish as the simulation's
  // very next event, before anything else pending changes the CPU: its
  // finish time, or -1 if it would not. Only from code this CPU's tick
  // resumed inline (processor sharing), so that the tick's own bookkeeping
  // is all that happens until it is done; saturated or not, the job and
  // the others progress at the rate its Add would set. FinishNow(use, at)
  // then runs it there and then: the clock moves to `at`, and everything
  // the engine, the CPU and their statistics show is what the job's Add,
  // its finish and the inline resumption would have left, the order of
  // later events and the events counted included. The caller goes on at
  // `at` without suspending, as if resumed by that tick.
  Time FinishNowAt(Time work) const {
    return FinishNowAt(work, FinishNowHorizon());
  }
  void FinishNow(CpuUse use, Time at);
  // FinishNowAt in two parts, for a run of jobs each started where the one
  // before finished in place, with nothing but FinishNow between: what
  // does not change along the run, worked out once (INT64_MIN: no job runs
  // in place now), then each job's finish, or -1.
  Time FinishNowHorizon() const;
  Time FinishNowAt(Time work, Time horizon) const;
  // Jobs run by FinishNow since construction.
  int64_t finished_in_place() const { return finished_in_place_; }
  // FinishNowAt says -1 from now on: every job goes through the timer, for
  // tests that compare the two ways.
  void DisableFinishNowForTesting() { finish_now_ = false; }

  // Stops all job progress for `duration` from now (a stop-the-world pause):
  // running jobs keep their remaining work and finish that much later. The
  // frozen cores count as idle unless the pause's own work is Charge()d.
  void Freeze(Time duration);
  Time frozen_until() const { return frozen_until_; }

  // Adds `cpu` ns of work done outside the job queue (GC threads in a pause).
  void Charge(CpuUse use, Time cpu);

  int64_t cores() const { return cores_; }
  CpuDiscipline discipline() const {
    return sliced_ ? CpuDiscipline::kSliced : CpuDiscipline::kProcessorSharing;
  }
  // Jobs running or waiting for a core.
  int64_t runnable() const {
    if (sliced_ != nullptr) [[unlikely]] {
      return sliced_->busy + static_cast<int64_t>(sliced_->queue.size());
    }
    return ps_runnable();
  }
  // Dispatches that charged a switch since ResetStats() (time-sliced; 0 under
  // processor sharing).
  int64_t switches() const;
  // Time-sliced, since ResetStats() (0 under processor sharing), as the
  // kernel's schedstat counts them: the times a job was put on a core, a
  // thread continuing on its own core not counted again; and the time jobs
  // waited runnable in the queue, summed over jobs.
  int64_t slices() const;
  Time run_queue_wait_ns() const;
  // Time-sliced, since construction (0 under processor sharing): the steps
  // its walks over cores took, one per word read of its map of busy or held
  // cores (or of held ones alone) and one per core visited. Its work grows
  // with the cores in use, not with all the cores there are.
  int64_t scheduler_steps() const;
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
    // (tag, seq) as one unsigned 128-bit number: a tag is a finite double
    // > 0 (virtual time plus work), whose bits order as the doubles do, so
    // keys order jobs by tag, then seq, and compare without a branch.
    unsigned __int128 key() const {
      return (static_cast<unsigned __int128>(std::bit_cast<uint64_t>(tag))
              << 64) |
             seq;
    }
    bool operator>(const Job& o) const { return key() > o.key(); }
  };
  // A binary min-heap of jobs by (tag, seq), which no two jobs share, so it
  // pops them in the order any priority queue would. Its own, not
  // std::priority_queue: that one sifts a popped hole to a leaf before
  // sifting the last job back up, a detour where a CPU holds a few jobs.
  // The earliest job may wait in a slot beside the heap instead: a model's
  // short pieces of work (a statement's microsecond among requests'
  // hundreds) mostly finish first, so each is pushed and popped there with
  // one comparison, and the long jobs' heap is not sifted at all.
  class JobHeap {
   public:
    bool empty() const { return !has_first_ && jobs_.empty(); }
    size_t size() const { return jobs_.size() + (has_first_ ? 1 : 0); }
    const Job& top() const { return has_first_ ? first_ : jobs_.front(); }
    void push(const Job& job);
    void pop();

   private:
    void HeapPush(const Job& job);
    void HeapPop();
    // Moves the parents later than `job` down from `hole` towards the root
    // and puts `job` where they stop: a push from the new last slot, a
    // pop's last job from the leaf its hole reached.
    static void SiftUp(Job* heap, size_t hole, const Job& job);

    bool has_first_ = false;
    Job first_{};            // with has_first_: earlier than every job below
    std::vector<Job> jobs_;  // the others
  };
  int64_t ps_runnable() const { return static_cast<int64_t>(jobs_.size()); }
  // Virtual (per-job) ns of work per real ns with `n` jobs runnable.
  double RateWith(int64_t n) const;
  double Rate() const { return RateWith(ps_runnable()); }
  void GrowRates();  // rates_ up to one job more than runnable
  void Advance() { AdvanceWith(ps_runnable()); }
  void AdvanceWith(int64_t runnable);  // as if `runnable` jobs ran since
  // Each job's virtual ns of work in `dt` real ns with `n` jobs runnable.
  double JobProgress(Time dt, int64_t n) const;
  // AdvanceWith's credit for `dt` ns of progress with `n` jobs runnable.
  void Progress(Time dt, int64_t n);
  // The same with a job of `use` (< kCpuUses) counted beside the runnable
  // ones, which runnable_by_use_ does not hold (FinishNow's).
  void ProgressWithJob(Time dt, int64_t n, CpuUse use);
  void Reschedule();                // RescheduleAs a seq taken now
  void RescheduleAs(uint64_t seq);  // sets the timer to the next finish
  void Add(std::coroutine_handle<> h, Time work, CpuUse use);
  static void OnTick(void* ctx, uint64_t);
  double Elapsed() const;

  // The time-sliced discipline's state (sim/src/cpu_sliced.cc); null under
  // processor sharing, whose members above it never touches.
  struct SlicedJob {
    Time left;       // work still to do
    Time refill_ns;  // charged when dispatched after another job
    uint64_t key;    // its thread, or an id of its own
    CpuUse use;
    std::coroutine_handle<> handle;
    Time queued_at = 0;  // when it last joined the run queue
  };
  struct Core {
    bool busy = false;
    SlicedJob job{};
    Time overhead_left = 0;  // switch + refill still due before the slice
    Time slice_left = 0;     // the job's work still due in this slice
    Time from = 0;           // progress credited up to here
    uint64_t last_key = 0;   // the job it last ran; 0: none yet
    Time quantum_left = 0;   // of the quantum its current thread started
    // Idle, kept for last_key's next job of this instant (a thread runs on
    // until it blocks); the queue's head takes it at the tick after.
    bool held = false;
    uint64_t held_at_tick = 0;  // the tick that set `held`
  };
  struct Sliced {
    CpuScheduling scheduling;
    // The refill of scheduling.working_set_bytes, the one most jobs bring:
    // worked out once, not interpolated again for each job.
    Time default_refill_ns = 0;
    std::vector<Core> cores;
    // Bit i of word i / 64: core i is busy or held. Every loop over cores
    // visits these alone, in core order: an event costs the cores in use
    // (and a word per 64 cores), not every core there is.
    std::vector<uint64_t> active;
    // Bit i of word i / 64: core i is held, for the walks that want holds.
    std::vector<uint64_t> held_map;
    int64_t steps = 0;            // words of `active` read, cores in it visited
    std::deque<SlicedJob> queue;  // runnable jobs waiting for a core, FIFO
    int64_t busy = 0;             // cores running a job
    int64_t held = 0;             // cores held for their thread
    // The busy cores' earliest slice end when last worked out (a Credit
    // leaves a slice's end as it is); kForever: none busy.
    Time next_end = kForever;
    uint64_t next_key = 0;
    int64_t switches = 0;
    int64_t slices = 0;
    Time waited = 0;     // summed queue waits of dispatched jobs
    uint64_t ticks = 0;  // OnSliceTick calls, to tell holds apart
    // The tick's last finished job, not yet resumed, and the position
    // reserved for its resumption when it finished (Finished()).
    std::coroutine_handle<> finished = nullptr;
    uint64_t finished_seq = 0;
  };
  void AddSliced(std::coroutine_handle<> h, Time work, CpuUse use,
                 int64_t working_set_bytes, uint64_t thread);
  static void OnSliceTick(void* ctx, uint64_t);
  void SlicedAdvance();       // credits every core's progress up to now
  void Track(const Core& c);  // sets c's bit in `active` from its state
  // Sets c.held, and with it `held` and c's bit in held_map.
  void SetHeld(Core& c, bool held);
  // Sets next_end from every busy core, then the timer (SetSliceTimer).
  void SlicedReschedule();
  // The same when `c` alone has changed since, and only to start a slice.
  void RescheduleWith(const Core& c);
  void SetSliceTimer();  // from held and next_end
  Time SliceEnd(const Core& c) const;
  void Credit(Core& c, Time now);
  void Dispatch(Core& c, const SlicedJob& job);
  void Continue(Core& c, const SlicedJob& job);
  void Enqueue(SlicedJob job);
  SlicedJob PopHead();  // the queue's head, its wait counted
  void EndSlice(Core& c, Time now);
  void Finished(std::coroutine_handle<> h);
  void SlicedTotals(__int128& used,
                    std::array<double, kAllCpuUses>& by_use) const;

  Simulation* sim_;
  int64_t cores_;
  double vtime_ = 0;
  Time last_ = 0;
  Time frozen_until_ = 0;
  uint64_t seq_ = 0;
  uint64_t reschedules_ = 0;  // RescheduleAs calls, to tell one happened
  // While OnTick resumes its last finished job inline: the timer it still
  // owes is set in position `seq` unless a reschedule follows `before`.
  // FinishNow, standing in for the next tick, moves both on.
  struct TickResume {
    bool active = false;
    uint64_t before = 0;
    uint64_t seq = 0;
  };
  TickResume tick_;
  bool finish_now_ = true;  // false: tick_ is never active
  int64_t finished_in_place_ = 0;
  // Set to the next job's finish: when it is, and its place among events
  // at that time (a seq taken when the finish was last computed).
  Simulation::TimerId timer_;
  std::unique_ptr<Sliced> sliced_;
  JobHeap jobs_;
  // rates_[n] = cores_ / n for cores_ < n < rates_.size(): the division
  // RateWith would do, done once per count of jobs. A saturated CPU's
  // every event multiplies or divides by its rate, and waited on a fresh
  // division each time (the division's latency, not its cost, bounds
  // those events). Grown by Add to cover one job more than it holds
  // (FinishNowAt counts the job it asks about).
  std::vector<double> rates_;
  // Runnable jobs per use, as doubles (exact counts): Advance multiplies
  // by them, and doubles take packed multiplies and adds without a
  // conversion each.
  std::array<double, kAllCpuUses> runnable_by_use_{};
  // Core-nanoseconds of progress since the reset: exact integer total (so a
  // run without pauses or charges reports exactly the time-weighted
  // min(n, C)), and a per-use split.
  __int128 used_ = 0;
  std::array<double, kAllCpuUses> used_by_use_{};
  Time reset_at_ = 0;
};

// The in-place path's pieces, here so that a caller's loop of statements
// (Database::SeriesAwaiter) compiles them into itself: out of line, the
// calls' own saves and restores cost a third of their instructions.
[[gnu::always_inline]] inline double Cpu::RateWith(int64_t n) const {
  if (n <= cores_) return 1.0;
  if (static_cast<size_t>(n) < rates_.size()) [[likely]]
    return rates_[static_cast<size_t>(n)];
  return static_cast<double>(cores_) / static_cast<double>(n);
}

[[gnu::always_inline]] inline double Cpu::JobProgress(Time dt,
                                                      int64_t n) const {
  // dt x RateWith(n); below saturation the rate is 1.0, and a product by
  // 1.0 is exact, so it is skipped.
  return n <= cores_ ? static_cast<double>(dt)
                     : static_cast<double>(dt) * RateWith(n);
}

[[gnu::always_inline]] inline void Cpu::ProgressWithJob(Time dt, int64_t n,
                                                        CpuUse use) {
  // runnable_by_use_ with the job counted, in registers: a row of the
  // identity added to the counts (r + 0.0 is r, as no count is -0.0), the
  // same products as Progress after a += 1 there would give. Storing the
  // count and reloading the counts packed would make the load wait for
  // the narrower store to retire.
  static constexpr double kOne[kCpuUses][kCpuUses] = {{1, 0, 0, 0, 0},
                                                      {0, 1, 0, 0, 0},
                                                      {0, 0, 1, 0, 0},
                                                      {0, 0, 0, 1, 0},
                                                      {0, 0, 0, 0, 1}};
  const double* one = kOne[static_cast<int>(use)];
  const double progress = JobProgress(dt, n);
  vtime_ += progress;
  used_ += static_cast<__int128>(dt) * std::min(n, cores_);
#pragma GCC unroll 5
  for (int u = 0; u < kCpuUses; ++u) {
    used_by_use_[u] += progress * (runnable_by_use_[u] + one[u]);
  }
}

// The conditions under which Add, the timer it sets and the tick that
// timer fires would do nothing but run this one job: the CPU's timer is
// not set (the tick resuming us fired it, and no reschedule since has set
// it again), the job comes first among the CPU's jobs and alone reaches
// its tag at its finish, and nothing else is due before then.
[[gnu::always_inline]] inline Time Cpu::FinishNowHorizon() const {
  const Time now = sim_->now();
  if (!tick_.active || reschedules_ != tick_.before || last_ != now ||
      frozen_until_ > now) {
    return INT64_MIN;
  }
  return sim_->SkipHorizon();
}

[[gnu::always_inline]] inline Time Cpu::FinishNowAt(Time work,
                                                    Time horizon) const {
  if (work <= 0) return -1;
  const Time now = sim_->now();
  const int64_t n = ps_runnable() + 1;  // with the job
  const double tag = vtime_ + static_cast<double>(work);
  // RescheduleAs's finish with the job added, and the tag Advance reaches
  // there, in the same operations.
  double left = tag - vtime_;
  Time at;
  if (n <= cores_ && left == static_cast<double>(work)) [[likely]] {
    // The same finish, from integers: CeilNs of a whole `work` is
    // `work`. The next job's finish then waits on this one's clock, not
    // on a chain of floating-point steps from vtime_ (predicted branches
    // check those meanwhile), which is what bounds a run of statements.
    at = SaturatingAdd(now, work);
  } else {
    if (n > cores_) left /= RateWith(n);
    at = SaturatingAdd(now, CeilNs(left));
  }
  const double reached = vtime_ + JobProgress(at - now, n);
  if (!(tag <= reached + 1e-3)) return -1;
  // Every other job stays short of its tag there (with the tick's
  // tolerance), so ours is also the first to finish.
  if (!jobs_.empty() && !(jobs_.top().tag > reached + 1e-3)) return -1;
  if (!sim_->CanSkipWithin(at, horizon)) return -1;
  return at;
}

[[gnu::always_inline]] inline void Cpu::FinishNow(CpuUse use, Time at) {
  // Add: the job's seq and a reschedule. (The position Add would take for
  // the finish goes untaken: an unused one leaves a gap, not a swap.)
  ++seq_;
  ++reschedules_;
  // The timer firing at `at`, and OnTick there: progress with the job
  // among the runnable, the job popped, positions for its resumption and
  // for the next finish, and the resumption counted as it goes on inline.
  // AdvanceWith, where FinishNowAt saw progress credited up to now and
  // nothing frozen, so that progress runs from there to the job's finish.
  ProgressWithJob(at - last_, ps_runnable() + 1, use);
  last_ = at;
  sim_->SkipTo(at);
  sim_->TakeSeq();  // the resumption's, which goes on inline
  const uint64_t timer_seq = sim_->TakeSeq();
  tick_ = {true, reschedules_, timer_seq};
  ++finished_in_place_;
}

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
