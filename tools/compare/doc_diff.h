// Compares two outputs of perflab's deterministic commands (`perflab sim`,
// `sweep`, `capstone` with --format json): the same inputs and seed must give
// byte-identical results, so any difference is a change of behaviour. Lists
// every field that differs (path, both values, change) and, for a field that
// carries a 95 % confidence half-width beside it, calls a difference inside
// both intervals `same`. Pure functions; thread-safe.
//
// A field `x` has a half-width when its object also holds one of `x_ci95`,
// `x_ci95_half_width`, `x_half_width`, or, for `stem_unit` names,
// `stem_ci95_unit` (as `perflab sim mmc` prints mean_wait_ci95_s).
#ifndef PERFLAB_TOOLS_COMPARE_DOC_DIFF_H_
#define PERFLAB_TOOLS_COMPARE_DOC_DIFF_H_

#include "absl/status/statusor.h"
#include "core/document.h"
#include "rapidjson/document.h"

namespace perflab::compare {

struct DocDiff {
  core::Document doc{"Result comparison"};
  bool differs = false;  // some field differs beyond its intervals
};

// InvalidArgument when either holds NaN or Infinity (the reader takes them
// for Google Benchmark's files; a perflab result has none), or when a
// field's change or change in percent is past a double's range.
absl::StatusOr<DocDiff> DiffResults(const rapidjson::Value& base,
                                    const rapidjson::Value& contender);

}  // namespace perflab::compare

#endif  // PERFLAB_TOOLS_COMPARE_DOC_DIFF_H_
