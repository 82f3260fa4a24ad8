#include "core/input_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace perflab::core {
namespace {

absl::Status Refuse(absl::string_view what, const std::string& path,
                    absl::string_view why, size_t cap) {
  return absl::InvalidArgumentError(absl::StrCat(
      what, " '", path, "': ", why, "; accepted: a regular file of at most ",
      ByteSizeText(cap)));
}

// What a non-regular file is, in words.
const char* KindOf(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO (pipe)";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISCHR(mode) || S_ISBLK(mode)) return "a device";
  return "not a regular file";
}

// Reads `fd` to its end into `out`, at most cap + 1 bytes (one more than
// accepted tells that there was more). errno on failure, else 0.
int ReadBounded(int fd, size_t cap, std::string& out) {
  char chunk[64 * 1024];
  while (out.size() <= cap) {
    const size_t want = std::min(sizeof chunk, cap + 1 - out.size());
    const ssize_t n = ::read(fd, chunk, want);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno;
    if (n == 0) break;
    out.append(chunk, static_cast<size_t>(n));
  }
  return 0;
}

}  // namespace

std::string ByteSizeText(uint64_t bytes) {
  constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  int unit = 0;
  double v = static_cast<double>(bytes);
  while (v >= 1024 && unit < 5) {
    v /= 1024;
    ++unit;
  }
  if (unit == 0) return absl::StrCat(bytes, " B");
  return absl::StrFormat("%.3g %s", v, kUnits[unit]);
}

absl::StatusOr<std::string> ReadInputFile(absl::string_view what,
                                          const std::string& path,
                                          const InputFileOptions& options) {
  const size_t cap = options.max_bytes;
  std::string out;
  if (path == "-" && options.allow_stdin) {
    if (const int e = ReadBounded(STDIN_FILENO, cap, out); e != 0) {
      return Refuse(what, path,
                    absl::StrCat("cannot read stdin: ", std::strerror(e)), cap);
    }
    if (out.size() > cap) {
      return Refuse(what, path, "stdin holds more than that", cap);
    }
    return out;
  }
  if (path.empty()) return Refuse(what, path, "an empty path", cap);
  // O_NONBLOCK: a FIFO without a writer does not block the open; a regular
  // file reads the same either way.
  const int fd =
      ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  if (fd < 0) {
    return Refuse(what, path,
                  absl::StrCat("cannot open: ", std::strerror(errno)), cap);
  }
  struct stat st;
  absl::Status refused;
  if (::fstat(fd, &st) != 0) {
    refused =
        Refuse(what, path,
               absl::StrCat("cannot examine: ", std::strerror(errno)), cap);
  } else if (!S_ISREG(st.st_mode)) {
    refused = Refuse(what, path, KindOf(st.st_mode), cap);
  } else if (static_cast<uint64_t>(st.st_size) > cap) {
    refused =
        Refuse(what, path,
               absl::StrCat(ByteSizeText(static_cast<uint64_t>(st.st_size)),
                            ", larger than accepted"),
               cap);
  } else {
    out.reserve(static_cast<size_t>(st.st_size));
    if (const int e = ReadBounded(fd, cap, out); e != 0) {
      refused = Refuse(what, path,
                       absl::StrCat("cannot read: ", std::strerror(e)), cap);
    } else if (out.size() > cap) {
      refused = Refuse(what, path, "grew larger than accepted while read", cap);
    }
  }
  ::close(fd);
  if (!refused.ok()) return refused;
  return out;
}

}  // namespace perflab::core
