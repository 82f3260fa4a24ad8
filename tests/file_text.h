// A whole file's bytes, for tests that compare what a command wrote, or read
// a committed fixture. A missing file reads as "", which the comparison
// beside it then fails on.
#ifndef PERFLAB_TESTS_FILE_TEXT_H_
#define PERFLAB_TESTS_FILE_TEXT_H_

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace perflab::testing {

inline std::string FileText(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace perflab::testing

#endif  // PERFLAB_TESTS_FILE_TEXT_H_
