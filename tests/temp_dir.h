// A fresh directory for one test's files under $TMPDIR (or /tmp), removed
// with the object: a test leaves nothing behind (tools/lab test fails on
// what is left in the tests' TMPDIR), and two runs side by side never share
// a file name.
#ifndef PERFLAB_TESTS_TEMP_DIR_H_
#define PERFLAB_TESTS_TEMP_DIR_H_

#include <stdlib.h>

#include <filesystem>
#include <string>
#include <string_view>
#include <system_error>

#include "gtest/gtest.h"

namespace perflab::testing {

class TempDir {
 public:
  explicit TempDir(std::string_view prefix = "perflab-test")
      : path_((std::filesystem::temp_directory_path() /
               (std::string(prefix) + "-XXXXXX"))
                  .string()) {
    EXPECT_NE(::mkdtemp(path_.data()), nullptr) << path_;
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
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
