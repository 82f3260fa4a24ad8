// `perflab history changes` and the data behind `history plot`: the change
// points of every stored series (models/change_points), as a Document and as
// the JSON the plot script draws. Pure functions; thread-safe.
#ifndef PERFLAB_TOOLS_HISTORY_CHANGES_H_
#define PERFLAB_TOOLS_HISTORY_CHANGES_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/document.h"
#include "models/change_points.h"
#include "tools/history/store.h"

namespace perflab::history {

struct ChangesOptions {
  std::string metric = "real_time";
  models::ChangePointOptions detector;
  int since = 0;             // > 0: look for regressions in the newest N
  double threshold_pct = 5;  // a regression is a rise beyond this
};

struct SeriesChanges {
  const Series* series = nullptr;
  std::vector<models::ChangePoint> changes;  // index: into series->commits
};

struct Changes {
  std::vector<SeriesChanges> per_series;
  bool regression = false;  // in the newest `since` commits, beyond threshold
};

absl::StatusOr<Changes> FindChanges(const History& h,
                                    const ChangesOptions& options);

// Table `changes`: benchmark, commit, subject, medians before and after,
// change (%), p-value, regression; fields for the machine and the counts.
core::Document ChangesDocument(const History& h, const Changes& c,
                               const ChangesOptions& options,
                               const std::string& machine);

// What tools/plots/history.py draws, as a record for JSON only (readers see
// `history plot`'s own table): {"metric", "commits": [{"sha", "subject"}],
// "series": [{"benchmark", "unit", "points": [{"commit", "median", "min",
// "max"}], "changes": [{"commit", "change_pct"}]}]}, a commit by its index
// into "commits".
core::Document PlotDocument(const History& h, const Changes& c,
                            const ChangesOptions& options);

}  // namespace perflab::history

#endif  // PERFLAB_TOOLS_HISTORY_CHANGES_H_
