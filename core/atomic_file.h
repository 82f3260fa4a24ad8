// Writing output files so that nothing is ever half-written: the content goes
// to a temporary file beside the target, is flushed, then renamed over it.
#ifndef PERFLAB_CORE_ATOMIC_FILE_H_
#define PERFLAB_CORE_ATOMIC_FILE_H_

#include <string>
#include <string_view>

#include "absl/status/status.h"

namespace perflab::core {

// Atomically replaces `path` with `content` (temp file + rename). Creates
// missing parent directories. Errors name the path and the OS reason.
absl::Status WriteFileAtomic(const std::string& path, std::string_view content);

}  // namespace perflab::core

#endif  // PERFLAB_CORE_ATOMIC_FILE_H_
