// libFuzzer target: the Google Benchmark JSON reader, and the comparison it
// feeds, on arbitrary bytes. Any input must give a value or a clean
// InvalidArgument: no crash, hang, leak or undefined behaviour.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "tools/compare/compare.h"
#include "tools/compare/gbench_json.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  for (std::string_view metric :
       {"real_time", "cpu_time", "items_per_second"}) {
    auto samples = perflab::compare::ParseGbenchJson(text, metric);
    if (!samples.ok()) continue;
    perflab::compare::Options options;
    options.metric = std::string(metric);
    // Against itself: every benchmark is shared, so medians, the U test and
    // the geometric mean all run on the fuzzed numbers.
    auto result = perflab::compare::Compare(*samples, *samples, options);
    if (result.ok()) (void)perflab::compare::ToDocument(*result, options);
  }
  return 0;
}
