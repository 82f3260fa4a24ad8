// A small order database shared by the tests of one binary: built once per
// process in the test temp directory (scale 0.02: 100 customers, 4,000 orders).
// Every path TempPath names is removed when the process exits: ctest runs
// each test in a process of its own, and each would otherwise leave a 600 KB
// copy behind.
#ifndef PERFLAB_TESTS_LAB_TEST_DB_H_
#define PERFLAB_TESTS_LAB_TEST_DB_H_

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "bench/order_service/dataset.h"
#include "gtest/gtest.h"

namespace perflab::orders::testing {

inline constexpr double kTestScale = 0.02;

inline std::string TempPath(const std::string& name) {
  static std::mutex mu;
  static auto* paths = new std::vector<std::string>;
  std::string path = absl::StrCat(::testing::TempDir(), "perflab_orders_",
                                  ::getpid(), "_", name);
  std::lock_guard<std::mutex> lock(mu);
  if (paths->empty()) {
    std::atexit([] {
      std::lock_guard<std::mutex> inner(mu);
      for (const std::string& p : *paths) std::remove(p.c_str());
    });
  }
  paths->push_back(path);
  return path;
}

inline const std::string& SmallDatabase() {
  static const std::string* path = [] {
    auto* p = new std::string(TempPath("small.sqlite"));
    auto built = BuildDataset(*p, DatasetOptions{.scale = kTestScale});
    EXPECT_TRUE(built.ok()) << built.status();
    return p;
  }();
  return *path;
}

}  // namespace perflab::orders::testing

#endif  // PERFLAB_TESTS_LAB_TEST_DB_H_
