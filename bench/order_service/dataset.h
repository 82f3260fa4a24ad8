// The case study's order database, generated deterministically into SQLite:
// customers, products, orders (40 per customer, created_at spread over ~116
// days) and order_items (3 per order), the index on order_items(order_id) and,
// optionally, the composite index orders(customer_id, created_at).
//
// Same options -> same rows, on every run and build. A file is only used after
// CheckDataset has confirmed its schema, meta table and row counts, so a
// missing, truncated or wrong-shaped file is never silently benchmarked.
// Functions here are thread-compatible (no shared state); concurrent builders
// of the same path are safe because each writes a private temp file and
// renames. A file that is not a perflab dataset is never replaced.
#ifndef PERFLAB_BENCH_ORDER_SERVICE_DATASET_H_
#define PERFLAB_BENCH_ORDER_SERVICE_DATASET_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/env.h"

namespace perflab::orders {

struct DatasetOptions {
  // Multiplies the customer and product counts (orders per customer and lines
  // per order stay fixed); 0.1 is the seed's "a tenth of the data".
  double scale = 1.0;
  // Seed of the row generator; same seed -> same rows.
  uint64_t seed = 42;
  // Create orders(customer_id, created_at). Benchmarks that need the scan
  // force it with NOT INDEXED, so the same file serves both sides.
  bool customer_index = true;
};

// Row counts implied by the options (5,000 / 2,000 / 200,000 / 600,000 at 1.0).
struct DatasetShape {
  int64_t customers = 0;
  int64_t products = 0;
  int64_t orders = 0;
  int64_t order_items = 0;
};
inline constexpr int64_t kOrdersPerCustomer = 40;
inline constexpr int64_t kItemsPerOrder = 3;
inline constexpr int64_t kBaseCustomers = 5000;
inline constexpr int64_t kBaseProducts = 2000;

// The largest scale any command accepts: 50,000 customers, 2 million orders
// and 6 million order lines.
inline constexpr double kMaxScale = 10;

// InvalidArgument if scale is not a finite number in (0, kMaxScale].
absl::StatusOr<DatasetShape> ShapeFor(const DatasetOptions& options);

struct BuildReport {
  std::string path;
  DatasetShape shape;
  double seconds = 0;  // wall time of the generation (or of the check)
  int64_t file_bytes = 0;
  bool rebuilt = false;  // EnsureDataset: false when the file was reused
  std::string reason;    // EnsureDataset: why it was (re)built
};

// OK if `path` may be replaced by a new dataset: it does not exist, or it is
// a regular file that is a perflab dataset (an SQLite file whose
// perflab_meta table names a perflab-orders generator, of any version).
// Anything else -- "-", a device, a directory, a symbolic link, another
// file -- is InvalidArgument in one line, and left alone.
absl::Status CheckReplaceable(const std::string& path);

// Writes a fresh database to `path` (a temp file created exclusively beside
// it, then renamed), in one transaction with prepared statements; refuses
// what CheckReplaceable refuses.
absl::StatusOr<BuildReport> BuildDataset(const std::string& path,
                                         const DatasetOptions& options);

// OK if `path` holds exactly the database `options` describe (tables, columns,
// indexes, meta values and row counts); otherwise NotFound (no file) or
// FailedPrecondition naming the first difference.
absl::Status CheckDataset(const std::string& path,
                          const DatasetOptions& options);

// Reuses `path` if CheckDataset passes, else rebuilds it (if
// CheckReplaceable allows) and says why.
absl::StatusOr<BuildReport> EnsureDataset(const std::string& path,
                                          const DatasetOptions& options);

// Where generated databases live when no flag names a file: the first of
// $PERFLAB_DATASET_DIR, $XDG_CACHE_HOME/perflab/datasets (when absolute),
// $HOME/.cache/perflab/datasets, and ./perflab-datasets. Nothing of the
// machine that built perflab is compiled in, so an installed binary works
// anywhere; ctest points PERFLAB_DATASET_DIR into the build tree.
std::string DefaultDatasetDir(const core::Env& env = core::Env::Default());

// DefaultDatasetDir()/orders-scale-SCALE.sqlite: the database of a scale.
std::string DefaultDatasetPath(double scale,
                               const core::Env& env = core::Env::Default());

}  // namespace perflab::orders

#endif  // PERFLAB_BENCH_ORDER_SERVICE_DATASET_H_
