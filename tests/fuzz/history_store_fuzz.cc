// libFuzzer target: the history database reader on
// arbitrary bytes written as a database file. Opening, listing machines,
// loading every metric and finding the change points must give a value or a
// clean error: no crash, hang, leak or undefined behaviour.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>

#include "tools/history/changes.h"
#include "tools/history/store.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::string path =
      (std::filesystem::temp_directory_path() /
       ("perflab-history-fuzz-" + std::to_string(::getpid()) + ".sqlite"))
          .string();
  if (FILE* f = std::fopen(path.c_str(), "wb")) {
    std::fwrite(data, 1, size, f);
    std::fclose(f);
  }
  {
    // Closed before the files go: a database in WAL mode keeps its -wal and
    // -shm files while it is open.
    auto store = perflab::history::Store::Open(path, false);
    if (store.ok() && store->Machines().ok()) {
      for (const char* metric : {"real_time", "cpu_time", "instructions"}) {
        for (int64_t machine = 1; machine <= 2; ++machine) {
          auto h = store->Load(machine, metric);
          if (!h.ok()) continue;
          perflab::history::ChangesOptions o;
          o.metric = metric;
          o.detector.permutations = 19;  // keeps one input fast
          (void)perflab::history::FindChanges(*h, o);
        }
      }
    }
  }
  for (const char* suffix : {"", "-wal", "-shm", "-journal"}) {
    std::remove((path + suffix).c_str());
  }
  return 0;
}
