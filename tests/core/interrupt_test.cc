// The interrupt cleanup in a death-test child: a SIGINT or SIGTERM removes
// what was registered (files, whole trees) and nothing else, stops every
// registered child's whole process group, and ends the process by the same
// signal. The spawner's side: each child leads its own group, and a child
// dies with its parent even when the parent is SIGKILLed. Every wait is on
// the child's own progress (a line it wrote, its exit seen through a pidfd),
// never on a wall-clock threshold.
#include "core/interrupt.h"

#include <poll.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "core/subprocess.h"
#include "gtest/gtest.h"

namespace perflab::core {
namespace {

namespace fs = std::filesystem;
constexpr auto kNever = std::chrono::steady_clock::time_point::max();

class InterruptTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<std::string> dir =
        MakeTempDir(TempDirBase() + "/perflab-interrupt-test-");
    ASSERT_TRUE(dir.ok()) << dir.status();
    dir_ = *dir;
    // Not for the death tests' cleanup to remove: the checks look inside.
    ForgetTempPath(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string Path(const std::string& name) const {
    return absl::StrCat(dir_, "/", name);
  }
  static void Touch(const std::string& path) { std::ofstream(path) << "x"; }

  std::string dir_;
};

// The number the file at `path` holds, or -1.
pid_t ReadPid(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  int pid = -1;
  return absl::SimpleAtoi(absl::StripAsciiWhitespace(text.str()), &pid) ? pid
                                                                        : -1;
}

// Waits (up to 30 s, a guard against a hang, not a threshold) for `pid`,
// not necessarily our child, to exit; true when it did.
bool WaitsForExit(pid_t pid) {
  const int fd = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
  if (fd < 0) return errno == ESRCH;
  pollfd p{fd, POLLIN, 0};
  int ready = 0;
  while ((ready = ::poll(&p, 1, 30'000)) < 0 && errno == EINTR) {
  }
  ::close(fd);
  return ready > 0;
}

// The processes of group `pgid` that still run (zombies have ended: their
// reaper, init for an orphan, collects them in its own time).
std::vector<pid_t> Running(pid_t pgid) {
  std::vector<pid_t> out;
  for (const fs::directory_entry& e : fs::directory_iterator("/proc")) {
    int pid = 0;
    if (!absl::SimpleAtoi(e.path().filename().string(), &pid)) continue;
    std::ifstream in(e.path() / "stat");
    std::string stat((std::istreambuf_iterator<char>(in)), {});
    const size_t close = stat.rfind(')');
    if (close == std::string::npos) continue;
    std::istringstream rest(stat.substr(close + 1));
    char state = 0;
    int ppid = 0, pgrp = 0;
    if (rest >> state >> ppid >> pgrp && pgrp == pgid && state != 'Z') {
      out.push_back(pid);
    }
  }
  return out;
}

// True once every process of group `pgid` has ended: each one seen
// running is waited for (a SIGKILL already sent takes effect when the
// process next runs), then the group is looked at again.
bool GroupEnds(pid_t pgid) {
  for (int round = 0; round < 10; ++round) {
    const std::vector<pid_t> left = Running(pgid);
    if (left.empty()) return true;
    for (pid_t pid : left) {
      if (!WaitsForExit(pid)) return false;
    }
  }
  return false;
}

TEST_F(InterruptTest, ASignalRemovesWhatIsRegisteredAndEndsByTheSameSignal) {
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
    SCOPED_TRACE(sig);
    const std::string file = Path("file.tmp");
    const std::string tree = Path("tree");
    const std::string kept = Path("kept");
    const std::string forgotten = Path("forgotten");
    EXPECT_EXIT(
        {
          // Not ignored, whatever ran the test (nohup would ignore SIGHUP).
          ::signal(SIGHUP, SIG_DFL);
          InstallInterruptCleanup();
          Touch(file);
          fs::create_directories(tree + "/a/b");
          Touch(tree + "/a/b/deep");
          Touch(tree + "/top");
          fs::create_symlink(kept, tree + "/link-to-kept");
          Touch(kept);
          Touch(forgotten);
          RegisterTempPath(file);
          RegisterTempPath(tree);
          RegisterTempPath(forgotten);
          ForgetTempPath(forgotten);
          ::raise(sig);
          std::_Exit(0);  // not reached: the signal ends the process
        },
        ::testing::KilledBySignal(sig), "");
    EXPECT_FALSE(fs::exists(file));
    EXPECT_FALSE(fs::exists(fs::symlink_status(tree)));
    // A link inside a removed tree goes, never what it points to.
    EXPECT_TRUE(fs::exists(kept));
    EXPECT_TRUE(fs::exists(forgotten));
    fs::remove(kept);
    fs::remove(forgotten);
  }
}

TEST_F(InterruptTest, ASignalStopsEveryChildsWholeGroupEvenOneIgnoringTerm) {
  const std::string polite = Path("polite.pid");
  const std::string stubborn = Path("stubborn.pid");
  EXPECT_EXIT(
      {
        InstallInterruptCleanup();
        // Each leaves a grandchild (sleep) in its group and says when it
        // is ready; the second ignores SIGTERM, so only SIGKILL ends it.
        auto a = Subprocess::Spawn(
            {"/bin/sh", "-c",
             absl::StrCat("echo $$ >", polite, "; sleep 1000 & echo ready; ",
                          "wait")},
            {.stdout_to = Output::kCapture});
        auto b = Subprocess::Spawn(
            {"/bin/sh", "-c",
             absl::StrCat("trap '' TERM; echo $$ >", stubborn,
                          "; sleep 1000 & echo ready; while :; do wait; "
                          "done")},
            {.stdout_to = Output::kCapture});
        if (!a.ok() || !b.ok()) std::_Exit(3);
        auto ready = [](std::string_view t) { return t == "ready\n"; };
        if (!a->ReadOutput(kNever, ready).ok()) std::_Exit(4);
        if (!b->ReadOutput(kNever, ready).ok()) std::_Exit(4);
        ::raise(SIGTERM);
        std::_Exit(0);
      },
      ::testing::KilledBySignal(SIGTERM), "");
  for (const std::string& file : {polite, stubborn}) {
    const pid_t pgid = ReadPid(file);
    ASSERT_GT(pgid, 0) << file;
    // The handler reaped the leader and SIGKILLed the group before exiting.
    EXPECT_TRUE(GroupEnds(pgid)) << file;
  }
}

// SIGTERM goes to the whole group first, so a grandchild may clean up before
// the SIGKILL: here the child ignores TERM and waits for its grandchild, which
// writes its mark on TERM and exits. Were only the child's pid signalled, the
// grandchild would see nothing but the SIGKILL after the grace, and no mark.
TEST_F(InterruptTest, AGrandchildGetsTheTermBeforeTheKill) {
  const std::string up = Path("grandchild.up");
  const std::string mark = Path("grandchild.term");
  EXPECT_EXIT(
      {
        InstallInterruptCleanup();
        auto child = Subprocess::Spawn(
            {"/bin/sh", "-c",
             absl::StrCat("sh -c 'trap \"echo term >", mark,
                          "; exit 0\" TERM; echo >", up,
                          "; while :; do sleep 0.05; done' & trap '' TERM; ",
                          "while [ ! -e ", up,
                          " ]; do sleep 0.01; done; echo ready; wait")},
            {.stdout_to = Output::kCapture});
        if (!child.ok()) std::_Exit(3);
        auto ready = [](std::string_view t) { return t == "ready\n"; };
        if (!child->ReadOutput(kNever, ready).ok()) std::_Exit(4);
        ::raise(SIGTERM);
        std::_Exit(0);
      },
      ::testing::KilledBySignal(SIGTERM), "");
  std::ifstream in(mark);
  std::string word;
  in >> word;
  EXPECT_EQ(word, "term");
}

TEST_F(InterruptTest, AChildDiesWithItsParentEvenWhenTheParentIsKilled) {
  const std::string pid_file = Path("orphan.pid");
  EXPECT_EXIT(
      {
        auto child = Subprocess::Spawn(
            {"/bin/sh", "-c",
             absl::StrCat("echo $$ >", pid_file, "; echo ready; exec sleep ",
                          "1000")},
            {.stdout_to = Output::kCapture});
        if (!child.ok()) std::_Exit(3);
        if (!child
                 ->ReadOutput(kNever,
                              [](std::string_view t) { return t == "ready\n"; })
                 .ok()) {
          std::_Exit(4);
        }
        ::raise(SIGKILL);  // no handler, no destructor runs
      },
      ::testing::KilledBySignal(SIGKILL), "");
  const pid_t pid = ReadPid(pid_file);
  ASSERT_GT(pid, 0);
  EXPECT_TRUE(WaitsForExit(pid));
}

TEST_F(InterruptTest, EachChildLeadsItsOwnProcessGroup) {
  auto child = Subprocess::Spawn({"/bin/sh", "-c", "echo ready; sleep 1000"},
                                 {.stdout_to = Output::kCapture});
  ASSERT_TRUE(child.ok()) << child.status();
  ASSERT_TRUE(child
                  ->ReadOutput(
                      kNever, [](std::string_view t) { return t == "ready\n"; })
                  .ok());
  const pid_t pid = child->pid();
  EXPECT_EQ(::getpgid(pid), pid);
  EXPECT_NE(::getpgid(pid), ::getpgrp());
  // Stop ends the group: the sleep the shell started goes with it.
  child->Stop();
  EXPECT_TRUE(GroupEnds(pid));
}

TEST_F(InterruptTest, TempFilesAndDirsAreMadeUnderTheirPrefixAndRemoved) {
  const std::string prefix = Path("perflab-x-");
  absl::StatusOr<std::string> file = MakeTempFile(prefix);
  absl::StatusOr<std::string> dir = MakeTempDir(prefix);
  ASSERT_TRUE(file.ok()) << file.status();
  ASSERT_TRUE(dir.ok()) << dir.status();
  EXPECT_NE(*file, *dir);
  EXPECT_TRUE(file->starts_with(prefix));
  EXPECT_EQ(file->size(), prefix.size() + 6);
  EXPECT_TRUE(fs::is_regular_file(*file));
  EXPECT_TRUE(fs::is_directory(*dir));
  Touch(*dir + "/inside");
  RemoveTempPath(*file);
  RemoveTempPath(*dir);
  EXPECT_FALSE(fs::exists(*file));
  EXPECT_FALSE(fs::exists(*dir));
}

TEST_F(InterruptTest, TempBaseIsTmpdirOrTmp) {
  const char* saved = std::getenv("TMPDIR");
  const std::string keep = saved != nullptr ? saved : "";
  ::setenv("TMPDIR", "/some/where", 1);
  EXPECT_EQ(TempDirBase(), "/some/where");
  ::setenv("TMPDIR", "", 1);
  EXPECT_EQ(TempDirBase(), "/tmp");
  ::unsetenv("TMPDIR");
  EXPECT_EQ(TempDirBase(), "/tmp");
  if (saved != nullptr) ::setenv("TMPDIR", keep.c_str(), 1);
}

}  // namespace
}  // namespace perflab::core
