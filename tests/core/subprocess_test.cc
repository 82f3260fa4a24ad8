// The spawner on /bin/sh one-liners: capture, exit codes, a missing program,
// CPU pinning, and children stopped and reaped by Stop and the destructor.
// Every wait is on the child's own progress (its output or its exit), never
// on a wall-clock threshold.
#include "core/subprocess.h"

#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"

namespace perflab::core {
namespace {

constexpr auto kNever = std::chrono::steady_clock::time_point::max();

// True when `pid` is neither running nor a zombie of ours: waitpid knows no
// such child and kill finds no such process.
bool Gone(pid_t pid) {
  errno = 0;
  const bool not_our_child =
      ::waitpid(pid, nullptr, WNOHANG) < 0 && errno == ECHILD;
  errno = 0;
  const bool no_process = ::kill(pid, 0) < 0 && errno == ESRCH;
  return not_our_child && no_process;
}

// True when `pid` (not necessarily our child) exits within 10 s: its pidfd
// turns readable on exit, zombie or not.
bool ExitsSoon(pid_t pid) {
  const int fd = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
  if (fd < 0) return errno == ESRCH;  // already gone and reaped
  pollfd p{fd, POLLIN, 0};
  int ready = 0;
  while ((ready = ::poll(&p, 1, 10'000)) < 0 && errno == EINTR) {
  }
  ::close(fd);
  return ready > 0;
}

// The first line `child` printed, as a process id.
pid_t ReadPid(Subprocess& child) {
  auto read = child.ReadOutput(kNever, [](std::string_view out) {
    return out.find('\n') != std::string_view::npos;
  });
  if (!read.ok()) return -1;
  return static_cast<pid_t>(std::stol(child.output()));
}

TEST(Subprocess, CapturesStdoutAndReturnsTheExitCode) {
  auto child = Subprocess::Spawn({"/bin/sh", "-c", "echo hi; exit 3"},
                                 {.stdout_to = Output::kCapture});
  ASSERT_TRUE(child.ok()) << child.status();
  absl::StatusOr<ExitStatus> status = child->Wait();
  ASSERT_TRUE(status.ok()) << status.status();
  EXPECT_EQ(child->output(), "hi\n");
  EXPECT_EQ(status->code, 3);
  EXPECT_EQ(status->signal, 0);
  EXPECT_FALSE(status->ok());
  EXPECT_EQ(status->ToString(), "exit code 3");
  EXPECT_EQ(child->pid(), -1);
  // Reaped once; asking again gives the same answer.
  absl::StatusOr<ExitStatus> again = child->Wait();
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->code, 3);
}

TEST(Subprocess, BothStreamsCapturedShareOnePipeInTheOrderWritten) {
  auto child = Subprocess::Spawn(
      {"/bin/sh", "-c", "echo out; echo err >&2; echo end"},
      {.stdout_to = Output::kCapture, .stderr_to = Output::kCapture});
  ASSERT_TRUE(child.ok()) << child.status();
  absl::StatusOr<ExitStatus> status = child->Wait();
  ASSERT_TRUE(status.ok()) << status.status();
  EXPECT_TRUE(status->ok());
  EXPECT_EQ(child->output(), "out\nerr\nend\n");
}

TEST(Subprocess, CapturesStderrAloneAndDiscardsStdout) {
  auto child = Subprocess::Spawn(
      {"/bin/sh", "-c", "echo out; echo err >&2"},
      {.stdout_to = Output::kDiscard, .stderr_to = Output::kCapture});
  ASSERT_TRUE(child.ok()) << child.status();
  ASSERT_TRUE(child->Wait().ok());
  EXPECT_EQ(child->output(), "err\n");
}

TEST(Subprocess, StdoutToStderrLandsOnThisProcesssStderr) {
  ::testing::internal::CaptureStderr();
  auto child = Subprocess::Spawn({"/bin/sh", "-c", "echo progress"},
                                 {.stdout_to = Output::kToStderr});
  absl::StatusOr<ExitStatus> status =
      child.ok() ? child->Wait() : child.status();
  const std::string err = ::testing::internal::GetCapturedStderr();
  ASSERT_TRUE(status.ok()) << status.status();
  EXPECT_EQ(err, "progress\n");
}

TEST(Subprocess, SearchesPathOnlyWhenAsked) {
  auto found = Subprocess::Spawn({"sh", "-c", "exit 0"}, {.search_path = true});
  ASSERT_TRUE(found.ok()) << found.status();
  absl::StatusOr<ExitStatus> status = found->Wait();
  ASSERT_TRUE(status.ok());
  EXPECT_TRUE(status->ok());
  // Without the search "sh" is a path relative to the working directory,
  // which holds no such file.
  auto relative = Subprocess::Spawn({"sh", "-c", "exit 0"});
  EXPECT_EQ(relative.status().code(), absl::StatusCode::kNotFound);
}

TEST(Subprocess, AMissingProgramIsANotFoundErrorNamingIt) {
  auto child = Subprocess::Spawn({"/nonexistent/perflab-no-such-program"});
  ASSERT_FALSE(child.ok());
  EXPECT_EQ(child.status().code(), absl::StatusCode::kNotFound);
  EXPECT_TRUE(absl::StrContains(child.status().message(),
                                "cannot start "
                                "'/nonexistent/perflab-no-such-program'"))
      << child.status();
  EXPECT_TRUE(
      absl::StrContains(child.status().message(), "No such file or directory"))
      << child.status();
  EXPECT_EQ(child.status().message().find('\n'), std::string::npos);
}

TEST(Subprocess, AnEmptyCommandLineIsInvalid) {
  EXPECT_EQ(Subprocess::Spawn({}).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(Subprocess, DestroyingTheHandleStopsAndReapsARunningChild) {
  pid_t pid = -1;
  {
    auto child = Subprocess::Spawn({"/bin/sleep", "100"});
    ASSERT_TRUE(child.ok()) << child.status();
    pid = child->pid();
    ASSERT_GT(pid, 0);
    errno = 0;
    ASSERT_EQ(::kill(pid, 0), 0);  // running
  }
  EXPECT_TRUE(Gone(pid));
}

TEST(Subprocess, StopEndsAChildWithSigterm) {
  auto child = Subprocess::Spawn({"/bin/sleep", "100"});
  ASSERT_TRUE(child.ok()) << child.status();
  const pid_t pid = child->pid();
  const ExitStatus s = child->Stop();
  EXPECT_EQ(s.signal, SIGTERM);
  EXPECT_EQ(s.code, -1);
  EXPECT_EQ(s.ToString(), "killed by SIGTERM");
  EXPECT_TRUE(Gone(pid));
}

TEST(Subprocess, StopFallsBackToSigkillWhenSigtermIsIgnored) {
  // The child says "ready" only once it ignores SIGTERM, so the signal
  // cannot arrive before the trap is set.
  auto child = Subprocess::Spawn(
      {"/bin/sh", "-c", "trap '' TERM; echo ready; exec sleep 100"},
      {.stdout_to = Output::kCapture,
       .stop_grace = std::chrono::milliseconds(0)});
  ASSERT_TRUE(child.ok()) << child.status();
  auto read = child->ReadOutput(
      kNever, [](std::string_view out) { return out == "ready\n"; });
  ASSERT_TRUE(read.ok()) << read.status();
  ASSERT_EQ(*read, Subprocess::ReadEnd::kStopped);
  const pid_t pid = child->pid();
  EXPECT_EQ(child->Stop().signal, SIGKILL);
  EXPECT_TRUE(Gone(pid));
}

TEST(Subprocess, ReadOutputStopsWhenAskedAndTheRestStaysUnread) {
  auto child = Subprocess::Spawn(
      {"/bin/sh", "-c", "echo 'listening on port 7' >&2; exec sleep 100"},
      {.stderr_to = Output::kCapture});
  ASSERT_TRUE(child.ok()) << child.status();
  auto read = child->ReadOutput(kNever, [](std::string_view out) {
    return out.find('\n') != std::string_view::npos;
  });
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_EQ(*read, Subprocess::ReadEnd::kStopped);
  EXPECT_EQ(child->output(), "listening on port 7\n");
  // A deadline already past returns at once: the child writes nothing more.
  auto more = child->ReadOutput(std::chrono::steady_clock::now());
  ASSERT_TRUE(more.ok());
  EXPECT_EQ(*more, Subprocess::ReadEnd::kDeadline);
  child->CloseOutput();
  auto closed = child->ReadOutput(kNever);
  ASSERT_TRUE(closed.ok());
  EXPECT_EQ(*closed, Subprocess::ReadEnd::kEof);
  EXPECT_EQ(child->Kill().signal, SIGKILL);
}

TEST(Subprocess, PinsTheChildAndRestoresTheCallersAffinity) {
  cpu_set_t before;
  ASSERT_EQ(::sched_getaffinity(0, sizeof before, &before), 0);
  int last = -1;
  for (int c = 0; c < CPU_SETSIZE; ++c) {
    if (CPU_ISSET(c, &before)) last = c;
  }
  ASSERT_GE(last, 0);
  // The kernel's own view of the child's CPUs, as a list ("3").
  auto child = Subprocess::Spawn(
      {"/bin/sh", "-c", "exec grep Cpus_allowed_list /proc/self/status"},
      {.stdout_to = Output::kCapture, .cpus = {last}});
  ASSERT_TRUE(child.ok()) << child.status();
  ASSERT_TRUE(child->Wait().ok());
  EXPECT_EQ(child->output(), absl::StrCat("Cpus_allowed_list:\t", last, "\n"));
  cpu_set_t after;
  ASSERT_EQ(::sched_getaffinity(0, sizeof after, &after), 0);
  EXPECT_TRUE(CPU_EQUAL(&before, &after));
}

TEST(Subprocess, AnOutOfRangeCpuIsInvalidAndNamesTheProgram) {
  auto child = Subprocess::Spawn({"/bin/true"}, {.cpus = {-1}});
  ASSERT_FALSE(child.ok());
  EXPECT_EQ(child.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(
      absl::StrContains(child.status().message(), "cannot start '/bin/true'"))
      << child.status();
}

TEST(Subprocess, AMovedHandleOwnsTheChild) {
  auto child = Subprocess::Spawn({"/bin/sleep", "100"});
  ASSERT_TRUE(child.ok()) << child.status();
  const pid_t pid = child->pid();
  Subprocess moved = std::move(*child);
  EXPECT_EQ(moved.pid(), pid);
  EXPECT_EQ(moved.Stop().signal, SIGTERM);
  EXPECT_TRUE(Gone(pid));
}

// What the child started ends with it: Stop signals the child's process
// group, not its pid alone, so a shell's background job goes too.
TEST(Subprocess, StopEndsWhatTheChildStartedToo) {
  auto child = Subprocess::Spawn({"/bin/sh", "-c", "sleep 100 & echo $!; wait"},
                                 {.stdout_to = Output::kCapture,
                                  .stop_grace = std::chrono::milliseconds(0)});
  ASSERT_TRUE(child.ok()) << child.status();
  const pid_t grandchild = ReadPid(*child);
  ASSERT_GT(grandchild, 0);
  child->Stop();
  const bool ended = ExitsSoon(grandchild);
  if (!ended) ::kill(grandchild, SIGKILL);
  EXPECT_TRUE(ended) << "the background sleep outlived Stop";
}

// A parent killed with SIGKILL (no cleanup can run) still takes its child
// with it: the child asked for PR_SET_PDEATHSIG before exec.
TEST(Subprocess, AChildDiesWithItsKilledParent) {
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  const pid_t parent = ::fork();
  ASSERT_GE(parent, 0);
  if (parent == 0) {
    ::close(fds[0]);
    auto child = Subprocess::Spawn({"/bin/sleep", "100"});
    const pid_t pid = child.ok() ? child->pid() : -1;
    if (::write(fds[1], &pid, sizeof pid) != sizeof pid) ::_exit(1);
    for (;;) ::pause();
  }
  ::close(fds[1]);
  pid_t grandchild = -1;
  const ssize_t n = ::read(fds[0], &grandchild, sizeof grandchild);
  ::close(fds[0]);
  ::kill(parent, SIGKILL);
  ::waitpid(parent, nullptr, 0);
  ASSERT_EQ(n, static_cast<ssize_t>(sizeof grandchild));
  ASSERT_GT(grandchild, 0);
  const bool ended = ExitsSoon(grandchild);
  if (!ended) ::kill(grandchild, SIGKILL);
  EXPECT_TRUE(ended) << "the child outlived its SIGKILLed parent";
}

}  // namespace
}  // namespace perflab::core
