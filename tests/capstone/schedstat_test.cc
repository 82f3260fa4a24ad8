// The schedstat reader: lines parsed or refused, deltas summed over threads
// by hand, and this process's own threads read from /proc.
#include "tools/capstone/schedstat.h"

#include <unistd.h>

#include <atomic>
#include <thread>

#include "gtest/gtest.h"

namespace perflab::capstone {
namespace {

TEST(Schedstat, ParsesTheKernelsThreeNumbers) {
  absl::StatusOr<ThreadSched> t = ParseSchedstat("4019743 6373309 3\n");
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->cpu_ns, 4019743);
  EXPECT_EQ(t->wait_ns, 6373309);
  EXPECT_EQ(t->slices, 3);
}

TEST(Schedstat, RefusesOtherShapes) {
  for (const char* bad : {"", "1 2", "1 2 3 4", "1 -2 3", "1 x 3", "1  2 3"}) {
    absl::StatusOr<ThreadSched> t = ParseSchedstat(bad);
    ASSERT_FALSE(t.ok()) << bad;
    EXPECT_NE(t.status().message().find("accepted: three whole numbers"),
              std::string_view::npos)
        << t.status();
  }
}

TEST(Schedstat, DeltaSumsThreadsInBothAndCountsNewOnesWhole) {
  const std::map<pid_t, ThreadSched> before = {
      {10, {100, 50, 2}}, {11, {200, 0, 1}}, {12, {999, 999, 9}}};
  // 10 ran 30 more and waited 5 more over 1 slice; 11 did nothing; 12 exited
  // (left out); 13 was born (all of it counts).
  const std::map<pid_t, ThreadSched> after = {
      {10, {130, 55, 3}}, {11, {200, 0, 1}}, {13, {7, 4, 2}}};
  const ThreadSched d = SchedDelta(before, after);
  EXPECT_EQ(d.cpu_ns, 30 + 7);
  EXPECT_EQ(d.wait_ns, 5 + 4);
  EXPECT_EQ(d.slices, 1 + 2);
}

TEST(Schedstat, ReadsThisProcessesThreads) {
  std::atomic<bool> stop{false};
  std::thread other([&stop] {
    while (!stop.load()) std::this_thread::yield();
  });
  absl::StatusOr<std::map<pid_t, ThreadSched>> read = ReadSchedstat(getpid());
  stop = true;
  other.join();
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_GE(read->size(), 2u);  // this thread and the other
  EXPECT_TRUE(read->contains(gettid()));
}

TEST(Schedstat, AProcessThatIsGoneIsNotFound) {
  absl::StatusOr<std::map<pid_t, ThreadSched>> read = ReadSchedstat(-1);
  EXPECT_EQ(read.status().code(), absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace perflab::capstone
