// hdr_interop: the C++ half of the HdrHistogramJS interop test
// (hdr_interop_test.sh). Both halves record the same deterministic values,
// v_i = 1 + (i^2 * 7919 mod 5e10) for i = 1..20000, into a histogram with
// lowest 1, highest 3.6e12 and 3 significant digits.
//   hdr_interop encode        prints our encoding (base64) of those values
//   hdr_interop check BASE64  decodes another implementation's encoding and
//                             compares every bucket with our own histogram
#include <cstdint>
#include <cstring>
#include <iostream>

#include "models/hdr_codec.h"
#include "models/histogram.h"

namespace {

perflab::models::Histogram Values() {
  perflab::models::Histogram h =
      *perflab::models::Histogram::Create({1, int64_t{3600} * 1000000000, 3});
  for (int64_t i = 1; i <= 20000; ++i) {
    h.Record(1 + (i * i * 7919) % 50000000000);
  }
  return h;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 2 && std::strcmp(argv[1], "encode") == 0) {
    std::cout << perflab::models::EncodeHdrBase64(Values()) << "\n";
    return 0;
  }
  if (argc == 3 && std::strcmp(argv[1], "check") == 0) {
    auto theirs = perflab::models::DecodeHdrBase64(argv[2]);
    if (!theirs.ok()) {
      std::cerr << "decode failed: " << theirs.status().message() << "\n";
      return 1;
    }
    perflab::models::Histogram ours = Values();
    if (theirs->CountsLength() != ours.CountsLength()) {
      std::cerr << "bucket arrays differ in length\n";
      return 1;
    }
    for (size_t i = 0; i < ours.CountsLength(); ++i) {
      if (theirs->CountAtIndex(i) != ours.CountAtIndex(i)) {
        std::cerr << "bucket " << i << ": theirs " << theirs->CountAtIndex(i)
                  << " ours " << ours.CountAtIndex(i) << "\n";
        return 1;
      }
    }
    std::cout << "decoded the other encoder's histogram: " << ours.Count()
              << " samples, every bucket equal\n";
    return 0;
  }
  std::cerr << "usage: hdr_interop encode | check BASE64\n";
  return 2;
}
