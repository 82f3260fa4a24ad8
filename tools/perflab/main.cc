// perflab: the command-line entry point. All logic lives in cli.cc and the
// command families so it can be tested in-process.
#include <fcntl.h>
#include <malloc.h>

#include <cerrno>
#include <csignal>
#include <iostream>

#include "tools/perflab/entry.h"

namespace {

// Whether standard stream `fd` was closed; a closed one is reopened on
// /dev/null first, so that no file perflab opens later takes its number
// (a table meant for stdout would land in a temporary file).
bool ReopenIfClosed(int fd) {
  if (::fcntl(fd, F_GETFD) != -1 || errno != EBADF) return false;
  // The lowest free number: fd itself, as every lower one is open.
  (void)::open("/dev/null", O_RDWR);
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  // A capstone or a sweep runs one simulation after another, each growing
  // buffers of a few hundred KiB (its latency samples, its histogram) and
  // freeing them at its end. Under glibc's defaults such blocks go back to
  // the kernel (mapped apart past 128 KiB; the heap's top trimmed past
  // 128 KiB free), so every run faulted the same memory in again (measured
  // in sim/README.md, "Memory kept between runs"). Kept up to 16 MiB free
  // instead; a block of 32 MiB or more is still mapped apart and given back
  // whole.
  (void)mallopt(M_MMAP_THRESHOLD, 32 << 20);
  (void)mallopt(M_TRIM_THRESHOLD, 16 << 20);
  // A file past the size limit (ulimit -f) is then a write error, which the
  // writers report and clean up after, not a SIGXFSZ that kills the process
  // and leaves its temporary file.
  std::signal(SIGXFSZ, SIG_IGN);
  ReopenIfClosed(0);
  const bool stdout_closed = ReopenIfClosed(1);
  ReopenIfClosed(2);
  if (stdout_closed) {
    std::cerr << "perflab: stdout is closed; accepted: an open stdout "
                 "(>/dev/null to discard the output)\n";
    return 2;
  }
  return perflab::cli::Main(argc, argv, std::cout, std::cerr);
}
