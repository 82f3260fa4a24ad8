// libFuzzer target: the calibration reader on arbitrary bytes. Any input
// must give a calibration or a clean one-line InvalidArgument: no crash,
// hang, leak or undefined behaviour; what parses must write back and parse
// again to the same values.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "tools/calibration/calibration_io.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto file = perflab::capstone::ParseCalibration(text);
  if (!file.ok()) {
    if (file.status().message().find('\n') != std::string_view::npos) {
      std::abort();  // errors are one line
    }
    return 0;
  }
  auto again = perflab::capstone::ParseCalibration(
      perflab::capstone::WriteCalibration(*file));
  if (!again.ok()) std::abort();
  for (const auto& f : perflab::sim::CalibrationFields()) {
    if (again->values.*f.member != file->values.*f.member) std::abort();
  }
  return 0;
}
