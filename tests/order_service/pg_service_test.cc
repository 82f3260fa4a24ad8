// The order service backed by PostgreSQL (a PageStore pool of libpq
// sessions): the same page bytes as the SQLite-backed service for the same
// customers, by N+1 and by the join; and a database killed mid-run makes the
// pages 503 with one line in the log, without a hang or a crash.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "bench/http/net.h"
#include "bench/order_service/pg_cluster.h"
#include "bench/order_service/pg_orders.h"
#include "bench/order_service/server.h"
#include "core/mutex.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/order_service/test_db.h"

namespace perflab::orders {
namespace {

using testing::SmallDatabase;

// A cluster holding the small dataset in database "orders".
std::unique_ptr<PgCluster> LoadedCluster(bool index) {
  auto cluster = PgCluster::Start();
  EXPECT_TRUE(cluster.ok()) << cluster.status();
  if (!cluster.ok()) return nullptr;
  EXPECT_TRUE((*cluster)->CreateDatabase("orders").ok());
  auto loaded =
      LoadPgDataset((*cluster)->UnixConninfo("orders"), SmallDatabase(), index);
  EXPECT_TRUE(loaded.ok()) << loaded.status();
  return loaded.ok() ? std::move(*cluster) : nullptr;
}

HandlerOptions OnPostgres(HandlerOptions h, const std::string& conninfo) {
  h.open_store = [conninfo]() -> absl::StatusOr<std::unique_ptr<PageStore>> {
    auto repo = PgOrderRepository::Open(conninfo);
    if (!repo.ok()) return repo.status();
    return std::unique_ptr<PageStore>(*std::move(repo));
  };
  return h;
}

struct Answer {
  int status = 0;
  std::string body;
};

std::vector<Answer> GetAll(const OrdersService& s,
                           const std::vector<std::string>& paths) {
  http::HttpClient client(s.port(), http::ClientOptions{.timeout_ms = 30'000});
  std::vector<Answer> out;
  for (const std::string& p : paths) {
    auto r = client.Get(p);
    out.push_back(r.ok() ? Answer{r->status, r->body}
                         : Answer{-1, std::string(r.status().message())});
  }
  return out;
}

// Customers 1..100 exist at the test scale; 1000 does not (404 on both).
const std::vector<std::string> kPaths = {
    "/customers/1/orders", "/customers/7/orders", "/customers/42/orders",
    "/customers/100/orders", "/customers/1000/orders"};

TEST(PostgresBackedService, ServesTheSameBytesAsSqlite) {
  auto cluster = LoadedCluster(/*index=*/true);
  ASSERT_NE(cluster, nullptr);
  for (bool join : {false, true}) {
    const HandlerOptions h = {
        .dataset_path = SmallDatabase(), .index = true, .join = join};
    auto sqlite = OrdersService::Start({.inventory_ms = 0, .handler = h});
    auto pg = OrdersService::Start(
        {.inventory_ms = 0,
         .handler = OnPostgres(h, cluster->UnixConninfo("orders"))});
    ASSERT_TRUE(sqlite.ok()) << sqlite.status();
    ASSERT_TRUE(pg.ok()) << pg.status();
    const std::vector<Answer> want = GetAll(**sqlite, kPaths);
    const std::vector<Answer> got = GetAll(**pg, kPaths);
    ASSERT_EQ(got.size(), kPaths.size());
    for (size_t i = 0; i < kPaths.size(); ++i) {
      EXPECT_EQ(want[i].status, i + 1 < kPaths.size() ? 200 : 404) << kPaths[i];
      EXPECT_EQ(got[i].status, want[i].status) << kPaths[i];
      EXPECT_EQ(got[i].body, want[i].body) << kPaths[i] << " join=" << join;
    }
    // Four pages: one statement each by the join, 81 by N+1 (20 orders of
    // three lines: 1 + 20 + 60), plus the unknown customer's head query.
    EXPECT_EQ((*pg)->stats().handler.queries, join ? 5 : 4 * 81 + 1);
    EXPECT_EQ((*sqlite)->stats().handler.queries,
              (*pg)->stats().handler.queries);
  }
}

TEST(PostgresBackedService, AKilledDatabaseAnswers503AndLogsOneLine) {
  auto cluster = LoadedCluster(/*index=*/false);
  ASSERT_NE(cluster, nullptr);
  core::Mutex mu;
  std::vector<std::string> lines;
  HandlerOptions h =
      OnPostgres({.dataset_path = "", .join = true, .db_pool = 2},
                 cluster->UnixConninfo("orders"));
  h.log = [&](std::string_view line) {
    core::MutexLock lock(&mu);
    lines.emplace_back(line);
  };
  auto s = OrdersService::Start({.inventory_ms = 0, .handler = h});
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(GetAll(**s, {kPaths[1]})[0].status, 200);

  cluster->Crash();
  const std::vector<Answer> after =
      GetAll(**s, {kPaths[0], kPaths[1], kPaths[2]});
  for (const Answer& a : after) {
    EXPECT_EQ(a.status, 503) << a.body;
    EXPECT_THAT(a.body, ::testing::HasSubstr("database unavailable"));
  }
  const HandlerStats stats = (*s)->stats().handler;
  EXPECT_EQ(stats.pages, 1);
  EXPECT_EQ(stats.db_lost, 3);
  EXPECT_EQ(stats.errors, 3);
  // The service itself still answers.
  EXPECT_EQ(GetAll(**s, {"/stats"})[0].status, 200);
  (*s)->Stop();
  core::MutexLock lock(&mu);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_TRUE(absl::StrContains(lines[0], "lost the database connection"))
      << lines[0];
}

}  // namespace
}  // namespace perflab::orders
