// Writing output files so that nothing is ever half-written and nothing that
// is not ours is ever overwritten: the content goes to a temporary file
// created exclusively (O_CREAT | O_EXCL | O_NOFOLLOW, a random name) beside
// the destination, is flushed, then renamed over it.
//
// A destination is accepted when it does not exist yet or is a regular file.
// Anything else is refused with one line and left as it is: a directory, a
// device (/dev/null), a FIFO, a socket, and a symbolic link of any kind
// (/dev/stdout included) -- renaming over a link would replace the link,
// and writing through it would change a file elsewhere. The empty path and
// "-" are refused too: a caller that means stdout handles "-" itself.
//
// A temporary name is the destination's + ".tmp." + 16 hex digits, its
// last component shortened when needed so that any destination name up to
// NAME_MAX (255 bytes) can be written.
//
// Every function here is thread-safe: temporary names never collide, and
// nothing is shared between calls.
#ifndef PERFLAB_CORE_ATOMIC_FILE_H_
#define PERFLAB_CORE_ATOMIC_FILE_H_

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace perflab::core {

// Atomically replaces `path` with `content` (temp file + rename). Creates
// missing parent directories. InvalidArgument names the path and the reason
// (a refused destination, or the OS error).
absl::Status WriteFileAtomic(const std::string& path, std::string_view content);

// One member of a set of files written together.
struct FileContent {
  std::string path;
  std::string content;
};

// Writes every file of `files` as a set: all destinations are checked and
// all temporary files written first; only then is each renamed over its
// destination. On any failure no destination changes: a failed rename puts
// back what the earlier ones replaced (kept as hard links until the set is
// complete). Paths must be distinct.
absl::Status WriteFilesAtomic(const std::vector<FileContent>& files);

// Creates an empty file beside `path`, exclusively and never through a
// symbolic link, named `path` + ".tmp." + 16 random hex digits (the last
// component shortened to fit NAME_MAX), and returns
// its name, for writers that fill the file themselves (SQLite) and then
// rename it over `path` or remove it.
absl::StatusOr<std::string> CreateTempFileBeside(const std::string& path);

// A cheap check, made before long work, that WriteFileAtomic(path, ...)
// would be accepted: the path is not refused (see above), and the nearest
// existing ancestor directory takes a new file (probed by creating and
// removing one, so read-only file systems are seen even by root). Creates
// nothing that stays.
absl::Status CheckWritable(const std::string& path);

}  // namespace perflab::core

#endif  // PERFLAB_CORE_ATOMIC_FILE_H_
