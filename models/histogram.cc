#include "models/histogram.h"

#include <algorithm>
#include <bit>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "models/percentiles.h"

namespace perflab::models {

namespace {

// HdrHistogram's layout: enough linear sub-buckets per power of two that one
// sub-bucket is at most 10^-digits of the values it holds (digits 1..5).
int SubBucketHalfCountMagnitude(int significant_digits) {
  int64_t largest_single_unit = 2;
  for (int i = 0; i < significant_digits; ++i) largest_single_unit *= 10;
  int sub_bucket_count_magnitude = static_cast<int>(
      std::bit_width(static_cast<uint64_t>(largest_single_unit - 1)));
  return std::max(sub_bucket_count_magnitude, 1) - 1;
}

int UnitMagnitude(int64_t lowest_discernible) {
  return std::bit_width(static_cast<uint64_t>(lowest_discernible)) - 1;
}

}  // namespace

absl::StatusOr<Histogram> Histogram::Create(const HistogramOptions& options) {
  if (options.significant_digits < 1 || options.significant_digits > 5) {
    return absl::InvalidArgumentError(
        absl::StrCat("histogram significant_digits: got ",
                     options.significant_digits, "; accepted: 1..5"));
  }
  if (options.lowest_discernible < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("histogram lowest_discernible: got ",
                     options.lowest_discernible, "; accepted: >= 1"));
  }
  // The first bucket ends at sub_bucket_count << unit_magnitude, which must
  // fit in int64 (HdrHistogram's own bound: magnitudes summing to <= 61);
  // past it the bucket count could not be computed.
  const int magnitudes =
      UnitMagnitude(options.lowest_discernible) +
      SubBucketHalfCountMagnitude(options.significant_digits);
  if (magnitudes > 61) {
    const int64_t largest =
        int64_t{1} << (62 -
                       SubBucketHalfCountMagnitude(options.significant_digits));
    return absl::InvalidArgumentError(absl::StrCat(
        "histogram lowest_discernible: got ", options.lowest_discernible,
        "; accepted with ", options.significant_digits,
        " significant digits: < ", largest));
  }
  if (options.highest_trackable < 2 * options.lowest_discernible) {
    return absl::InvalidArgumentError(absl::StrCat(
        "histogram highest_trackable: got ", options.highest_trackable,
        "; accepted: >= 2 * lowest_discernible (",
        2 * options.lowest_discernible, ")"));
  }
  return Histogram(options);
}

Histogram::Histogram(const HistogramOptions& options) : options_(options) {
  sub_bucket_half_count_magnitude_ =
      SubBucketHalfCountMagnitude(options.significant_digits);
  unit_magnitude_ = UnitMagnitude(options.lowest_discernible);
  sub_bucket_count_ = int64_t{1} << (sub_bucket_half_count_magnitude_ + 1);
  sub_bucket_half_count_ = sub_bucket_count_ / 2;
  sub_bucket_mask_ = (sub_bucket_count_ - 1) << unit_magnitude_;

  int64_t smallest_untrackable = sub_bucket_count_ << unit_magnitude_;
  int buckets = 1;
  while (smallest_untrackable <= options.highest_trackable) {
    if (smallest_untrackable > INT64_MAX / 2) {
      ++buckets;
      break;
    }
    smallest_untrackable <<= 1;
    ++buckets;
  }
  counts_.resize(static_cast<size_t>((buckets + 1) * sub_bucket_half_count_));
}

int64_t Histogram::ValueAt(size_t index) const {
  int64_t i = static_cast<int64_t>(index);
  int bucket = static_cast<int>(i >> sub_bucket_half_count_magnitude_) - 1;
  int64_t sub = (i & (sub_bucket_half_count_ - 1)) + sub_bucket_half_count_;
  if (bucket < 0) {
    sub -= sub_bucket_half_count_;
    bucket = 0;
  }
  return sub << (bucket + unit_magnitude_);
}

int64_t Histogram::SizeOfEquivalentRange(int64_t value) const {
  int bucket = BucketIndex(value);
  int sub = SubBucketIndex(value, bucket);
  int adjusted = (sub >= sub_bucket_count_) ? bucket + 1 : bucket;
  return int64_t{1} << (unit_magnitude_ + adjusted);
}

int64_t Histogram::LowestEquivalent(int64_t value) const {
  int bucket = BucketIndex(value);
  int64_t sub = SubBucketIndex(value, bucket);
  return sub << (bucket + unit_magnitude_);
}

int64_t Histogram::HighestEquivalent(int64_t value) const {
  return LowestEquivalent(value) + SizeOfEquivalentRange(value) - 1;
}

bool Histogram::RecordRejected(int64_t count) {
  if (count > 0) out_of_range_ += count;
  return count == 0;
}

bool Histogram::RecordCorrected(int64_t value, int64_t expected_interval) {
  if (!Record(value)) return false;
  if (expected_interval <= 0) return true;
  for (int64_t missing = value - expected_interval;
       missing >= expected_interval; missing -= expected_interval) {
    Record(missing);
  }
  return true;
}

absl::Status Histogram::Merge(const Histogram& other) {
  const HistogramOptions& a = options_;
  const HistogramOptions& b = other.options_;
  if (a.lowest_discernible != b.lowest_discernible ||
      a.highest_trackable != b.highest_trackable ||
      a.significant_digits != b.significant_digits) {
    return absl::InvalidArgumentError(
        "histogram merge: the two histograms have different options");
  }
  // Every bucket count is at most the total, so checking the totals keeps
  // all of them, and the 128-bit sum, from overflowing.
  if (count_ > INT64_MAX - other.count_ ||
      out_of_range_ > INT64_MAX - other.out_of_range_) {
    return absl::InvalidArgumentError(
        "histogram merge: the counts add up past 2^63 - 1");
  }
  for (size_t i = 0; i < counts_.size(); ++i) counts_[i] += other.counts_[i];
  count_ += other.count_;
  out_of_range_ += other.out_of_range_;
  sum_ += other.sum_;
  min_ = std::min(min_, other.min_);
  max_ = std::max(max_, other.max_);
  return absl::OkStatus();
}

int64_t Histogram::Percentile(double p) const {
  if (count_ == 0) return 0;
  p = std::clamp(p, 0.0, 100.0);
  int64_t rank = NearestRank(p, count_);
  int64_t seen = 0;
  for (size_t i = CountsIndex(min_); i < counts_.size(); ++i) {
    seen += counts_[i];
    if (seen >= rank) {
      // The top of the bucket, but never above the largest value recorded.
      return std::min(HighestEquivalent(ValueAt(i)), max_);
    }
  }
  return max_;
}

double Histogram::Mean() const {
  if (count_ == 0) return 0;
  return static_cast<double>(sum_) / static_cast<double>(count_);
}

void Histogram::ForEachBucket(
    const std::function<void(int64_t, int64_t, int64_t)>& fn) const {
  if (count_ == 0) return;
  for (size_t i = CountsIndex(min_); i <= CountsIndex(max_); ++i) {
    if (counts_[i] == 0) continue;
    int64_t lo = ValueAt(i);
    fn(lo, HighestEquivalent(lo), counts_[i]);
  }
}

bool Histogram::operator==(const Histogram& o) const {
  return options_.lowest_discernible == o.options_.lowest_discernible &&
         options_.highest_trackable == o.options_.highest_trackable &&
         options_.significant_digits == o.options_.significant_digits &&
         counts_ == o.counts_ && count_ == o.count_ && sum_ == o.sum_ &&
         min_ == o.min_ && max_ == o.max_ && out_of_range_ == o.out_of_range_;
}

}  // namespace perflab::models
