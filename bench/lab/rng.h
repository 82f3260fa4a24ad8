// Deterministic random numbers for the lab: splitmix64 and the project's own
// inverse-transform sampling (std:: distributions differ between standard
// libraries, so they are never used). Not thread-safe: one generator per
// stream.
#ifndef PERFLAB_BENCH_LAB_RNG_H_
#define PERFLAB_BENCH_LAB_RNG_H_

#include <cstdint>

namespace perflab::lab {

class SplitMix64 {
 public:
  explicit SplitMix64(uint64_t seed) : state_(seed) {}

  uint64_t Next() {
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }

  // Uniform in [0, 1) with 53 random bits.
  double Uniform01() { return static_cast<double>(Next() >> 11) * 0x1.0p-53; }

  // Uniform integer in [0, n); multiply-shift (Lemire) without rejection: the
  // bias is below 2^-32 for the small n used here, and it is deterministic.
  uint64_t Below(uint64_t n) {
    return static_cast<uint64_t>((static_cast<unsigned __int128>(Next()) * n) >>
                                 64);
  }

 private:
  uint64_t state_;
};

// Customer ids as the case study draws them: skewed 1 + n*u^3 (about half of
// the traffic on ~3 % of customers) or uniform 1 + n*u. Always in [1, n].
class CustomerPicker {
 public:
  CustomerPicker(int64_t customers, bool skewed, uint64_t seed)
      : customers_(customers), skewed_(skewed), rng_(seed) {}

  int64_t Next() {
    double u = rng_.Uniform01();
    double x = skewed_ ? u * u * u : u;
    int64_t id = 1 + static_cast<int64_t>(static_cast<double>(customers_) * x);
    return id > customers_ ? customers_ : id;
  }

 private:
  int64_t customers_;
  bool skewed_;
  SplitMix64 rng_;
};

}  // namespace perflab::lab

#endif  // PERFLAB_BENCH_LAB_RNG_H_
