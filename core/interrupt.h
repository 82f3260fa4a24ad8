// Interrupts leave nothing behind. A command that writes outputs or starts
// children calls InstallInterruptCleanup() first; from then on SIGINT,
// SIGTERM and SIGHUP (unless ignored at start, as under nohup) (1) send SIGTERM
// to the process group of every registered child, wait up to a grace period (5
// s unless set) for each to exit, SIGKILL the groups and reap the children, (2)
// remove every registered temporary path (a file, or a directory with
// everything in it), then (3) re-raise the signal with its default disposition,
// so the exit status says which signal ended the process.
//
// The registry is filled by the code that makes the things: Subprocess
// registers each child (in its own process group) from spawn to reap, the
// atomic writer its temporary files from creation to rename, MakeTempFile /
// MakeTempDir what they create. The handler only reads fixed-size slots of
// atomics and calls async-signal-safe system calls. A second signal during
// the cleanup waits for it. Were another thread to return from main while
// the cleanup runs, exit blocks until the re-raised signal ends the process.
//
// SIGKILL cannot be handled: then the children still die with the parent
// (Subprocess sets PR_SET_PDEATHSIG), and the temporary paths left behind
// keep their recognisable names ("<out>.tmp.<16 hex digits>", and
// $TMPDIR/perflab-<what>-XXXXXX).
//
// Thread safety: every function may be called from any thread.
#ifndef PERFLAB_CORE_INTERRUPT_H_
#define PERFLAB_CORE_INTERRUPT_H_

#include <signal.h>
#include <sys/types.h>

#include <chrono>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace perflab::core {

// Installs the SIGINT, SIGTERM and SIGHUP handlers; calling it again does
// nothing.
void InstallInterruptCleanup();

// How long the cleanup waits, after SIGTERM, for the registered children to
// exit before it SIGKILLs their groups (default 5 s, at most 10 min). A
// command whose child removes what it made on SIGTERM (tools/bench-commits:
// its git worktrees, after stopping a build) gives it that long, since a
// SIGKILL mid-removal leaves the worktree registered.
void SetInterruptGrace(std::chrono::milliseconds grace);

// True once a SIGINT or SIGTERM cleanup has begun.
bool InterruptCleanupStarted();

// Registers `path` (absolute or relative to the working directory at the
// time of the signal) for removal on an interrupt. Best effort: when every
// slot (64) is taken the path is not registered.
void RegisterTempPath(std::string_view path);
// Stops tracking `path` (after it was renamed into place or removed).
void ForgetTempPath(std::string_view path);
// Removes the file or directory tree at `path` and forgets it.
void RemoveTempPath(const std::string& path);

// Registers the leader of a process group (a child spawned with
// setpgid(0, 0)) to be stopped on an interrupt; ForgetChild once reaped.
void RegisterChild(pid_t pid);
void ForgetChild(pid_t pid);

// $TMPDIR when set and non-empty, else /tmp.
std::string TempDirBase();
// Create, registered: `prefix` + "XXXXXX" made unique (mkstemp / mkdtemp),
// e.g. TempDirBase() + "/perflab-calibrate-". Errors name the pattern.
absl::StatusOr<std::string> MakeTempFile(std::string_view prefix);
absl::StatusOr<std::string> MakeTempDir(std::string_view prefix);

// Blocks SIGINT, SIGTERM and SIGHUP in the calling thread while it lives: a
// path created and registered (or a set of renames) inside it is never caught
// half-way by the cleanup.
class ScopedInterruptBlock {
 public:
  ScopedInterruptBlock();
  ~ScopedInterruptBlock();
  ScopedInterruptBlock(const ScopedInterruptBlock&) = delete;
  ScopedInterruptBlock& operator=(const ScopedInterruptBlock&) = delete;

 private:
  sigset_t saved_;
};

}  // namespace perflab::core

#endif  // PERFLAB_CORE_INTERRUPT_H_
