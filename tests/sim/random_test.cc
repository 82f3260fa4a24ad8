#include "sim/random.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/exact_math.h"
#include "gtest/gtest.h"
#include "tests/sim/rounding_helpers.h"

namespace perflab::sim {
namespace {

TEST(RandomTest, StreamsAreReproducibleAndIndependentByName) {
  Rng a(7, "arrivals"), b(7, "arrivals"), c(7, "service"), d(8, "arrivals");
  int same_c = 0, same_d = 0;
  for (int i = 0; i < 1000; ++i) {
    const uint64_t x = a.Next();
    EXPECT_EQ(x, b.Next());
    same_c += x == c.Next();
    same_d += x == d.Next();
  }
  EXPECT_EQ(same_c, 0);
  EXPECT_EQ(same_d, 0);
}

TEST(RandomTest, FirstValuesArePinned) {
  // Changing the generator or its seeding changes every golden output; these
  // pin it so that such a change is deliberate. The numbers come from a
  // separate 40-line python3 implementation written from the published
  // algorithms, not from this code: FNV-1a 64 of the stream name, x = seed ^
  // fnv; x = splitmix64(x) ^ seed; the four xoshiro256** words are the next
  // four splitmix64 outputs of x. That implementation was first checked
  // against the authors' reference outputs: splitmix64 seeded with 1234567
  // gives 6457827717110365317, 3203168211198807973, 9817491932198370423;
  // xoshiro256** from the state {1, 2, 3, 4} gives 11520, 0, 1509978240,
  // 1215971899390074240.
  struct Case {
    uint64_t seed;
    const char* stream;
    uint64_t first[3];
  };
  const Case cases[] = {
      {42,
       "arrivals",
       {95068562447594843u, 8320149964415381593u, 17463167629609353555u}},
      {0,
       "service",
       {14528279342733725151u, 9489511253850824320u, 6274264982431581304u}},
      {2,
       "keys",
       {3005433680001215987u, 1646076790042666394u, 6592441550378111386u}},
  };
  for (const Case& c : cases) {
    Rng r(c.seed, c.stream);
    for (uint64_t want : c.first) {
      EXPECT_EQ(r.Next(), want) << "seed " << c.seed << " " << c.stream;
    }
  }
}

double MeanOf(const Dist& d, int n, uint64_t seed) {
  Rng rng(seed, "mean");
  double sum = 0;
  for (int i = 0; i < n; ++i) sum += Sample(d, rng);
  return sum / n;
}

TEST(RandomTest, SamplersHaveTheirMeans) {
  EXPECT_NEAR(MeanOf(Dist::Exp(10), 400000, 1), 10, 0.1);
  EXPECT_NEAR(MeanOf(Dist::Uniform(120, 200), 400000, 2), 160, 0.3);
  EXPECT_DOUBLE_EQ(MeanOf(Dist::Constant(5), 1000, 3), 5);
  EXPECT_NEAR(MeanOf(Dist::Lognormal(50, 0.5), 400000, 4), 50, 0.3);
}

TEST(RandomTest, LognormalHasItsCoefficientOfVariation) {
  Rng rng(5, "cv");
  const int n = 400000;
  double sum = 0, sq = 0;
  for (int i = 0; i < n; ++i) {
    const double v = Sample(Dist::Lognormal(1, 0.8), rng);
    sum += v;
    sq += v * v;
  }
  const double mean = sum / n;
  const double sd = std::sqrt(sq / n - mean * mean);
  EXPECT_NEAR(sd / mean, 0.8, 0.03);
}

// A LognormalDraws draw as its header defines it, one at a time:
// RoundNs(mean x e^(sigma z - sigma^2 / 2)), z the next standard normal.
int64_t FactorFormNs(double mean, double cv, Rng& rng) {
  if (cv <= 0) return random_internal::RoundNs(mean);
  const double s2 = core::Log1p(cv * cv);
  const double z = StandardNormal(rng);
  return random_internal::RoundNs(mean *
                                  core::Exp(-s2 / 2 + std::sqrt(s2) * z));
}

// Means as a model mixes them: runs of one mean, means that change every
// draw, a mean of 0 first, tiny and huge ones, and every 7th slightly moved.
double MixedMean(int i) {
  constexpr double kMeans[] = {0,      39.1e3, 39.1e3, 1050.9e3, 60.1e3,
                               39.1e3, 5e6,    0.7,    1e9,      39.1e3};
  return kMeans[i % 10] * (i % 7 == 0 ? 1 + i * 1e-6 : 1);
}

// How many of 3000 draws of `draw(mean)`, over MixedMean's means, differ
// from the factor form drawn one by one from `twin`.
template <typename Draw>
int DifferFromFactorForm(Draw draw, double cv, Rng& twin) {
  int differ = 0;
  for (int i = 0; i < 3000; ++i) {
    differ += draw(MixedMean(i)) != FactorFormNs(MixedMean(i), cv, twin);
  }
  return differ;
}

// Against the definition drawn one by one from a twin generator, across
// several refills, and the generator left where one-by-one drawing leaves it.
TEST(RandomTest, LognormalDrawsAreTheirDefinitionBitForBit) {
  for (const double cv : {0.5, 0.8, 0.0}) {
    LognormalDraws draws(cv);
    Rng a(11, "work"), b(11, "work");
    EXPECT_EQ(DifferFromFactorForm(
                  [&](double mean) { return draws.SampleNs(mean, a); }, cv, b),
              0)
        << "cv " << cv;
    EXPECT_EQ(a.Next(), b.Next()) << "cv " << cv;  // as many draws taken
  }
}

// The same with a generator of its own, a copy of the twin's.
TEST(RandomTest, LognormalDrawsOwnGeneratorAreTheirDefinitionBitForBit) {
  for (const double cv : {0.5, 0.8, 0.0}) {
    Rng b(12, "work");
    LognormalDraws draws(cv, b);
    EXPECT_EQ(DifferFromFactorForm(
                  [&](double mean) { return draws.SampleNs(mean); }, cv, b),
              0)
        << "cv " << cv;
  }
}

// The mean outside the e^x moves a draw by a few ulps of it, never by a
// nanosecond: against the general sampler on the same normals, every draw
// within 1 ns (a planted error in the factor, such as a missing
// -sigma^2 / 2, moves them by percents).
TEST(RandomTest, LognormalDrawsAreSampleNsOfTheSameNormals) {
  for (const double cv : {0.5, 0.8, 2.0}) {
    Rng b(13, "work");
    LognormalDraws draws(cv, b);
    int64_t worst = 0;
    for (int i = 0; i < 3000; ++i) {
      const double mean = MixedMean(i);
      const int64_t d =
          draws.SampleNs(mean) - SampleNs(Dist::Lognormal(mean, cv), b);
      worst = std::max(worst, d < 0 ? -d : d);
    }
    EXPECT_LE(worst, 1) << "cv " << cv;
  }
}

// Draws ahead must never show: with other draws from the same generator in
// between (every 5th step), and a second generator passed in turn (every
// 7th), each draw is still the one-by-one draw of the generator passed, and
// each generator ends as far on as one-by-one drawing leaves its twin.
TEST(RandomTest, LognormalDrawsFollowTheGeneratorPassed) {
  LognormalDraws draws(0.5);
  Rng a(3, "work"), a_ref(3, "work");
  Rng b(4, "work"), b_ref(4, "work");
  int differ = 0;
  for (int i = 0; i < 5000; ++i) {
    const double mean = i % 3 == 0 ? 14.5e3 : 918.0;
    if (i % 5 == 0) differ += a.Next() != a_ref.Next();
    Rng& g = i % 7 == 0 ? b : a;
    Rng& ref = i % 7 == 0 ? b_ref : a_ref;
    differ += draws.SampleNs(mean, g) != FactorFormNs(mean, 0.5, ref);
  }
  EXPECT_EQ(differ, 0);
  EXPECT_EQ(a.Next(), a_ref.Next());
  EXPECT_EQ(b.Next(), b_ref.Next());
}

// RoundNs rounds halves away from zero as libm's llround does, checked at
// the edges of its short form (v + 0.5 truncated, from 1 up to 2^52):
// around every power of two, around every k + 0.5 of each binade, the
// largest double below one half, and a million values spread over
// [0, 2^53) by a fixed generator.
TEST(RandomTest, RoundNsIsLlroundForEveryKindOfValue) {
  std::vector<double> values = {0.5,      std::nextafter(0.5, 0.0),
                                1.0,      std::nextafter(1.0, 0.0),
                                0x1.0p52, std::nextafter(0x1.0p52, 0.0),
                                0x1.0p53};
  testing_helpers::AddValuesNearPowersOfTwo(0, 53, {0, -0.5, 0.5, -1.5, 1.5},
                                            values);
  Rng rng(99, "round");
  for (int i = 0; i < 1'000'000; ++i) {
    values.push_back(std::ldexp(rng.Uniform01(), static_cast<int>(i % 54)));
  }
  for (const double v : values) {
    if (!(v > 0)) continue;
    ASSERT_EQ(random_internal::RoundNs(v), std::llround(v)) << v;
  }
}

TEST(RandomTest, InverseNormalCdfMatchesKnownQuantiles) {
  EXPECT_NEAR(InverseNormalCdf(0.5), 0, 1e-9);
  EXPECT_NEAR(InverseNormalCdf(0.975), 1.959963985, 1e-7);
  EXPECT_NEAR(InverseNormalCdf(0.001), -3.090232306, 1e-7);
}

TEST(RandomTest, MixtureHonoursItsWeights) {
  Mixture m;
  m.Add(0.97, Dist::Constant(1));
  m.Add(0.03, Dist::Constant(2));
  Rng rng(9, "mix");
  int twos = 0;
  for (int i = 0; i < 100000; ++i) twos += m.Sample(rng) == 2;
  EXPECT_NEAR(twos / 100000.0, 0.03, 0.003);
}

TEST(RandomTest, SkewedKeyPutsHalfTheTrafficOnTheLowestKeys) {
  Rng rng(11, "keys");
  const int64_t n = 5000;
  int low = 0;
  for (int i = 0; i < 100000; ++i) {
    const int64_t k = SkewedKey(n, rng);
    ASSERT_GE(k, 1);
    ASSERT_LE(k, n);
    low += k <= n / 8;  // u^3 <= 1/8 <=> u <= 1/2
  }
  EXPECT_NEAR(low / 100000.0, 0.5, 0.01);
}

TEST(RandomTest, ZipfFavoursKeyOneByItsWeight) {
  absl::StatusOr<Zipf> z = Zipf::Create(1000, 1.0);
  ASSERT_TRUE(z.ok());
  double h = 0;
  for (int k = 1; k <= 1000; ++k) h += 1.0 / k;
  Rng rng(13, "zipf");
  int ones = 0;
  for (int i = 0; i < 200000; ++i) ones += z->Sample(rng) == 1;
  EXPECT_NEAR(ones / 200000.0, 1 / h, 0.005);
  EXPECT_FALSE(Zipf::Create(0, 1).ok());
}

}  // namespace
}  // namespace perflab::sim
