#include "core/atomic_file.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "absl/strings/str_cat.h"

namespace perflab::core {

absl::Status WriteFileAtomic(const std::string& path,
                             std::string_view content) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path target(path);
  if (target.has_parent_path()) {
    fs::create_directories(target.parent_path(), ec);
    if (ec) {
      return absl::InvalidArgumentError(
          absl::StrCat(path, ": cannot create directory: ", ec.message()));
    }
  }
  // The pid keeps two concurrent writers from sharing one temporary file.
  std::string tmp = absl::StrCat(path, ".tmp.", getpid());
  FILE* f = std::fopen(tmp.c_str(), "wb");
  if (f == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": cannot write: ", std::strerror(errno)));
  }
  bool ok = std::fwrite(content.data(), 1, content.size(), f) == content.size();
  ok = (std::fflush(f) == 0) && ok;
  ok = (std::fclose(f) == 0) && ok;
  if (!ok || std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::string reason = std::strerror(errno);
    std::remove(tmp.c_str());
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": cannot write: ", reason));
  }
  return absl::OkStatus();
}

}  // namespace perflab::core
