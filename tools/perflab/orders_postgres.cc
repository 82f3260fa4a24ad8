#include "tools/perflab/orders_postgres.h"

#include <algorithm>
#include <iostream>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

#if PERFLAB_HAVE_POSTGRESQL
#include "bench/order_service/pg_cluster.h"
#include "bench/order_service/pg_libpq.h"
#include "bench/order_service/pg_orders.h"
#endif

namespace perflab::cli {

#if PERFLAB_HAVE_POSTGRESQL
namespace {

constexpr char kDatabase[] = "orders";

class Running : public OrdersPostgres {
 public:
  Running(std::unique_ptr<orders::PgCluster> cluster, bool tcp)
      : cluster_(std::move(cluster)), tcp_(tcp) {}

  std::function<absl::StatusOr<std::unique_ptr<orders::PageStore>>()>
  StoreFactory() const override {
    return [conninfo = Conninfo()]()
               -> absl::StatusOr<std::unique_ptr<orders::PageStore>> {
      auto repo = orders::PgOrderRepository::Open(conninfo);
      if (!repo.ok()) return repo.status();
      return std::unique_ptr<orders::PageStore>(*std::move(repo));
    };
  }
  std::string Where() const override {
    return absl::StrCat(
        "PostgreSQL at ", cluster_->dir(), ", over ",
        tcp_ ? absl::StrCat("loopback TCP port ", cluster_->port())
             : std::string("the Unix socket"));
  }
  std::string Conninfo() const {
    return tcp_ ? cluster_->TcpConninfo(kDatabase)
                : cluster_->UnixConninfo(kDatabase);
  }

 private:
  std::unique_ptr<orders::PgCluster> cluster_;
  bool tcp_;
};

}  // namespace

absl::Status OrdersPostgres::CheckInstalled() {
  absl::StatusOr<std::string> bin = orders::FindPgBinDir();
  if (!bin.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("--db postgres: ", bin.status().message()));
  }
  // libpq is loaded here, not at start-up (bench/order_service/pg_libpq.h).
  if (absl::StatusOr<const orders::Libpq*> pq = orders::LoadLibpq(); !pq.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("--db postgres: ", pq.status().message()));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<OrdersPostgres>> OrdersPostgres::Start(
    const OrdersPostgresOptions& options) {
  if (absl::Status s = CheckInstalled(); !s.ok()) return s;
  orders::PgClusterOptions co;
  // Room for the pool and the loader's own session, at least the default.
  co.settings.emplace_back("max_connections",
                           absl::StrCat(std::max(40, options.db_pool + 8)));
  auto cluster = orders::PgCluster::Start(co);
  if (!cluster.ok()) {
    const absl::Status& s = cluster.status();
    return absl::Status(s.code() == absl::StatusCode::kNotFound
                            ? absl::StatusCode::kInvalidArgument
                            : s.code(),
                        absl::StrCat("--db postgres: ", s.message()));
  }
  if (absl::Status s = (*cluster)->CreateDatabase(kDatabase); !s.ok()) {
    return s;
  }
  auto running = std::make_unique<Running>(*std::move(cluster), options.tcp);
  auto loaded = orders::LoadPgDataset(running->Conninfo(), options.sqlite_path,
                                      options.index);
  if (!loaded.ok()) {
    return absl::Status(loaded.status().code(),
                        absl::StrCat("--db postgres: loading the dataset: ",
                                     loaded.status().message()));
  }
  std::cerr << "perflab orders-service: " << running->Where() << ", "
            << loaded->rows_copied << " rows copied in "
            << absl::StrFormat("%.1f", loaded->seconds) << " s" << std::endl;
  return running;
}

#else  // built without libpq

absl::Status OrdersPostgres::CheckInstalled() {
  return absl::InvalidArgumentError(
      "--db postgres: this perflab was built without libpq; install "
      "libpq-dev and postgresql, then configure the build again");
}

absl::StatusOr<std::unique_ptr<OrdersPostgres>> OrdersPostgres::Start(
    const OrdersPostgresOptions&) {
  return CheckInstalled();
}

#endif

}  // namespace perflab::cli
