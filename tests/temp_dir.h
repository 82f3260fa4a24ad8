// A fresh directory for one test's files under $TMPDIR (or /tmp), removed
// with the object: a test leaves nothing behind (tools/lab test fails on
// what is left in the tests' TMPDIR), and two runs side by side never share
// a file name.
#ifndef PERFLAB_TESTS_TEMP_DIR_H_
#define PERFLAB_TESTS_TEMP_DIR_H_

#include <string>
#include <string_view>
#include <utility>

#include "absl/status/statusor.h"
#include "core/interrupt.h"
#include "gtest/gtest.h"

namespace perflab::testing {

// Made by core::MakeTempDir, so an interrupted test run removes it too.
class TempDir {
 public:
  explicit TempDir(std::string_view prefix = "perflab-test") {
    absl::StatusOr<std::string> made = core::MakeTempDir(
        core::TempDirBase() + "/" + std::string(prefix) + "-");
    EXPECT_TRUE(made.ok()) << made.status();
    if (made.ok()) path_ = *std::move(made);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  ~TempDir() {
    if (!path_.empty()) core::RemoveTempPath(path_);
  }
  const std::string& path() const { return path_; }
  // The path of `name` inside it.
  std::string File(std::string_view name) const {
    return path_ + "/" + std::string(name);
  }

 private:
  std::string path_;
};

}  // namespace perflab::testing

#endif  // PERFLAB_TESTS_TEMP_DIR_H_
