#include "core/atomic_file.h"

#include <fcntl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/interrupt.h"

namespace perflab::core {
namespace {

namespace fs = std::filesystem;

absl::Status CannotWrite(const std::string& path, absl::string_view reason) {
  return absl::InvalidArgumentError(
      absl::StrCat(path, ": cannot write: ", reason));
}

absl::Status Refused(const std::string& path, absl::string_view what) {
  return absl::InvalidArgumentError(
      absl::StrCat(path, ": ", what,
                   ", not written; accepted: a new path or a regular file"));
}

// OK when `path` may be replaced: it does not exist, or it is a regular
// file. lstat, not stat: a symbolic link is judged as itself.
absl::Status CheckDestination(const std::string& path) {
  if (path.empty()) {
    return absl::InvalidArgumentError(
        "output path is empty; accepted: a file path");
  }
  if (path == "-") {
    return absl::InvalidArgumentError(
        "output path '-' is not a file here; accepted: a file path (the "
        "output goes to stdout when no file is given)");
  }
  struct stat st;
  if (::lstat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) return absl::OkStatus();
    return CannotWrite(path, std::strerror(errno));
  }
  if (S_ISREG(st.st_mode)) return absl::OkStatus();
  if (S_ISLNK(st.st_mode)) return Refused(path, "a symbolic link");
  if (S_ISDIR(st.st_mode)) return Refused(path, "a directory");
  if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode)) {
    return Refused(path, "a device");
  }
  return Refused(path, "not a regular file (a FIFO or a socket)");
}

// The start of a name beside `path`: `path` + `tag` (".tmp.", ".old."), to
// which 16 hex digits are added. The last component is shortened so that
// the whole stays within NAME_MAX: an output name up to the file system's
// limit still gets a temporary beside it.
std::string NameBeside(const std::string& path, absl::string_view tag) {
  const size_t slash = path.rfind('/');
  const size_t base_at = slash == std::string::npos ? 0 : slash + 1;
  const size_t room = NAME_MAX - tag.size() - 16;
  std::string out = path;
  if (out.size() - base_at > room) out.resize(base_at + room);
  return absl::StrCat(out, tag);
}

// 64 unpredictable bits for temporary names; O_EXCL, not the name, is what
// makes creation safe, so a weak fallback only costs retries.
uint64_t RandomBits() {
  uint64_t v = 0;
  if (::getrandom(&v, sizeof v, 0) == sizeof v) return v;
  static std::atomic<uint64_t> counter{0};
  return static_cast<uint64_t>(
             std::chrono::steady_clock::now().time_since_epoch().count()) ^
         (static_cast<uint64_t>(::getpid()) << 32) ^ counter++;
}

// Creates `prefix` + 16 random hex digits exclusively, never through a
// symbolic link; mode 0666 less the umask, as fopen would give. The name is
// registered with the interrupt cleanup until Discard or a rename forgets it.
int CreateExclusive(const std::string& prefix, std::string* name) {
  ScopedInterruptBlock block;  // created and registered, or neither
  for (int attempt = 0; attempt < 100; ++attempt) {
    *name = absl::StrCat(prefix, absl::StrFormat("%016x", RandomBits()));
    int fd = ::open(name->c_str(),
                    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (fd >= 0) RegisterTempPath(*name);
    if (fd >= 0 || errno != EEXIST) return fd;
  }
  errno = EEXIST;
  return -1;
}

// Removes a temporary file and forgets it.
void Discard(const std::string& tmp) {
  ::unlink(tmp.c_str());
  ForgetTempPath(tmp);
}

absl::Status CreateParent(const std::string& path) {
  fs::path target(path);
  if (!target.has_parent_path()) return absl::OkStatus();
  std::error_code ec;
  fs::create_directories(target.parent_path(), ec);
  if (ec) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": cannot create directory: ", ec.message()));
  }
  return absl::OkStatus();
}

// Writes `content` to a fresh temporary file beside `path`; its name goes to
// `*tmp` (removed again on failure).
absl::Status WriteTemp(const std::string& path, std::string_view content,
                       std::string* tmp) {
  int fd = CreateExclusive(NameBeside(path, ".tmp."), tmp);
  if (fd < 0) return CannotWrite(path, std::strerror(errno));
  const char* p = content.data();
  size_t left = content.size();
  int error = 0;
  while (left > 0) {
    ssize_t n = ::write(fd, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      error = n < 0 ? errno : EIO;
      break;
    }
    p += n;
    left -= static_cast<size_t>(n);
  }
  if (::close(fd) != 0 && error == 0) error = errno;
  if (error != 0) {
    Discard(*tmp);
    return CannotWrite(path, std::strerror(error));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status WriteFileAtomic(const std::string& path,
                             std::string_view content) {
  if (absl::Status s = CheckDestination(path); !s.ok()) return s;
  if (absl::Status s = CreateParent(path); !s.ok()) return s;
  std::string tmp;
  if (absl::Status s = WriteTemp(path, content, &tmp); !s.ok()) return s;
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::string reason = std::strerror(errno);
    Discard(tmp);
    return CannotWrite(path, reason);
  }
  ForgetTempPath(tmp);
  return absl::OkStatus();
}

absl::Status WriteFilesAtomic(const std::vector<FileContent>& files) {
  std::set<std::string> seen;
  for (const FileContent& f : files) {
    if (absl::Status s = CheckDestination(f.path); !s.ok()) return s;
    if (!seen.insert(f.path).second) {
      return absl::InvalidArgumentError(
          absl::StrCat(f.path, ": given twice in one set of files"));
    }
  }
  std::vector<std::string> tmps, backups(files.size());
  std::vector<bool> existed(files.size());
  auto remove_all = [](const std::vector<std::string>& names) {
    for (const std::string& n : names) {
      if (!n.empty()) Discard(n);
    }
  };
  for (const FileContent& f : files) {
    absl::Status s = CreateParent(f.path);
    std::string tmp;
    if (s.ok()) s = WriteTemp(f.path, f.content, &tmp);
    if (!s.ok()) {
      remove_all(tmps);
      return s;
    }
    tmps.push_back(std::move(tmp));
  }
  // The links and renames below happen with interrupts held back: an
  // interrupt then sees the old set or the new one, never a mix.
  ScopedInterruptBlock block;
  // A hard link keeps each replaced file until the whole set is in place.
  // Where links are not supported the file is replaced without one (the
  // set is then all-or-nothing only for the checks above).
  for (size_t i = 0; i < files.size(); ++i) {
    struct stat st;
    existed[i] = ::lstat(files[i].path.c_str(), &st) == 0;
    if (!existed[i]) continue;
    const std::string prefix = NameBeside(files[i].path, ".old.");
    for (int attempt = 0; attempt < 100; ++attempt) {
      std::string name =
          absl::StrCat(prefix, absl::StrFormat("%016x", RandomBits()));
      if (::link(files[i].path.c_str(), name.c_str()) == 0) {
        backups[i] = std::move(name);
        break;
      }
      if (errno != EEXIST) break;  // no hard links on this file system
    }
  }
  for (size_t i = 0; i < files.size(); ++i) {
    if (std::rename(tmps[i].c_str(), files[i].path.c_str()) == 0) {
      ForgetTempPath(tmps[i]);
      continue;
    }
    const std::string reason = std::strerror(errno);
    for (size_t j = 0; j < i; ++j) {  // put back what was replaced
      if (!backups[j].empty()) {
        std::rename(backups[j].c_str(), files[j].path.c_str());
        backups[j].clear();
      } else if (!existed[j]) {
        ::unlink(files[j].path.c_str());
      }
    }
    remove_all(std::vector<std::string>(tmps.begin() + i, tmps.end()));
    remove_all(backups);
    return CannotWrite(files[i].path, reason);
  }
  remove_all(backups);
  return absl::OkStatus();
}

absl::StatusOr<std::string> CreateTempFileBeside(const std::string& path) {
  std::string name;
  int fd = CreateExclusive(NameBeside(path, ".tmp."), &name);
  if (fd < 0) return CannotWrite(path, std::strerror(errno));
  ::close(fd);
  return name;
}

absl::Status CheckWritable(const std::string& path) {
  if (absl::Status s = CheckDestination(path); !s.ok()) return s;
  // The nearest ancestor that exists is where a file (or the first missing
  // directory) would be created.
  fs::path dir = fs::path(path).parent_path();
  std::error_code ec;
  while (!dir.empty() && !fs::exists(fs::symlink_status(dir, ec))) {
    dir = dir.parent_path();
  }
  if (dir.empty()) dir = ".";
  if (!fs::is_directory(dir, ec)) {
    return CannotWrite(path, absl::StrCat("'", dir.string(),
                                          "' exists and is not a directory"));
  }
  std::string probe;
  int fd = CreateExclusive((dir / ".perflab-write-check.").string(), &probe);
  if (fd < 0) {
    return CannotWrite(path,
                       absl::StrCat("cannot create a file in '", dir.string(),
                                    "': ", std::strerror(errno)));
  }
  ::close(fd);
  Discard(probe);
  return absl::OkStatus();
}

}  // namespace perflab::core
