#include "core/subprocess.h"

#include <fcntl.h>
#include <linux/close_range.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/interrupt.h"

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

// The CPU set of `cpus`, checked before any child exists.
absl::StatusOr<cpu_set_t> CpuSet(const std::vector<int>& cpus) {
  cpu_set_t want;
  CPU_ZERO(&want);
  for (int c : cpus) {
    if (c < 0 || c >= CPU_SETSIZE) {
      return absl::InvalidArgumentError(
          absl::StrCat("CPU ", c, ": accepted 0..", CPU_SETSIZE - 1));
    }
    CPU_SET(c, &want);
  }
  return want;
}

// The files execve tries, in order: argv[0] itself, or with search_path and
// no slash in it, each directory of PATH (as execvp, but built before fork:
// between fork and exec the child may only make system calls).
std::vector<std::string> Candidates(const std::string& program, bool search) {
  if (!search || program.find('/') != std::string::npos) return {program};
  const char* path = std::getenv("PATH");
  std::string dirs = path != nullptr && *path != '\0' ? path : "/bin:/usr/bin";
  std::vector<std::string> out;
  size_t from = 0;
  for (;;) {
    const size_t to = dirs.find(':', from);
    std::string dir = dirs.substr(from, to - from);
    out.push_back(absl::StrCat(dir.empty() ? "." : dir, "/", program));
    if (to == std::string::npos) break;
    from = to + 1;
  }
  return out;
}

// Points the child's `fd` where `to` says; `pipe_fd` is the capture pipe's
// write end. In the forked child: system calls only.
bool Redirect(int fd, Output to, int pipe_fd) {
  switch (to) {
    case Output::kInherit:
      return true;
    case Output::kDiscard: {
      const int null = ::open("/dev/null", O_WRONLY);
      if (null < 0) return false;
      const bool ok = ::dup2(null, fd) >= 0;
      ::close(null);
      return ok;
    }
    case Output::kCapture:
      return ::dup2(pipe_fd, fd) >= 0;
    case Output::kToStderr:
      return fd == STDERR_FILENO || ::dup2(STDERR_FILENO, fd) >= 0;
  }
  return false;
}

// The forked child up to exec: its own process group (stopped as one, and
// kept from the terminal's Ctrl-C, which the parent's cleanup forwards),
// options.death_signal when the parent dies, default handlers and an empty
// signal mask, its streams and CPUs. On failure the errno goes to `error_fd`.
[[noreturn]] void ExecChild(const std::vector<char*>& files, char** args,
                            const SpawnOptions& options, int pipe_fd,
                            const cpu_set_t* cpus, pid_t parent, int error_fd) {
  int error = 0;
  ::setpgid(0, 0);
  ::prctl(PR_SET_PDEATHSIG, options.death_signal);
  if (::getppid() != parent) ::_exit(127);  // the parent died before prctl
  for (int sig = 1; sig < NSIG; ++sig) {
    struct sigaction sa {};
    if (::sigaction(sig, nullptr, &sa) == 0 && sa.sa_handler != SIG_DFL &&
        sa.sa_handler != SIG_IGN) {
      ::signal(sig, SIG_DFL);
    }
  }
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  // No descriptor of this process beyond the three streams reaches the
  // program (a pipe's write end held by a child would keep its reader from
  // ever seeing end of file). Best effort: kernels before 5.11 lack it.
  ::syscall(SYS_close_range, 3U, ~0U, CLOSE_RANGE_CLOEXEC);
  // In order: a stdout sent to stderr takes this process's stderr before
  // stderr itself is redirected.
  const bool ready =
      Redirect(STDOUT_FILENO, options.stdout_to, pipe_fd) &&
      Redirect(STDERR_FILENO, options.stderr_to, pipe_fd) &&
      (cpus == nullptr || ::sched_setaffinity(0, sizeof *cpus, cpus) == 0);
  if (!ready) {
    error = errno;
  } else {
    // As execvp: a file found but not runnable is the error to report.
    bool denied = false;
    error = ENOENT;
    for (char* file : files) {
      ::execve(file, args, environ);
      if (errno == EACCES) {
        denied = true;
      } else if (errno != ENOENT && errno != ENOTDIR) {
        error = errno;
        break;
      }
    }
    if (error == ENOENT && denied) error = EACCES;
  }
  ssize_t unused = ::write(error_fd, &error, sizeof error);
  (void)unused;
  ::_exit(127);
}

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
  absl::StatusOr<cpu_set_t> cpus = CpuSet(options.cpus);
  if (!cpus.ok()) {
    return absl::Status(cpus.status().code(),
                        absl::StrCat("cannot start '", program,
                                     "': ", cpus.status().message()));
  }
  int pipe_fds[2] = {-1, -1};
  int error_fds[2] = {-1, -1};
  auto close_all = [&] {
    for (int fd : {pipe_fds[0], pipe_fds[1], error_fds[0], error_fds[1]}) {
      if (fd >= 0) ::close(fd);
    }
  };
  if (options.stdout_to == Output::kCapture ||
      options.stderr_to == Output::kCapture) {
    // Close-on-exec: the child sees only the dup2'd copy, so the pipe ends
    // at end of file when the child exits.
    if (::pipe2(pipe_fds, O_CLOEXEC) != 0) return failed(errno, " (pipe)");
  }
  // Closed by a successful exec: end of file says the program started.
  if (::pipe2(error_fds, O_CLOEXEC) != 0) {
    const int error = errno;
    close_all();
    return failed(error, " (pipe)");
  }
  std::vector<std::string> candidates =
      Candidates(program, options.search_path);
  std::vector<char*> files;
  files.reserve(candidates.size());
  for (std::string& c : candidates) files.push_back(c.data());
  std::vector<char*> args;
  args.reserve(argv.size() + 1);
  for (std::string& a : argv) args.push_back(a.data());
  args.push_back(nullptr);
  const pid_t parent = ::getpid();
  // Every signal blocked from fork until the child is registered: neither
  // this process's interrupt cleanup nor its handlers run in the child, and
  // no interrupt falls between the fork and the registration.
  sigset_t all, saved;
  sigfillset(&all);
  ::pthread_sigmask(SIG_SETMASK, &all, &saved);
  const pid_t pid = ::fork();
  if (pid == 0) {
    ExecChild(files, args.data(), options, pipe_fds[1],
              options.cpus.empty() ? nullptr : &*cpus, parent, error_fds[1]);
  }
  const int fork_error = errno;
  if (pid > 0) {
    ::setpgid(pid, pid);  // also here: no race with the child's own call
    RegisterChild(pid);
    if (InterruptCleanupStarted()) ::kill(-pid, SIGKILL);
  }
  ::pthread_sigmask(SIG_SETMASK, &saved, nullptr);
  if (pid < 0) {
    close_all();
    return failed(fork_error, " (fork)");
  }
  ::close(pipe_fds[1]);
  pipe_fds[1] = -1;
  ::close(error_fds[1]);
  error_fds[1] = -1;
  int error = 0;
  ssize_t n = 0;
  while ((n = ::read(error_fds[0], &error, sizeof error)) < 0 &&
         errno == EINTR) {
  }
  if (n > 0) {
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    ForgetChild(pid);
    close_all();
    return failed(error, "");
  }
  ::close(error_fds[0]);
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
  ForgetChild(pid_);
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
  ForgetChild(pid_);
  pid_ = -1;
  status_ = got > 0 ? FromWaitStatus(status) : ExitStatus{};
  return status_;
}

ExitStatus Subprocess::Stop() {
  if (pid_ <= 0) return status_;
  // The whole group: what the child started stops with it. The SIGKILL to
  // the group comes before the reap, while the exited child's id (the
  // group's) cannot be reused, and ends what outlived the child.
  ::kill(-pid_, SIGTERM);
  ExitsWithin(stop_grace_);
  ::kill(-pid_, SIGKILL);
  return Reap();
}

ExitStatus Subprocess::Kill() {
  if (pid_ <= 0) return status_;
  ::kill(-pid_, SIGKILL);
  return Reap();
}

}  // namespace perflab::core
