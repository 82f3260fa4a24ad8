// Child processes without a shell: Subprocess::Spawn starts a program from an
// argv, with its stdout and stderr each inherited, discarded, captured (both
// captured share one pipe, in the order the child wrote them) or, for stdout,
// sent to this process's stderr; optionally on a given set of CPUs. The handle
// reads the captured output, waits for the exit status, and stops the child
// (SIGTERM, then SIGKILL after a grace period). Destroying a handle whose
// child still runs stops and reaps it, so no caller leaves a zombie or an
// orphan behind, even on an early return.
//
// Each child runs in its own process group (Stop ends the group, so what the
// child started ends with it), dies with SIGKILL when this process dies
// (PR_SET_PDEATHSIG: even a SIGKILL of the parent leaves no orphan; it
// fires when the spawning *thread* ends, so spawn from a thread that
// outlives the child), and is registered with the interrupt cleanup
// (core/interrupt.h) from spawn to reap. It starts with default signal
// handlers and an empty signal mask.
//
// Thread safety: a handle is not safe to use from two threads at once;
// distinct handles are independent.
#ifndef PERFLAB_CORE_SUBPROCESS_H_
#define PERFLAB_CORE_SUBPROCESS_H_

#include <signal.h>
#include <sys/types.h>

#include <chrono>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace perflab::core {

// Where one of the child's output streams goes.
enum class Output {
  kInherit,   // this process's same stream
  kDiscard,   // /dev/null
  kCapture,   // the handle's pipe, read with ReadOutput or Wait
  kToStderr,  // this process's stderr (a child's progress kept off stdout)
};

struct SpawnOptions {
  Output stdout_to = Output::kInherit;
  Output stderr_to = Output::kInherit;
  bool search_path = false;  // look argv[0] up in PATH, as a shell would
  std::vector<int> cpus{};   // non-empty: the child runs on these CPUs only
  // Between SIGTERM and SIGKILL when Stop (or the destructor) ends a child.
  std::chrono::milliseconds stop_grace{10'000};
  // What the child gets when this process dies, even of a SIGKILL that no
  // cleanup follows (PR_SET_PDEATHSIG). SIGTERM for a child that removes
  // what it made on SIGTERM (tools/bench-commits: its git worktrees).
  int death_signal = SIGKILL;
};

// How a child ended.
struct ExitStatus {
  int code = -1;   // its exit code, or -1 when a signal ended it
  int signal = 0;  // the signal that ended it, or 0
  bool ok() const { return signal == 0 && code == 0; }
  // "exit code 3" or "killed by SIGKILL".
  std::string ToString() const;
};

class Subprocess {
 public:
  // Starts argv[0] with arguments argv[1..]. Errors name the program: an
  // empty argv is InvalidArgument; a program that does not exist is NotFound
  // ("cannot start 'x': No such file or directory"); other failures carry
  // the OS reason's code.
  static absl::StatusOr<Subprocess> Spawn(std::vector<std::string> argv,
                                          const SpawnOptions& options = {});

  Subprocess(Subprocess&& other) noexcept;
  Subprocess& operator=(Subprocess&& other) noexcept;
  Subprocess(const Subprocess&) = delete;
  Subprocess& operator=(const Subprocess&) = delete;
  // Stops and reaps a child that still runs.
  ~Subprocess();

  // The child's process id, or -1 once it has been reaped.
  pid_t pid() const { return pid_; }
  const std::string& program() const { return program_; }

  // Why ReadOutput returned.
  enum class ReadEnd {
    kEof,       // every writer closed the pipe (normally: the child exited)
    kStopped,   // `stop` returned true for the output read so far
    kDeadline,  // `deadline` passed first
  };
  // Appends captured output to output() until end of file, until `stop`
  // (when given) holds for output(), or until `deadline`. kEof at once when
  // nothing is captured or the pipe is closed. Errors name the program.
  absl::StatusOr<ReadEnd> ReadOutput(
      std::chrono::steady_clock::time_point deadline,
      const std::function<bool(std::string_view)>& stop = nullptr);
  // Everything captured so far.
  const std::string& output() const { return output_; }
  // Closes this end of the capture pipe; the child's later writes to it fail
  // (EPIPE, or SIGPIPE unless it ignores that).
  void CloseOutput();

  // Reads any captured output to its end, then waits for the child to exit
  // and reaps it. Once reaped, returns the same status again.
  absl::StatusOr<ExitStatus> Wait();
  // SIGTERM, up to options.stop_grace for the child to exit, then SIGKILL;
  // reaps it. The status it ended with (the earlier one if already reaped).
  ExitStatus Stop();
  // SIGKILL at once, then reaps it.
  ExitStatus Kill();

 private:
  Subprocess(std::string program, pid_t pid, int output_fd,
             std::chrono::milliseconds stop_grace);
  // Blocks in waitpid and records the status.
  ExitStatus Reap();
  // True when the child exited within `timeout` (it is not reaped).
  bool ExitsWithin(std::chrono::milliseconds timeout);
  void Release();  // Stop() if running; closes the pipe

  std::string program_;
  pid_t pid_ = -1;
  int output_fd_ = -1;
  std::chrono::milliseconds stop_grace_{0};
  std::string output_;
  ExitStatus status_;
};

}  // namespace perflab::core

#endif  // PERFLAB_CORE_SUBPROCESS_H_
