#include "core/interrupt.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <mutex>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace perflab::core {
namespace {

// A path slot: kFree, then kBusy while its text changes, kReady to be used.
enum SlotState : int { kFree = 0, kBusy = 1, kReady = 2 };

struct PathSlot {
  std::atomic<int> state{kFree};
  char path[PATH_MAX] = {};
};

constexpr int kSlots = 64;
constexpr int kDefaultGraceTicks = 500;  // x 10 ms: the children's time to exit
constexpr int kMaxGraceTicks = 60'000;

std::array<PathSlot, kSlots> g_paths;
std::array<std::atomic<pid_t>, kSlots> g_children{};
std::atomic<bool> g_started{false};
std::atomic<int> g_grace_ticks{kDefaultGraceTicks};

void SleepTick() {
  timespec t{0, 10'000'000};
  ::nanosleep(&t, nullptr);
}

// Removes the directory entry `name` under `dirfd`, with everything in it
// when it is a directory; never follows a symbolic link. Async-signal-safe:
// system calls and stack buffers only.
void RemoveTree(int dirfd, const char* name, int depth) {
  if (::unlinkat(dirfd, name, 0) == 0 || errno == ENOENT) return;
  if (depth > 32) return;
  const int fd =
      ::openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return;
  // Entries are removed while read: read again from the start until a pass
  // finds nothing left (bounded, in case something cannot be removed).
  for (int pass = 0; pass < 8; ++pass) {
    ::lseek(fd, 0, SEEK_SET);
    bool any = false;
    alignas(8) char buf[4096];
    long n = 0;
    while ((n = ::syscall(SYS_getdents64, fd, buf, sizeof buf)) > 0) {
      for (long at = 0; at < n;) {
        auto* d = reinterpret_cast<struct dirent64*>(buf + at);
        at += d->d_reclen;
        if (std::strcmp(d->d_name, ".") == 0 ||
            std::strcmp(d->d_name, "..") == 0) {
          continue;
        }
        any = true;
        RemoveTree(fd, d->d_name, depth + 1);
      }
    }
    if (!any) break;
  }
  ::close(fd);
  ::unlinkat(dirfd, name, AT_REMOVEDIR);
}

void StopChildren() {
  for (auto& c : g_children) {
    if (const pid_t pid = c.load(); pid > 0) ::kill(-pid, SIGTERM);
  }
  // Exited (or reaped elsewhere) is asked without reaping, so that the
  // group's id cannot be reused before the SIGKILL below.
  const int grace = g_grace_ticks.load();
  for (int tick = 0; tick < grace; ++tick) {
    bool running = false;
    for (auto& c : g_children) {
      const pid_t pid = c.load();
      if (pid <= 0) continue;
      siginfo_t info{};
      const int rc = ::waitid(P_PID, static_cast<id_t>(pid), &info,
                              WEXITED | WNOHANG | WNOWAIT);
      if (rc == 0 && info.si_pid == 0) running = true;
    }
    if (!running) break;
    SleepTick();
  }
  for (auto& c : g_children) {
    const pid_t pid = c.load();
    if (pid <= 0) continue;
    ::kill(-pid, SIGKILL);  // what is left of the group, grandchildren too
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
  }
}

void RemovePaths() {
  for (PathSlot& s : g_paths) {
    if (s.state.load() == kReady) RemoveTree(AT_FDCWD, s.path, 0);
  }
}

void OnInterrupt(int sig) {
  const int saved_errno = errno;
  if (g_started.exchange(true)) {
    // Another thread cleans up and re-raises; this one waits for that.
    for (;;) ::pause();
  }
  StopChildren();
  RemovePaths();
  ::signal(sig, SIG_DFL);
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, sig);
  ::pthread_sigmask(SIG_UNBLOCK, &set, nullptr);
  ::raise(sig);
  errno = saved_errno;
}

// At exit, while a cleanup runs on another thread: wait for its signal.
void WaitForCleanup() {
  if (!g_started.load()) return;
  for (;;) ::pause();
}

}  // namespace

void InstallInterruptCleanup() {
  static std::once_flag once;
  std::call_once(once, [] {
    struct sigaction sa {};
    sa.sa_handler = OnInterrupt;
    sigemptyset(&sa.sa_mask);
    sigaddset(&sa.sa_mask, SIGINT);
    sigaddset(&sa.sa_mask, SIGTERM);
    sigaddset(&sa.sa_mask, SIGHUP);
    ::sigaction(SIGINT, &sa, nullptr);
    ::sigaction(SIGTERM, &sa, nullptr);
    // A hang-up (the terminal closed) is an interrupt too, unless it was
    // ignored when perflab started (nohup): then it stays ignored.
    struct sigaction hup {};
    if (::sigaction(SIGHUP, nullptr, &hup) == 0 && hup.sa_handler != SIG_IGN) {
      ::sigaction(SIGHUP, &sa, nullptr);
    }
    std::atexit(WaitForCleanup);
  });
}

void SetInterruptGrace(std::chrono::milliseconds grace) {
  const auto ticks = std::clamp<int64_t>(grace.count() / 10, 0, kMaxGraceTicks);
  g_grace_ticks.store(static_cast<int>(ticks));
}

bool InterruptCleanupStarted() { return g_started.load(); }

void RegisterTempPath(std::string_view path) {
  if (path.empty() || path.size() >= PATH_MAX) return;
  for (PathSlot& s : g_paths) {
    int expected = kFree;
    if (!s.state.compare_exchange_strong(expected, kBusy)) continue;
    std::memcpy(s.path, path.data(), path.size());
    s.path[path.size()] = '\0';
    s.state.store(kReady);
    return;
  }
}

void ForgetTempPath(std::string_view path) {
  for (PathSlot& s : g_paths) {
    int expected = kReady;
    if (!s.state.compare_exchange_strong(expected, kBusy)) continue;
    if (path != std::string_view(s.path)) {
      s.state.store(kReady);
      continue;
    }
    s.path[0] = '\0';
    s.state.store(kFree);
    return;
  }
}

void RemoveTempPath(const std::string& path) {
  RemoveTree(AT_FDCWD, path.c_str(), 0);
  ForgetTempPath(path);
}

void RegisterChild(pid_t pid) {
  for (auto& c : g_children) {
    pid_t expected = 0;
    if (c.compare_exchange_strong(expected, pid)) return;
  }
}

void ForgetChild(pid_t pid) {
  for (auto& c : g_children) {
    pid_t expected = pid;
    if (c.compare_exchange_strong(expected, 0)) return;
  }
}

std::string TempDirBase() {
  const char* dir = std::getenv("TMPDIR");
  return dir != nullptr && *dir != '\0' ? dir : "/tmp";
}

absl::StatusOr<std::string> MakeTempFile(std::string_view prefix) {
  std::string name = std::string(prefix) + "XXXXXX";
  ScopedInterruptBlock block;
  const int fd = ::mkostemp(name.data(), O_CLOEXEC);
  if (fd < 0) {
    return absl::ErrnoToStatus(
        errno, absl::StrCat("cannot create a temporary file '", name, "'"));
  }
  ::close(fd);
  RegisterTempPath(name);
  return name;
}

absl::StatusOr<std::string> MakeTempDir(std::string_view prefix) {
  std::string name = std::string(prefix) + "XXXXXX";
  ScopedInterruptBlock block;
  if (::mkdtemp(name.data()) == nullptr) {
    return absl::ErrnoToStatus(
        errno,
        absl::StrCat("cannot create a temporary directory '", name, "'"));
  }
  RegisterTempPath(name);
  return name;
}

ScopedInterruptBlock::ScopedInterruptBlock() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGHUP);
  ::pthread_sigmask(SIG_BLOCK, &set, &saved_);
}

ScopedInterruptBlock::~ScopedInterruptBlock() {
  ::pthread_sigmask(SIG_SETMASK, &saved_, nullptr);
}

}  // namespace perflab::core
