// Reading a file perflab was given as input, bounded: what a command reads
// is never larger than a stated cap, and never something that is not a file.
//
// A path names a regular file. A directory, a FIFO, a socket or a device
// (/dev/zero, /dev/urandom, /dev/stdin when it is a pipe) is refused at once,
// before any byte is read: opened with O_NONBLOCK, so even a FIFO without a
// writer does not block the open, then judged by fstat. A regular file
// larger than the cap is refused from its size, without reading it; one that
// grows past the cap while being read is refused too. "-" is stdin only for
// the readers that say so in their help (allow_stdin), read up to the same
// cap.
//
// Every refusal is one line: "<what> '<path>': <why>; accepted: a regular
// file of at most <cap>" (the cap as "64 MiB").
//
// Stateless and thread-safe.
#ifndef PERFLAB_CORE_INPUT_FILE_H_
#define PERFLAB_CORE_INPUT_FILE_H_

#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace perflab::core {

// The caps the readers use: a JSON document (a calibration, a benchmark
// file, a result) and a list of numbers; a sweep partial holds one line per
// run and gets more room.
inline constexpr size_t kMaxJsonInputBytes = size_t{64} << 20;
inline constexpr size_t kMaxNumbersInputBytes = size_t{64} << 20;
inline constexpr size_t kMaxPartialInputBytes = size_t{512} << 20;

struct InputFileOptions {
  size_t max_bytes = kMaxJsonInputBytes;
  bool allow_stdin = false;  // "-" reads stdin
};

// The whole content of `path`. `what` names the input in messages ("--input",
// "part"). InvalidArgument for every refusal above and for a file that
// cannot be opened or read (with the OS reason).
absl::StatusOr<std::string> ReadInputFile(absl::string_view what,
                                          const std::string& path,
                                          const InputFileOptions& options = {});

// A byte count as the messages print it: "512 B", "64 MiB", "1.5 GiB".
std::string ByteSizeText(uint64_t bytes);

}  // namespace perflab::core

#endif  // PERFLAB_CORE_INPUT_FILE_H_
