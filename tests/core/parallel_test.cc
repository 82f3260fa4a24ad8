// ParallelFor: every task runs once, results land by index whatever the
// number of workers, and the error is always the lowest failing index's.
#include "core/parallel.h"

#include <atomic>
#include <cstdint>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"

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

}  // namespace
}  // namespace perflab::core
