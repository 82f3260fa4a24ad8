#include "core/random.h"

#include <cstdint>

#include "gtest/gtest.h"

namespace perflab::core {
namespace {

// The generators are pinned to outputs of a separate python3 implementation
// written from the published algorithms (Vigna's splitmix64.c and
// xoshiro256starstar.c), not from this code. That implementation gives the
// authors' reference outputs: splitmix64 seeded with 1234567 starts
// 6457827717110365317, 3203168211198807973, 9817491932198370423, and
// xoshiro256** from the state {1, 2, 3, 4} starts 11520, 0, 1509978240.

TEST(CoreRandomTest, SplitMix64GivesTheReferenceOutputs) {
  SplitMix64 rng(1234567);
  EXPECT_EQ(rng.Next(), 6457827717110365317ULL);
  EXPECT_EQ(rng.Next(), 3203168211198807973ULL);
  EXPECT_EQ(rng.Next(), 9817491932198370423ULL);
}

TEST(CoreRandomTest, SplitMix64SameSeedSameStream) {
  SplitMix64 a(42), b(42), c(43);
  int same_as_c = 0;
  for (int i = 0; i < 1000; ++i) {
    const uint64_t x = a.Next();
    EXPECT_EQ(x, b.Next());
    same_as_c += x == c.Next();
  }
  EXPECT_EQ(same_as_c, 0);
}

TEST(CoreRandomTest, Xoshiro256SeededBySplitMix64) {
  // State = the first four splitmix64 outputs of the seed, then xoshiro256**.
  Xoshiro256 rng(1234567);
  EXPECT_EQ(rng.Next(), 3504822795582309479ULL);
  EXPECT_EQ(rng.Next(), 1819558768956484042ULL);
  EXPECT_EQ(rng.Next(), 1250851346055027673ULL);
}

TEST(CoreRandomTest, ToUniform01KeepsTheTop53Bits) {
  EXPECT_EQ(ToUniform01(0), 0.0);
  // All ones: (2^53 - 1) / 2^53, the largest double below 1.
  EXPECT_EQ(ToUniform01(~uint64_t{0}), 1.0 - 0x1.0p-53);
  // The lowest 11 bits are dropped; bit 11 is the smallest step, 2^-53.
  EXPECT_EQ(ToUniform01(0x7ff), 0.0);
  EXPECT_EQ(ToUniform01(0x800), 0x1.0p-53);
  EXPECT_EQ(ToUniform01(uint64_t{1} << 63), 0.5);
}

TEST(CoreRandomTest, ToBelowScalesTheFullRangeOntoN) {
  EXPECT_EQ(ToBelow(0, 10), 0u);
  EXPECT_EQ(ToBelow(~uint64_t{0}, 10), 9u);
  EXPECT_EQ(ToBelow(uint64_t{1} << 63, 10), 5u);  // half of 2^64 -> n / 2
  EXPECT_EQ(ToBelow(uint64_t{1} << 62, 8), 2u);   // a quarter -> n / 4
}

TEST(CoreRandomTest, SkewedKeyIsOnePlusTheFloorOfNTimesUCubed) {
  EXPECT_EQ(SkewedKey(1000, 0.0), 1);
  EXPECT_EQ(SkewedKey(1000, 0.5), 126);  // 1 + floor(1000 / 8)
  EXPECT_EQ(SkewedKey(1000, 0.25), 16);  // 1 + floor(1000 / 64 = 15.625)
  // The largest u below 1 still gives a key of at most n.
  EXPECT_EQ(SkewedKey(1000, 1.0 - 0x1.0p-53), 1000);
}

}  // namespace
}  // namespace perflab::core
