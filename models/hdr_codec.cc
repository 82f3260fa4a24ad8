#include "models/hdr_codec.h"

#include <zlib.h>

#include <bit>
#include <cstdint>
#include <cstring>

#include "absl/status/status.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"

namespace perflab::models {
namespace {

// The nibble 0x10 says "8-byte words, LEB128 counts" to every reader; they
// compare cookies with that nibble masked, as we do.
constexpr uint32_t kEncodingCookie = 0x1c849303 | 0x10;
constexpr uint32_t kCompressedCookie = 0x1c849304 | 0x10;
constexpr uint32_t kCookieMask = ~0xf0u;
constexpr size_t kHeaderBytes = 40;  // 4 x int32, 3 x int64 (two + ratio)
// A decoded payload larger than this is refused: no real histogram needs it.
constexpr size_t kMaxInflated = size_t{64} << 20;  // named in Inflate

void PutBE(std::string& out, uint64_t v, int bytes) {
  for (int i = bytes - 1; i >= 0; --i) {
    out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
  }
}

uint64_t GetBE(std::string_view in, size_t at, int bytes) {
  uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) {
    v = (v << 8) | static_cast<uint8_t>(in[at + static_cast<size_t>(i)]);
  }
  return v;
}

// ZigZag, then LEB128 with at most 9 bytes: the ninth carries 8 full bits
// (HdrHistogram's variant, so any int64 fits in 9 bytes, not 10).
void PutZigZag(std::string& out, int64_t signed_value) {
  uint64_t v = (static_cast<uint64_t>(signed_value) << 1) ^
               static_cast<uint64_t>(signed_value >> 63);
  for (int i = 0; i < 8; ++i) {
    if ((v >> 7) == 0) {
      out.push_back(static_cast<char>(v));
      return;
    }
    out.push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));  // the 9th byte: the top 8 bits
}

// Reads one value at `*at`; false when the input ends inside it.
bool GetZigZag(std::string_view in, size_t* at, int64_t* out) {
  uint64_t v = 0;
  for (int i = 0; i < 9; ++i) {
    if (*at >= in.size()) return false;
    uint64_t byte = static_cast<uint8_t>(in[(*at)++]);
    if (i == 8) {
      v |= byte << 56;
      break;
    }
    v |= (byte & 0x7f) << (7 * i);
    if ((byte & 0x80) == 0) break;
  }
  *out = static_cast<int64_t>((v >> 1) ^ (~(v & 1) + 1));
  return true;
}

absl::Status Bad(absl::string_view what) {
  return absl::InvalidArgumentError(
      absl::StrCat("HdrHistogram V2 base64: ", what));
}

absl::StatusOr<std::string> Inflate(std::string_view in) {
  z_stream strm{};
  if (inflateInit(&strm) != Z_OK) return Bad("zlib inflateInit failed");
  strm.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  strm.avail_in = static_cast<uInt>(in.size());
  std::string out;
  int rc = Z_OK;
  while (rc == Z_OK) {
    size_t old = out.size();
    if (old >= kMaxInflated) break;
    out.resize(old + 16384);
    strm.next_out = reinterpret_cast<Bytef*>(out.data() + old);
    strm.avail_out = 16384;
    rc = inflate(&strm, Z_NO_FLUSH);
    out.resize(old + (16384 - strm.avail_out));
  }
  inflateEnd(&strm);
  if (rc == Z_OK && out.size() >= kMaxInflated) {
    return Bad("the payload inflates past 64 MiB; accepted: a histogram");
  }
  if (rc != Z_STREAM_END) return Bad("the zlib stream is corrupt or truncated");
  return out;
}

}  // namespace

std::string EncodeHdrBase64(const Histogram& h) {
  // Counts up to the last non-empty bucket (HdrHistogram stops at max too).
  size_t limit = h.CountsLength();
  while (limit > 0 && h.CountAtIndex(limit - 1) == 0) --limit;
  std::string counts;
  for (size_t i = 0; i < limit;) {
    int64_t c = h.CountAtIndex(i++);
    if (c != 0) {
      PutZigZag(counts, c);
      continue;
    }
    int64_t zeros = 1;
    while (i < limit && h.CountAtIndex(i) == 0) {
      ++zeros;
      ++i;
    }
    PutZigZag(counts, -zeros);
  }
  const HistogramOptions& o = h.options();
  std::string raw;
  raw.reserve(kHeaderBytes + counts.size());
  PutBE(raw, kEncodingCookie, 4);
  PutBE(raw, counts.size(), 4);
  PutBE(raw, 0, 4);  // normalizing index offset: we never shift
  PutBE(raw, static_cast<uint64_t>(o.significant_digits), 4);
  PutBE(raw, static_cast<uint64_t>(o.lowest_discernible), 8);
  PutBE(raw, static_cast<uint64_t>(o.highest_trackable), 8);
  PutBE(raw, std::bit_cast<uint64_t>(1.0), 8);  // integer-to-double ratio
  raw += counts;

  uLongf bound = compressBound(raw.size());
  std::string packed(bound, '\0');
  compress(reinterpret_cast<Bytef*>(packed.data()), &bound,
           reinterpret_cast<const Bytef*>(raw.data()), raw.size());
  packed.resize(bound);
  std::string out;
  PutBE(out, kCompressedCookie, 4);
  PutBE(out, packed.size(), 4);
  out += packed;
  return absl::Base64Escape(out);
}

absl::StatusOr<Histogram> DecodeHdrBase64(std::string_view base64) {
  std::string bytes;
  if (!absl::Base64Unescape(absl::string_view(base64.data(), base64.size()),
                            &bytes))
    return Bad("not base64");
  if (bytes.size() < 8) return Bad("shorter than its 8-byte header");
  uint32_t cookie = static_cast<uint32_t>(GetBE(bytes, 0, 4));
  if ((cookie & kCookieMask) != (kCompressedCookie & kCookieMask)) {
    return Bad(absl::StrCat("compression cookie 0x", absl::Hex(cookie),
                            "; accepted 0x1c849304 (V2 compressed)"));
  }
  uint64_t length = GetBE(bytes, 4, 4);
  if (length > bytes.size() - 8) return Bad("compressed length past the end");
  absl::StatusOr<std::string> raw =
      Inflate(std::string_view(bytes).substr(8, length));
  if (!raw.ok()) return raw.status();
  if (raw->size() < kHeaderBytes) return Bad("payload shorter than 40 bytes");
  uint32_t enc = static_cast<uint32_t>(GetBE(*raw, 0, 4));
  if ((enc & kCookieMask) != (kEncodingCookie & kCookieMask)) {
    return Bad(absl::StrCat("encoding cookie 0x", absl::Hex(enc),
                            "; accepted 0x1c849303 (V2)"));
  }
  uint64_t payload = GetBE(*raw, 4, 4);
  if (payload > raw->size() - kHeaderBytes) return Bad("payload past the end");
  // Bytes 8..11 (normalizing index offset) and 32..39 (integer-to-double
  // ratio) are ignored, as HdrHistogramJS and the C reader do for integer
  // histograms: HdrHistogramJS itself writes an offset of 1 and a ratio of
  // int64 1. Only Java's shifted histograms use a real offset.
  HistogramOptions o;
  o.significant_digits = static_cast<int>(GetBE(*raw, 12, 4));
  o.lowest_discernible = static_cast<int64_t>(GetBE(*raw, 16, 8));
  o.highest_trackable = static_cast<int64_t>(GetBE(*raw, 24, 8));
  absl::StatusOr<Histogram> h = Histogram::Create(o);
  if (!h.ok()) return Bad(h.status().message());

  std::string_view counts =
      std::string_view(*raw).substr(kHeaderBytes, payload);
  size_t at = 0, index = 0;
  while (at < counts.size()) {
    int64_t v = 0;
    if (!GetZigZag(counts, &at, &v)) return Bad("a count is truncated");
    if (v < 0) {
      if (v == INT64_MIN ||
          static_cast<uint64_t>(-v) > h->CountsLength() - index) {
        return Bad("a run of empty buckets passes the last bucket");
      }
      index += static_cast<size_t>(-v);
      continue;
    }
    if (index >= h->CountsLength()) return Bad("more counts than buckets");
    // Count + OutOfRange never passes INT64_MAX, so neither can overflow.
    if (v > INT64_MAX - h->Count() - h->OutOfRange()) {
      return Bad("the counts add up past 2^63 - 1");
    }
    if (v > 0) h->Record(h->ValueAtIndex(index), v);
    ++index;
  }
  return h;
}

}  // namespace perflab::models
