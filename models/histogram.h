// A log-linear latency histogram in the style of HdrHistogram: values are
// integers (nanoseconds, microseconds: the caller's unit), recorded into
// buckets whose width is at most 10^-digits of the value they hold, so any
// percentile is within that relative precision of the exact nearest-rank one.
//
// Merging adds bucket counts: the merge of two histograms equals the histogram
// of the union of their values, exactly. Not thread-safe; use one per thread
// (or per simulated client) and merge.
#ifndef PERFLAB_MODELS_HISTOGRAM_H_
#define PERFLAB_MODELS_HISTOGRAM_H_

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <new>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace perflab::models {

struct HistogramOptions {
  int64_t lowest_discernible = 1;  // smallest value told apart from 0; >= 1
  int64_t highest_trackable = int64_t{3600} * 1000 * 1000 * 1000;  // 1 h in ns
  int significant_digits = 3;  // 1..5: relative precision 10^-digits
};

namespace histogram_internal {

// An allocator of counts that start at zero without being written: calloc
// hands out fresh pages already zeroed (and zeroes reused memory itself),
// so a histogram that spans 2^62 ns (430 KB) costs a page fault only for
// the pages its values reach, not for all of them up front.
// Value-initialisation constructs nothing, which is right only in memory
// this allocator just returned: the counts are sized once, in the
// constructor, and never resized. Everything else is std::allocator's.
template <typename T>
struct ZeroedAllocator {
  using value_type = T;
  ZeroedAllocator() = default;
  template <typename U>
  explicit ZeroedAllocator(const ZeroedAllocator<U>& /*other*/) {}
  T* allocate(size_t n) {
    void* p = std::calloc(n, sizeof(T));
    if (p == nullptr) throw std::bad_alloc();
    return static_cast<T*>(p);
  }
  void deallocate(T* p, size_t /*n*/) { std::free(p); }
  template <typename U>
  void construct(U* /*p*/) {}  // calloc's zero is the value
  template <typename U, typename... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
  bool operator==(const ZeroedAllocator& /*other*/) const { return true; }
};

}  // namespace histogram_internal

class Histogram {
 public:
  // Fails (InvalidArgument) on digits outside 1..5, lowest < 1, or
  // highest < 2 * lowest.
  static absl::StatusOr<Histogram> Create(const HistogramOptions& options = {});

  // Records `value` `count` times. Values outside [0, highest_trackable] are
  // not recorded; they are counted in out_of_range() and false is returned.
  // Inline: recording is the hot path of every latency measurement.
  bool Record(int64_t value, int64_t count = 1) {
    if (value < 0 || value > options_.highest_trackable || count <= 0) {
      return RecordRejected(count);
    }
    counts_[CountsIndex(value)] += count;
    count_ += count;
    sum_ += static_cast<__int128>(value) * count;
    if (value < min_) min_ = value;
    if (value > max_) max_ = value;
    return true;
  }

  // Records `value`, then, when it exceeds `expected_interval`, the values a
  // client that kept its schedule would have seen while it was stalled:
  // value - interval, value - 2 * interval, ... down to interval (the
  // HdrHistogram "expected interval" correction for coordinated omission).
  bool RecordCorrected(int64_t value, int64_t expected_interval);

  // Adds every count of `other`; fails if the two were created with different
  // options (their buckets would not line up).
  absl::Status Merge(const Histogram& other);

  // Nearest-rank percentile, p in (0, 100]: the highest value equivalent to
  // the sample of rank ceil(p/100 * count). 0 when empty.
  int64_t Percentile(double p) const;
  double Mean() const;  // exact: a running sum is kept beside the buckets
  int64_t Min() const { return count_ == 0 ? 0 : min_; }
  int64_t Max() const { return max_; }
  int64_t Count() const { return count_; }
  int64_t OutOfRange() const { return out_of_range_; }

  // Visits each non-empty bucket in increasing value order with its lowest
  // and highest equivalent value and its count (for plots and exports).
  void ForEachBucket(const std::function<void(int64_t lo, int64_t hi,
                                              int64_t count)>& fn) const;

  // Lowest and highest value that share `value`'s bucket.
  int64_t LowestEquivalent(int64_t value) const;
  int64_t HighestEquivalent(int64_t value) const;

  const HistogramOptions& options() const { return options_; }

  // The raw bucket array, in HdrHistogram's own index order (same sub-bucket
  // count, unit magnitude and bucket count), for codecs such as hdr_codec.h.
  size_t CountsLength() const { return counts_.size(); }
  int64_t CountAtIndex(size_t index) const { return counts_[index]; }
  // The lowest value that falls into bucket `index` (< CountsLength()).
  int64_t ValueAtIndex(size_t index) const { return ValueAt(index); }

  bool operator==(const Histogram& o) const;

 private:
  explicit Histogram(const HistogramOptions& options);
  bool RecordRejected(int64_t count);
  int BucketIndex(int64_t value) const {
    // The power of two at or above value, measured from the first bucket.
    int pow2ceiling =
        64 - std::countl_zero(static_cast<uint64_t>(value | sub_bucket_mask_));
    return pow2ceiling - unit_magnitude_ -
           (sub_bucket_half_count_magnitude_ + 1);
  }
  int SubBucketIndex(int64_t value, int bucket) const {
    return static_cast<int>(value >> (bucket + unit_magnitude_));
  }
  size_t CountsIndex(int64_t value) const {
    int bucket = BucketIndex(value);
    int sub = SubBucketIndex(value, bucket);
    int64_t base = static_cast<int64_t>(bucket + 1)
                   << sub_bucket_half_count_magnitude_;
    return static_cast<size_t>(base + (sub - sub_bucket_half_count_));
  }
  int64_t ValueAt(size_t index) const;
  int64_t SizeOfEquivalentRange(int64_t value) const;

  HistogramOptions options_;
  int unit_magnitude_ = 0;
  int sub_bucket_half_count_magnitude_ = 0;
  int64_t sub_bucket_count_ = 0;
  int64_t sub_bucket_half_count_ = 0;
  int64_t sub_bucket_mask_ = 0;
  // Every count below CountsIndex(min_) and above CountsIndex(max_) is 0,
  // so the scans start and stop there.
  std::vector<int64_t, histogram_internal::ZeroedAllocator<int64_t>> counts_;
  int64_t count_ = 0;
  int64_t out_of_range_ = 0;
  int64_t min_ = INT64_MAX;
  int64_t max_ = 0;
  // Exact sum of recorded values; 128 bits so long runs cannot overflow and
  // merged means are exact, not order-dependent floating-point sums.
  __int128 sum_ = 0;
};

}  // namespace perflab::models

#endif  // PERFLAB_MODELS_HISTOGRAM_H_
