// HdrHistogram's standard compressed V2 encoding of a models::Histogram, as a
// base64 string that HdrHistogram's own implementations (Java, C, Go, Python,
// JS) decode: cookie 0x1c849314 (V2 compressed, word-size nibble 1) and
// length, then zlib deflate of [cookie 0x1c849313, payload length,
// normalizing index offset 0, significant digits, lowest discernible value,
// highest trackable value, integer-to-double ratio 1.0, counts], all integers
// big-endian, counts as ZigZag LEB128 with a run of k empty buckets written
// as -k. Readers mask the nibble (cookie & ~0xf0), so 0x1c849303/04 match too.
//
// models::Histogram uses HdrHistogram's bucket layout exactly (sub-bucket
// count 2^ceil(log2(2 * 10^digits)), unit magnitude floor(log2(lowest)),
// the same bucket count), so bucket i here is counts index i there.
//
// The encoding carries bucket counts only: a decoded histogram has the same
// counts and percentiles at bucket resolution, but its min, max and mean are
// those of the buckets' lowest values (the exact running sum is not in the
// format). Pure functions; thread-safe.
#ifndef PERFLAB_MODELS_HDR_CODEC_H_
#define PERFLAB_MODELS_HDR_CODEC_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "models/histogram.h"

namespace perflab::models {

// Base64 of the compressed V2 encoding. Deterministic for a given zlib.
std::string EncodeHdrBase64(const Histogram& histogram);

// Decodes what EncodeHdrBase64 or another V2 writer of an integer histogram
// produced (the normalizing offset and ratio are ignored, as HdrHistogramJS
// does); InvalidArgument says what is wrong with it.
absl::StatusOr<Histogram> DecodeHdrBase64(std::string_view base64);

}  // namespace perflab::models

#endif  // PERFLAB_MODELS_HDR_CODEC_H_
