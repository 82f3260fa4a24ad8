// ParallelFor: every task runs once, results land by index whatever the
// number of workers, and the error is always the lowest failing index's.
// StartThread: a thread the system refuses is one line, not an exception.
#include "core/parallel.h"

#include <grp.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"

#if defined(__SANITIZE_THREAD__)
#define PERFLAB_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define PERFLAB_TSAN 1
#endif
#endif

namespace perflab::core {
namespace {

TEST(ParallelFor, EveryTaskOnceResultsByIndexForAnyJobs) {
  for (int jobs : {1, 2, 7}) {
    std::vector<int64_t> out(1000, -1);
    std::atomic<int64_t> calls{0};
    int64_t last_done = 0;
    absl::Status s = ParallelFor(
        1000, jobs,
        [&](int64_t i) {
          ++calls;
          out[static_cast<size_t>(i)] = i * i;
          return absl::OkStatus();
        },
        [&](int64_t done) { last_done = done; });
    ASSERT_TRUE(s.ok()) << s;
    EXPECT_EQ(calls.load(), 1000) << "jobs " << jobs;
    EXPECT_EQ(last_done, 1000);
    for (int64_t i = 0; i < 1000; ++i) ASSERT_EQ(out[i], i * i) << i;
  }
}

TEST(ParallelFor, TheLowestFailingIndexIsTheError) {
  for (int jobs : {1, 2, 7}) {
    absl::Status s = ParallelFor(200, jobs, [](int64_t i) {
      if (i == 37 || i == 150) {
        return absl::InvalidArgumentError(absl::StrCat("task ", i));
      }
      return absl::OkStatus();
    });
    EXPECT_EQ(s.message(), "task 37") << "jobs " << jobs;
  }
}

TEST(ParallelFor, WorkerCountNeverExceedsTheTasks) {
  EXPECT_EQ(WorkerCount(8, 3), 3);
  EXPECT_EQ(WorkerCount(2, 100), 2);
  EXPECT_GE(WorkerCount(0, 100), 1);
  EXPECT_EQ(WorkerCount(4, 0), 1);
}

TEST(StartThread, RunsTheBody) {
  std::atomic<int> ran{0};
  absl::StatusOr<std::thread> t = StartThread("a thread", [&] { ran = 7; });
  ASSERT_TRUE(t.ok()) << t.status();
  t->join();
  EXPECT_EQ(ran.load(), 7);
}

// A user id above the system's that owns no process now.
uid_t FreeUid() {
  std::set<uid_t> used;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator("/proc", ec)) {
    struct stat st {};
    if (::stat(e.path().c_str(), &st) == 0) used.insert(st.st_uid);
  }
  uid_t uid = 200000 + static_cast<uid_t>(::getpid() % 100000);
  while (used.count(uid) != 0) ++uid;
  return uid;
}

// What the child of RefusedIsOneLine reports by its exit code.
enum ChildExit {
  kRefused = 0,
  kWrongError = 1,
  kNoLimit = 3,
  kStarted = 4,
  kThrew = 5
};

// Run in a forked child: the process may start no thread besides its main
// one (RLIMIT_NPROC of 1; root ignores the limit, so as root the child first
// becomes a user that owns no other process). The message goes to `fd`.
[[noreturn]] void StartUnderNoThreadLimit(int fd, uid_t uid) {
  if (::geteuid() == 0 && (::setgroups(0, nullptr) != 0 || ::setgid(uid) != 0 ||
                           ::setuid(uid) != 0)) {
    ::_exit(kNoLimit);
  }
  const rlimit one{1, 1};
  if (::setrlimit(RLIMIT_NPROC, &one) != 0) ::_exit(kNoLimit);
  absl::StatusOr<std::thread> t = StartThread("the test's thread", [] {});
  if (t.ok()) {
    t->join();
    ::_exit(kStarted);
  }
  const std::string m(t.status().message());
  if (::write(fd, m.data(), m.size()) != static_cast<ssize_t>(m.size())) {
    ::_exit(kWrongError);
  }
  ::_exit(absl::IsInvalidArgument(t.status()) ? kRefused : kWrongError);
}

TEST(StartThread, ARefusedThreadIsOneLineNotAnException) {
#ifdef PERFLAB_TSAN
  GTEST_SKIP() << "ThreadSanitizer refuses threads started after a fork";
#endif
  const uid_t uid = FreeUid();
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    ::close(fds[0]);
    // The child never returns into the test runner, whatever it meets.
    try {
      StartUnderNoThreadLimit(fds[1], uid);
    } catch (...) {
      ::_exit(kThrew);
    }
  }
  ::close(fds[1]);
  std::string message;
  char buf[512];
  for (ssize_t n; (n = ::read(fds[0], buf, sizeof buf)) > 0;) {
    message.append(buf, static_cast<size_t>(n));
  }
  ::close(fds[0]);
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status))
      << "child ended by signal "
      << (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
  if (WEXITSTATUS(status) == kNoLimit || WEXITSTATUS(status) == kStarted) {
    GTEST_SKIP() << "this system does not hold the child to RLIMIT_NPROC";
  }
  EXPECT_NE(WEXITSTATUS(status), kThrew) << "the refusal was an exception";
  EXPECT_EQ(WEXITSTATUS(status), kRefused) << message;
  EXPECT_TRUE(absl::StartsWith(message, "cannot start the test's thread: "))
      << message;
  EXPECT_TRUE(absl::StrContains(
      message, "; accepted: a process limit (ulimit -u) and memory"))
      << message;
  EXPECT_EQ(message.find('\n'), std::string::npos) << message;
}

}  // namespace
}  // namespace perflab::core
