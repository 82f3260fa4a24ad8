#include "core/subprocess.h"

#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <thread>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace perflab::core {
namespace {

using Clock = std::chrono::steady_clock;

// Milliseconds from now to `deadline` for poll(2): 0 once it has passed.
int MsUntil(Clock::time_point deadline) {
  const auto left =
      std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now())
          .count();
  if (left <= 0) return 0;
  return left > 1'000'000'000 ? 1'000'000'000 : static_cast<int>(left);
}

ExitStatus FromWaitStatus(int status) {
  ExitStatus s;
  if (WIFEXITED(status)) {
    s.code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    s.signal = WTERMSIG(status);
  }
  return s;
}

// Sets the calling thread's affinity to `cpus` for its lifetime (a spawned
// child inherits the spawning thread's), restoring the previous one after.
class ScopedAffinity {
 public:
  ~ScopedAffinity() {
    if (set_) ::sched_setaffinity(0, sizeof saved_, &saved_);
  }
  absl::Status Set(const std::vector<int>& cpus) {
    cpu_set_t want;
    CPU_ZERO(&want);
    for (int c : cpus) {
      if (c < 0 || c >= CPU_SETSIZE) {
        return absl::InvalidArgumentError(
            absl::StrCat("CPU ", c, ": accepted 0..", CPU_SETSIZE - 1));
      }
      CPU_SET(c, &want);
    }
    if (::sched_getaffinity(0, sizeof saved_, &saved_) != 0) {
      return absl::ErrnoToStatus(errno, "sched_getaffinity");
    }
    if (::sched_setaffinity(0, sizeof want, &want) != 0) {
      return absl::ErrnoToStatus(errno, "sched_setaffinity");
    }
    set_ = true;
    return absl::OkStatus();
  }

 private:
  cpu_set_t saved_;
  bool set_ = false;
};

// posix_spawn's file actions, destroyed with the object.
class FileActions {
 public:
  FileActions() { ::posix_spawn_file_actions_init(&actions_); }
  ~FileActions() { ::posix_spawn_file_actions_destroy(&actions_); }
  FileActions(const FileActions&) = delete;
  FileActions& operator=(const FileActions&) = delete;
  posix_spawn_file_actions_t* get() { return &actions_; }

  // Points the child's `fd` where `to` says; `pipe_fd` is the capture pipe's
  // write end.
  void Redirect(int fd, Output to, int pipe_fd) {
    switch (to) {
      case Output::kInherit:
        break;
      case Output::kDiscard:
        ::posix_spawn_file_actions_addopen(&actions_, fd, "/dev/null", O_WRONLY,
                                           0);
        break;
      case Output::kCapture:
        ::posix_spawn_file_actions_adddup2(&actions_, pipe_fd, fd);
        break;
      case Output::kToStderr:
        if (fd != STDERR_FILENO) {
          ::posix_spawn_file_actions_adddup2(&actions_, STDERR_FILENO, fd);
        }
        break;
    }
  }

 private:
  posix_spawn_file_actions_t actions_;
};

}  // namespace

std::string ExitStatus::ToString() const {
  if (signal != 0) {
    const char* name = ::sigabbrev_np(signal);
    return name != nullptr ? absl::StrCat("killed by SIG", name)
                           : absl::StrCat("killed by signal ", signal);
  }
  return absl::StrCat("exit code ", code);
}

absl::StatusOr<Subprocess> Subprocess::Spawn(std::vector<std::string> argv,
                                             const SpawnOptions& options) {
  if (argv.empty() || argv[0].empty()) {
    return absl::InvalidArgumentError(
        "cannot start a program: empty command line; accepted: a program "
        "and its arguments");
  }
  const std::string program = argv[0];
  auto failed = [&program](int error, const char* what) {
    return absl::ErrnoToStatus(
        error, absl::StrCat("cannot start '", program, "'", what));
  };
  int pipe_fds[2] = {-1, -1};
  if (options.stdout_to == Output::kCapture ||
      options.stderr_to == Output::kCapture) {
    // Close-on-exec: the child sees only the dup2'd copy, so the pipe ends
    // at end of file when the child exits.
    if (::pipe2(pipe_fds, O_CLOEXEC) != 0) return failed(errno, " (pipe)");
  }
  FileActions actions;
  // In order: a stdout sent to stderr takes this process's stderr before
  // stderr itself is redirected.
  actions.Redirect(STDOUT_FILENO, options.stdout_to, pipe_fds[1]);
  actions.Redirect(STDERR_FILENO, options.stderr_to, pipe_fds[1]);
  std::vector<char*> args;
  args.reserve(argv.size() + 1);
  for (std::string& a : argv) args.push_back(a.data());
  args.push_back(nullptr);
  pid_t pid = -1;
  int rc = 0;
  {
    ScopedAffinity affinity;
    if (!options.cpus.empty()) {
      if (absl::Status s = affinity.Set(options.cpus); !s.ok()) {
        if (pipe_fds[0] >= 0) {
          ::close(pipe_fds[0]);
          ::close(pipe_fds[1]);
        }
        return absl::Status(s.code(), absl::StrCat("cannot start '", program,
                                                   "': ", s.message()));
      }
    }
    rc = options.search_path ? ::posix_spawnp(&pid, args[0], actions.get(),
                                              nullptr, args.data(), environ)
                             : ::posix_spawn(&pid, args[0], actions.get(),
                                             nullptr, args.data(), environ);
  }
  if (pipe_fds[1] >= 0) ::close(pipe_fds[1]);
  if (rc != 0) {
    if (pipe_fds[0] >= 0) ::close(pipe_fds[0]);
    return failed(rc, "");
  }
  return Subprocess(program, pid, pipe_fds[0], options.stop_grace);
}

Subprocess::Subprocess(std::string program, pid_t pid, int output_fd,
                       std::chrono::milliseconds stop_grace)
    : program_(std::move(program)),
      pid_(pid),
      output_fd_(output_fd),
      stop_grace_(stop_grace) {}

Subprocess::Subprocess(Subprocess&& other) noexcept
    : program_(std::move(other.program_)),
      pid_(std::exchange(other.pid_, -1)),
      output_fd_(std::exchange(other.output_fd_, -1)),
      stop_grace_(other.stop_grace_),
      output_(std::move(other.output_)),
      status_(other.status_) {}

Subprocess& Subprocess::operator=(Subprocess&& other) noexcept {
  if (this != &other) {
    Release();
    program_ = std::move(other.program_);
    pid_ = std::exchange(other.pid_, -1);
    output_fd_ = std::exchange(other.output_fd_, -1);
    stop_grace_ = other.stop_grace_;
    output_ = std::move(other.output_);
    status_ = other.status_;
  }
  return *this;
}

Subprocess::~Subprocess() { Release(); }

void Subprocess::Release() {
  CloseOutput();
  if (pid_ > 0) Stop();
}

void Subprocess::CloseOutput() {
  if (output_fd_ >= 0) ::close(output_fd_);
  output_fd_ = -1;
}

absl::StatusOr<Subprocess::ReadEnd> Subprocess::ReadOutput(
    Clock::time_point deadline,
    const std::function<bool(std::string_view)>& stop) {
  char buf[4096];
  while (output_fd_ >= 0) {
    if (stop && stop(output_)) return ReadEnd::kStopped;
    pollfd p{output_fd_, POLLIN, 0};
    const int ready = ::poll(&p, 1, MsUntil(deadline));
    if (ready < 0 && errno == EINTR) continue;
    if (ready < 0) {
      return absl::ErrnoToStatus(errno,
                                 absl::StrCat("'", program_, "' output: poll"));
    }
    if (ready == 0) return ReadEnd::kDeadline;
    const ssize_t n = ::read(output_fd_, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      return absl::ErrnoToStatus(errno,
                                 absl::StrCat("'", program_, "' output: read"));
    }
    if (n == 0) break;
    output_.append(buf, static_cast<size_t>(n));
  }
  if (stop && stop(output_)) return ReadEnd::kStopped;
  return ReadEnd::kEof;
}

absl::StatusOr<ExitStatus> Subprocess::Wait() {
  if (pid_ <= 0) return status_;
  // A child blocked on a full pipe would never exit: drain it first.
  absl::StatusOr<ReadEnd> read = ReadOutput(Clock::time_point::max());
  if (!read.ok()) return read.status();
  int status = 0;
  pid_t got = 0;
  while ((got = ::waitpid(pid_, &status, 0)) < 0 && errno == EINTR) {
  }
  if (got != pid_) {
    return absl::ErrnoToStatus(errno,
                               absl::StrCat("'", program_, "': waitpid"));
  }
  pid_ = -1;
  status_ = FromWaitStatus(status);
  return status_;
}

bool Subprocess::ExitsWithin(std::chrono::milliseconds timeout) {
  const Clock::time_point deadline = Clock::now() + timeout;
  // A pidfd turns readable when the process exits: no polling loop. Called
  // through syscall(2): glibc 2.36's <sys/pidfd.h> lacks C linkage for C++.
  if (const int fd = static_cast<int>(::syscall(SYS_pidfd_open, pid_, 0));
      fd >= 0) {
    pollfd p{fd, POLLIN, 0};
    int ready = 0;
    while ((ready = ::poll(&p, 1, MsUntil(deadline))) < 0 && errno == EINTR) {
    }
    ::close(fd);
    return ready > 0;
  }
  // Kernels without pidfd_open (before 5.3): ask without reaping.
  for (;;) {
    siginfo_t info{};
    if (::waitid(P_PID, static_cast<id_t>(pid_), &info,
                 WEXITED | WNOHANG | WNOWAIT) == 0 &&
        info.si_pid == pid_) {
      return true;
    }
    if (Clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

ExitStatus Subprocess::Reap() {
  int status = 0;
  pid_t got = 0;
  while ((got = ::waitpid(pid_, &status, 0)) < 0 && errno == EINTR) {
  }
  pid_ = -1;
  status_ = got > 0 ? FromWaitStatus(status) : ExitStatus{};
  return status_;
}

ExitStatus Subprocess::Stop() {
  if (pid_ <= 0) return status_;
  ::kill(pid_, SIGTERM);
  if (!ExitsWithin(stop_grace_)) ::kill(pid_, SIGKILL);
  return Reap();
}

ExitStatus Subprocess::Kill() {
  if (pid_ <= 0) return status_;
  ::kill(pid_, SIGKILL);
  return Reap();
}

}  // namespace perflab::core
