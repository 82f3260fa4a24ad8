// HdrHistogram V2 compressed encoding: hand-built bytes, round trips of
// random histograms, and corrupt input. (Interop with HdrHistogramJS is the
// ctest models.hdr_js_interop.)
#include "models/hdr_codec.h"

#include <zlib.h>

#include <cmath>
#include <string>
#include <vector>

#include "absl/strings/escaping.h"
#include "core/random.h"
#include "gtest/gtest.h"

namespace perflab::models {
namespace {

void ExpectSameCounts(const Histogram& a, const Histogram& b) {
  ASSERT_EQ(a.CountsLength(), b.CountsLength());
  for (size_t i = 0; i < a.CountsLength(); ++i) {
    ASSERT_EQ(a.CountAtIndex(i), b.CountAtIndex(i)) << "bucket " << i;
  }
  EXPECT_EQ(a.Count(), b.Count());
}

TEST(HdrCodec, HeaderAndCountsByHand) {
  // digits 1 -> 2 * 10 = 20 -> 32 sub-buckets; values 0..31 map 1:1.
  Histogram h = *Histogram::Create({1, 1000, 1});
  h.Record(1, 3);
  h.Record(4, 200);
  std::string bytes;
  ASSERT_TRUE(absl::Base64Unescape(EncodeHdrBase64(h), &bytes));
  auto u8 = [&](size_t i) { return static_cast<uint8_t>(bytes[i]); };
  EXPECT_EQ(u8(0), 0x1c);
  EXPECT_EQ(u8(1), 0x84);
  EXPECT_EQ(u8(2), 0x93);
  EXPECT_EQ(u8(3), 0x14);
  std::string raw(1000, '\0');
  uLongf len = raw.size();
  ASSERT_EQ(uncompress(reinterpret_cast<Bytef*>(raw.data()), &len,
                       reinterpret_cast<const Bytef*>(bytes.data() + 8),
                       bytes.size() - 8),
            Z_OK);
  raw.resize(len);
  // Counts: index0 = 0 (run of 1 zero: -1 -> zigzag 1), index1 = 3 (-> 6),
  // indexes 2,3 empty (-2 -> 3), index4 = 200 (-> 400 = 0x90 0x03).
  std::string expected_counts = {1, 6, 3, static_cast<char>(0x90), 3};
  ASSERT_EQ(raw.size(), 40 + expected_counts.size());
  EXPECT_EQ(raw.substr(40), expected_counts);
  EXPECT_EQ(static_cast<uint8_t>(raw[3]), 0x13);  // V2 encoding
  EXPECT_EQ(static_cast<uint8_t>(raw[7]), 5);     // payload bytes
  EXPECT_EQ(static_cast<uint8_t>(raw[15]), 1);    // digits
  EXPECT_EQ(static_cast<uint8_t>(raw[23]), 1);    // lowest
  EXPECT_EQ(static_cast<uint8_t>(raw[30]) * 256 + static_cast<uint8_t>(raw[31]),
            1000);                                 // highest
  EXPECT_EQ(static_cast<uint8_t>(raw[32]), 0x3f);  // 1.0 as double
  EXPECT_EQ(static_cast<uint8_t>(raw[33]), 0xf0);
}

TEST(HdrCodec, RoundTripsRandomHistograms) {
  core::SplitMix64 rng(7);
  for (int trial = 0; trial < 40; ++trial) {
    HistogramOptions o;
    o.significant_digits = 1 + static_cast<int>(rng.Next() % 5);
    o.lowest_discernible = 1 + static_cast<int64_t>(rng.Next() % 1000);
    o.highest_trackable = o.lowest_discernible * 2 +
                          static_cast<int64_t>(rng.Next() % 1000000000000);
    Histogram h = *Histogram::Create(o);
    int n = static_cast<int>(rng.Next() % 3000);
    for (int i = 0; i < n; ++i) {
      // Log-uniform values over the whole range, counts up to 2^40 (9-byte
      // LEB128 paths are covered by the big counts).
      double u = rng.Uniform01();
      int64_t v = static_cast<int64_t>(
          std::pow(static_cast<double>(o.highest_trackable), u));
      int64_t c = (i % 97 == 0) ? (int64_t{1} << 40) + i : 1 + i % 5;
      h.Record(v, c);
    }
    absl::StatusOr<Histogram> back = DecodeHdrBase64(EncodeHdrBase64(h));
    ASSERT_TRUE(back.ok()) << back.status();
    EXPECT_EQ(back->options().significant_digits, o.significant_digits);
    EXPECT_EQ(back->options().lowest_discernible, o.lowest_discernible);
    EXPECT_EQ(back->options().highest_trackable, o.highest_trackable);
    ExpectSameCounts(h, *back);
    // Re-encoding the decoded histogram gives the same bytes.
    EXPECT_EQ(EncodeHdrBase64(*back), EncodeHdrBase64(h));
  }
}

TEST(HdrCodec, EmptyHistogram) {
  Histogram h = *Histogram::Create();
  absl::StatusOr<Histogram> back = DecodeHdrBase64(EncodeHdrBase64(h));
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->Count(), 0);
}

TEST(HdrCodec, CorruptInputIsRejected) {
  Histogram h = *Histogram::Create();
  h.Record(12345);
  std::string good = EncodeHdrBase64(h);
  EXPECT_FALSE(DecodeHdrBase64("!!!").ok());
  EXPECT_FALSE(DecodeHdrBase64(good.substr(0, good.size() / 2)).ok());
  std::string bytes;
  ASSERT_TRUE(absl::Base64Unescape(good, &bytes));
  bytes[3] = 0x02;  // V1 compressed cookie
  absl::StatusOr<Histogram> v1 = DecodeHdrBase64(absl::Base64Escape(bytes));
  ASSERT_FALSE(v1.ok());
  EXPECT_NE(v1.status().message().find("cookie"), std::string::npos);
}

// A V2 payload built here from the format's description (not with the
// encoder under test): header, then ZigZag LEB128 counts, zlib, wrapper.
void PutBE(std::string& out, uint64_t v, int bytes) {
  for (int i = bytes - 1; i >= 0; --i)
    out.push_back(char((v >> (8 * i)) & 255));
}
void PutCount(std::string& out, int64_t c) {
  uint64_t v = (static_cast<uint64_t>(c) << 1) ^ static_cast<uint64_t>(c >> 63);
  for (int i = 0; i < 8 && v >= 0x80; ++i) {
    out.push_back(char((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out.push_back(char(v));  // at most 8 bits left after 8 groups of 7
}
std::string Wrap(const std::string& raw) {
  uLongf len = compressBound(raw.size());
  std::string packed(len, '\0');
  EXPECT_EQ(compress(reinterpret_cast<Bytef*>(packed.data()), &len,
                     reinterpret_cast<const Bytef*>(raw.data()), raw.size()),
            Z_OK);
  packed.resize(len);
  std::string out;
  PutBE(out, 0x1c849314, 4);
  PutBE(out, packed.size(), 4);
  return absl::Base64Escape(out + packed);
}
std::string Encoded(int digits, int64_t lowest, int64_t highest,
                    const std::vector<int64_t>& counts) {
  std::string c;
  for (int64_t v : counts) PutCount(c, v);
  std::string raw;
  PutBE(raw, 0x1c849313, 4);
  PutBE(raw, c.size(), 4);
  PutBE(raw, 0, 4);
  PutBE(raw, static_cast<uint64_t>(digits), 4);
  PutBE(raw, static_cast<uint64_t>(lowest), 8);
  PutBE(raw, static_cast<uint64_t>(highest), 8);
  PutBE(raw, 0x3ff0000000000000, 8);  // 1.0
  return Wrap(raw + c);
}

TEST(HdrCodec, HandBuiltPayloadDecodes) {
  absl::StatusOr<Histogram> h = DecodeHdrBase64(Encoded(1, 1, 1000, {0, 3}));
  ASSERT_TRUE(h.ok()) << h.status();
  EXPECT_EQ(h->Count(), 3);
  EXPECT_EQ(h->Max(), 1);
}

TEST(HdrCodec, HostileHeadersAndCountsAreRejected) {
  // A lowest value of 2^58 with 1 digit: an unbounded range setup spins.
  absl::StatusOr<Histogram> h =
      DecodeHdrBase64(Encoded(1, int64_t{1} << 58, INT64_MAX, {1}));
  ASSERT_FALSE(h.ok());
  EXPECT_NE(h.status().message().find("lowest_discernible"), std::string::npos);
  // A negative lowest (the top bit set) and digits out of range.
  EXPECT_FALSE(DecodeHdrBase64(Encoded(3, -1, INT64_MAX, {1})).ok());
  EXPECT_FALSE(DecodeHdrBase64(Encoded(-3, 1, 1000, {1})).ok());
  // Counts whose sum passes INT64_MAX.
  h = DecodeHdrBase64(Encoded(1, 1, 1000, {INT64_MAX, 1}));
  ASSERT_FALSE(h.ok());
  EXPECT_NE(h.status().message().find("2^63"), std::string::npos);
  EXPECT_TRUE(DecodeHdrBase64(Encoded(1, 1, 1000, {INT64_MAX - 1, 1})).ok());
}

TEST(HdrCodec, AZlibBombIsNamedAsSuch) {
  std::string raw;
  PutBE(raw, 0x1c849313, 4);
  raw.resize((size_t{65} << 20), '\0');  // 65 MiB, past the 64 MiB cap
  absl::StatusOr<Histogram> h = DecodeHdrBase64(Wrap(raw));
  ASSERT_FALSE(h.ok());
  EXPECT_NE(h.status().message().find("64 MiB"), std::string::npos);
}

}  // namespace
}  // namespace perflab::models
