#include "bench/order_service/pg_orders.h"

#include <cmath>
#include <string>
#include <tuple>

#include "absl/strings/str_cat.h"
#include "bench/order_service/dataset.h"
#include "bench/order_service/orders.h"
#include "bench/order_service/sqlite_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/order_service/pg_test_env.h"
#include "tests/order_service/test_db.h"

namespace perflab::orders {
namespace {

using ::testing::HasSubstr;
using testing::SharedCluster;
using testing::SmallDatabase;

// The small dataset (scale 0.02) loaded twice: with and without the
// composite index on orders(customer_id, created_at).
struct Loaded {
  PgLoadReport with_index;
  PgLoadReport without_index;
};

const Loaded* LoadOnce() {
  static const Loaded* loaded = []() -> const Loaded* {
    PgCluster* cluster = SharedCluster();
    if (cluster == nullptr) return nullptr;
    auto* out = new Loaded;
    for (auto [db, index, report] :
         {std::tuple{"orders_idx", true, &out->with_index},
          std::tuple{"orders_noidx", false, &out->without_index}}) {
      absl::Status made = cluster->CreateDatabase(db);
      EXPECT_TRUE(made.ok()) << made;
      auto r = LoadPgDataset(cluster->UnixConninfo(db), SmallDatabase(), index);
      EXPECT_TRUE(r.ok()) << r.status();
      if (!r.ok()) return nullptr;
      *report = *r;
    }
    return out;
  }();
  return loaded;
}

// Money compared in cents: SQLite holds the generator's double (10 + k/100),
// PostgreSQL the DECIMAL parsed back, which may differ in the last bit.
int64_t Cents(double v) { return std::llround(v * 100); }

::testing::AssertionResult SamePage(const Page& want, const Page& got) {
  if (want.customer_id != got.customer_id) {
    return ::testing::AssertionFailure() << "customer differs";
  }
  if (want.orders.size() != got.orders.size()) {
    return ::testing::AssertionFailure()
           << want.orders.size() << " orders vs " << got.orders.size();
  }
  for (size_t i = 0; i < want.orders.size(); ++i) {
    const Order& a = want.orders[i];
    const Order& b = got.orders[i];
    if (a.id != b.id || a.status != b.status ||
        Cents(a.total) != Cents(b.total) || a.created_at != b.created_at ||
        a.items.size() != b.items.size()) {
      return ::testing::AssertionFailure()
             << "order " << i << ": id " << a.id << " vs " << b.id;
    }
    for (size_t j = 0; j < a.items.size(); ++j) {
      const Item& x = a.items[j];
      const Item& y = b.items[j];
      if (x.product_id != y.product_id || x.product != y.product ||
          x.qty != y.qty || Cents(x.price) != Cents(y.price)) {
        return ::testing::AssertionFailure()
               << "order " << a.id << " item " << j << " differs";
      }
    }
  }
  return ::testing::AssertionSuccess();
}

TEST(LoadPgDataset, CopiesEveryRowOfTheSmallDataset) {
  const Loaded* loaded = LoadOnce();
  ASSERT_NE(loaded, nullptr);
  // Scale 0.02: 5,000 x 0.02 customers, 2,000 x 0.02 products, 40 orders a
  // customer, 3 lines an order.
  for (const PgLoadReport* r : {&loaded->with_index, &loaded->without_index}) {
    EXPECT_EQ(r->shape.customers, 100);
    EXPECT_EQ(r->shape.products, 40);
    EXPECT_EQ(r->shape.orders, 4000);
    EXPECT_EQ(r->shape.order_items, 12000);
    EXPECT_EQ(r->rows_copied, 100 + 40 + 4000 + 12000);
  }
  auto pg = PgConnection::Open(SharedCluster()->UnixConninfo("orders_idx"));
  ASSERT_TRUE(pg.ok()) << pg.status();
  EXPECT_EQ(*pg->Scalar("SELECT count(*) FROM order_items"), "12000");
  // Every order has exactly three lines and one of the 100 customers.
  EXPECT_EQ(*pg->Scalar("SELECT count(*) FROM (SELECT order_id FROM "
                        "order_items GROUP BY order_id HAVING count(*) = 3) t"),
            "4000");
  EXPECT_EQ(*pg->Scalar("SELECT count(DISTINCT customer_id) FROM orders"),
            "100");
}

TEST(LoadPgDataset, MoneyKeepsItsCents) {
  ASSERT_NE(LoadOnce(), nullptr);
  auto sqlite = OrderRepository::Open(SmallDatabase());
  ASSERT_TRUE(sqlite.ok()) << sqlite.status();
  auto pg = PgConnection::Open(SharedCluster()->UnixConninfo("orders_noidx"));
  ASSERT_TRUE(pg.ok()) << pg.status();
  auto db = OpenDatabase(SmallDatabase(), /*read_only=*/true);
  ASSERT_TRUE(db.ok());
  // Sums in whole cents on both sides: a truncated or shifted price changes
  // them.
  auto stmt = Prepare(db->get(),
                      "SELECT sum(CAST(round(total * 100) AS INTEGER)) FROM "
                      "orders");
  ASSERT_TRUE(stmt.ok());
  ASSERT_EQ(sqlite3_step(stmt->get()), SQLITE_ROW);
  EXPECT_EQ(*pg->Scalar("SELECT sum(round(total * 100)::bigint) FROM orders"),
            absl::StrCat(sqlite3_column_int64(stmt->get(), 0)));
}

TEST(LoadPgDataset, TheIndexIsThereOnlyWhenAsked) {
  ASSERT_NE(LoadOnce(), nullptr);
  const std::string explain =
      "EXPLAIN SELECT id FROM orders WHERE customer_id = 7 ORDER BY "
      "created_at DESC, id DESC LIMIT 20";
  auto with = PgConnection::Open(SharedCluster()->UnixConninfo("orders_idx"));
  auto without =
      PgConnection::Open(SharedCluster()->UnixConninfo("orders_noidx"));
  ASSERT_TRUE(with.ok() && without.ok());
  const std::string count =
      "SELECT count(*) FROM pg_indexes WHERE indexname = 'ix_orders_cust'";
  EXPECT_EQ(*with->Scalar(count), "1");
  EXPECT_EQ(*without->Scalar(count), "0");
  // Both keep the index the N+1's item lookups need.
  EXPECT_EQ(*without->Scalar("SELECT count(*) FROM pg_indexes WHERE indexname "
                             "= 'ix_items_order'"),
            "1");
  // The whole plan, one line per row: a sequential scan without the index,
  // the index with it.
  std::string plan_text;
  PGresult* r = Pq().PQexec(without->get(), explain.c_str());
  for (int i = 0; i < Pq().PQntuples(r); ++i)
    plan_text += Pq().PQgetvalue(r, i, 0);
  Pq().PQclear(r);
  EXPECT_THAT(plan_text, HasSubstr("Seq Scan on orders"));
  plan_text.clear();
  r = Pq().PQexec(with->get(), explain.c_str());
  for (int i = 0; i < Pq().PQntuples(r); ++i)
    plan_text += Pq().PQgetvalue(r, i, 0);
  Pq().PQclear(r);
  EXPECT_THAT(plan_text, HasSubstr("ix_orders_cust"));
}

TEST(LoadPgDataset, RefusesADatabaseThatHoldsTheTablesAndLeavesThem) {
  ASSERT_NE(LoadOnce(), nullptr);
  const std::string conninfo = SharedCluster()->UnixConninfo("orders_idx");
  auto again = LoadPgDataset(conninfo, SmallDatabase(), true);
  ASSERT_FALSE(again.ok());
  EXPECT_THAT(again.status().message(), HasSubstr("already exists"));
  auto pg = PgConnection::Open(conninfo);
  ASSERT_TRUE(pg.ok());
  EXPECT_EQ(*pg->Scalar("SELECT count(*) FROM orders"), "4000");
}

TEST(DropCustomerIndex, MakesAnUnindexedTwinOfALoadedDatabase) {
  ASSERT_NE(LoadOnce(), nullptr);
  PgCluster* cluster = SharedCluster();
  ASSERT_TRUE(cluster->CreateDatabase("orders_twin", "orders_idx").ok());
  ASSERT_TRUE(DropCustomerIndex(cluster->UnixConninfo("orders_twin")).ok());
  auto twin = PgConnection::Open(cluster->UnixConninfo("orders_twin"));
  ASSERT_TRUE(twin.ok()) << twin.status();
  EXPECT_EQ(*twin->Scalar("SELECT count(*) FROM pg_indexes WHERE indexname = "
                          "'ix_orders_cust'"),
            "0");
  EXPECT_EQ(*twin->Scalar("SELECT count(*) FROM orders"), "4000");
  auto original = PgConnection::Open(cluster->UnixConninfo("orders_idx"));
  ASSERT_TRUE(original.ok());
  EXPECT_EQ(*original->Scalar("SELECT count(*) FROM pg_indexes WHERE "
                              "indexname = 'ix_orders_cust'"),
            "1");
  // A copy of a database that does not exist is the server's refusal.
  EXPECT_EQ(cluster->CreateDatabase("orders_bad", "no_such_db").code(),
            absl::StatusCode::kFailedPrecondition);
}

TEST(PgOrderRepository, ServesTheSamePagesAsSqlite) {
  ASSERT_NE(LoadOnce(), nullptr);
  auto sqlite = OrderRepository::Open(SmallDatabase());
  ASSERT_TRUE(sqlite.ok()) << sqlite.status();
  PgCluster* cluster = SharedCluster();
  for (const char* db : {"orders_idx", "orders_noidx"}) {
    for (const std::string& conninfo :
         {cluster->UnixConninfo(db), cluster->TcpConninfo(db)}) {
      auto pg = PgOrderRepository::Open(conninfo);
      ASSERT_TRUE(pg.ok()) << pg.status();
      for (int64_t customer : {1, 2, 37, 99, 100}) {
        SCOPED_TRACE(absl::StrCat(conninfo, " customer ", customer));
        auto want = (*sqlite)->LoadPageJoin(customer);
        ASSERT_TRUE(want.ok()) << want.status();
        ASSERT_EQ(want->orders.size(), 20u);
        auto join = (*pg)->LoadPageJoin(customer);
        ASSERT_TRUE(join.ok()) << join.status();
        EXPECT_TRUE(SamePage(*want, *join));
        auto n1 = (*pg)->LoadPageNPlusOne(customer);
        ASSERT_TRUE(n1.ok()) << n1.status();
        EXPECT_TRUE(SamePage(*want, *n1));
      }
    }
  }
}

TEST(PgOrderRepository, CountsOneStatementPerRoundTrip) {
  ASSERT_NE(LoadOnce(), nullptr);
  auto pg = PgOrderRepository::Open(SharedCluster()->TcpConninfo("orders_idx"));
  ASSERT_TRUE(pg.ok()) << pg.status();
  ASSERT_TRUE((*pg)->LoadPageNPlusOne(5).ok());
  // 1 head query + 20 item queries + 20 x 3 product queries.
  EXPECT_EQ((*pg)->stats().statements, 1 + 20 + 60);
  // 20 heads + 60 lines + 60 product names.
  EXPECT_EQ((*pg)->stats().rows_read, 20 + 60 + 60);
  (*pg)->ResetStats();
  ASSERT_TRUE((*pg)->LoadPageJoin(5).ok());
  EXPECT_EQ((*pg)->stats().statements, 1);
  EXPECT_EQ((*pg)->stats().rows_read, 60);
  (*pg)->ResetStats();
  ASSERT_TRUE((*pg)->RoundTrip().ok());
  EXPECT_EQ((*pg)->stats().statements, 1);
  EXPECT_TRUE(PgConnectQueryClose(SharedCluster()->TcpConninfo()).ok());
}

TEST(PgOrderRepository, AnUnknownCustomerGetsAnEmptyPage) {
  ASSERT_NE(LoadOnce(), nullptr);
  auto pg =
      PgOrderRepository::Open(SharedCluster()->UnixConninfo("orders_idx"));
  ASSERT_TRUE(pg.ok()) << pg.status();
  auto page = (*pg)->LoadPageJoin(101);
  ASSERT_TRUE(page.ok());
  EXPECT_TRUE(page->orders.empty());
}

TEST(PgOrderRepository, AMissingProductIsAnErrorNotABlankName) {
  ASSERT_NE(LoadOnce(), nullptr);
  PgCluster* cluster = SharedCluster();
  ASSERT_TRUE(cluster->CreateDatabase("orders_broken", "orders_idx").ok());
  const std::string conninfo = cluster->UnixConninfo("orders_broken");
  {
    auto pg = PgConnection::Open(conninfo);
    ASSERT_TRUE(pg.ok()) << pg.status();
    ASSERT_TRUE(pg->Exec("DELETE FROM products WHERE id IN (SELECT "
                         "product_id FROM order_items i JOIN orders o ON "
                         "o.id = i.order_id WHERE o.customer_id = 3)")
                    .ok());
  }
  auto repo = PgOrderRepository::Open(conninfo);
  ASSERT_TRUE(repo.ok()) << repo.status();
  auto page = (*repo)->LoadPageNPlusOne(3);
  EXPECT_EQ(page.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(page.status().message(), HasSubstr("product "));
}

TEST(PgConnection, AnUnreachableServerIsUnavailable) {
  auto conn = PgConnection::Open(
      "host=127.0.0.1 port=1 dbname=x user=perflab connect_timeout=2");
  ASSERT_EQ(conn.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(conn.status().message(), HasSubstr("cannot connect"));
}

}  // namespace
}  // namespace perflab::orders
