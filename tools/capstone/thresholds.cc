#include "tools/capstone/thresholds.h"

#include "absl/strings/str_format.h"

namespace perflab::capstone {

std::string ThresholdsJson() {
  return absl::StrFormat(
      "{\n"
      "  \"written_by\": \"tools/capstone/thresholds.cc (ThresholdsJson)\",\n"
      "  \"cap_full_pct\": %g,\n"
      "  \"generator_ceiling_pct\": %g\n"
      "}\n",
      100 * kCapFullShare, 100 * kGeneratorCeiling);
}

}  // namespace perflab::capstone
