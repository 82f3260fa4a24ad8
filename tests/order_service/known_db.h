// A tiny hand-written order database in memory, for tests that compare pages
// with content known without running the code under test: fractional totals
// and prices (an integer read would truncate them), two orders of one
// customer with the same created_at (a join grouped by time would merge
// them), order ids not in time order, and a second customer whose order is the
// newest in the table (a missing customer filter would show it).
//
// The database lives while the returned KnownDatabase does; repositories open
// it by uri() (SQLite shared-cache in-memory URI). One per test, not shared.
#ifndef PERFLAB_TESTS_LAB_KNOWN_DB_H_
#define PERFLAB_TESTS_LAB_KNOWN_DB_H_

#include <string>

#include "bench/order_service/orders.h"
#include "bench/order_service/sqlite_util.h"
#include "gtest/gtest.h"

namespace perflab::orders::testing {

class KnownDatabase {
 public:
  // `name` must be unique among the databases alive at once in the process.
  explicit KnownDatabase(const std::string& name)
      : uri_("file:" + name + "?mode=memory&cache=shared") {
    auto db = OpenDatabase(uri_, /*read_only=*/false);
    EXPECT_TRUE(db.ok()) << db.status();
    if (!db.ok()) return;
    keeper_ = std::move(*db);
    // The order database's schema (bench/order_service/dataset.cc), typed as
    // the seed declared it.
    auto s = Exec(keeper_.get(), R"sql(
      CREATE TABLE customers(id INTEGER PRIMARY KEY, name VARCHAR(40));
      CREATE TABLE products(id INTEGER PRIMARY KEY, name VARCHAR(40));
      CREATE TABLE orders(id INTEGER PRIMARY KEY, customer_id BIGINT NOT NULL,
        status VARCHAR(10), total DECIMAL(10,2), created_at BIGINT);
      CREATE TABLE order_items(id INTEGER PRIMARY KEY, order_id BIGINT NOT
        NULL, product_id BIGINT NOT NULL, qty INT, price DECIMAL(10,2));
      INSERT INTO customers VALUES (1, 'ada'), (2, 'bo');
      INSERT INTO products VALUES (1, 'anvil'), (2, 'bolt'), (3, 'crate');
      INSERT INTO orders VALUES
        (10, 1, 'NEW',     12.5,   1000),
        (11, 1, 'PAID',    7.25,   3000),
        (12, 1, 'SHIPPED', 0.99,   3000),
        (13, 2, 'NEW',     99.95,  5000),
        (14, 1, 'PAID',    100.01, 2000);
      INSERT INTO order_items VALUES
        (1, 10, 1, 2, 5.0),
        (2, 10, 2, 1, 2.5),
        (3, 11, 3, 1, 7.25),
        (4, 12, 2, 3, 0.33),
        (5, 13, 1, 1, 99.95),
        (6, 14, 3, 4, 20.0),
        (7, 14, 1, 1, 20.01);
      CREATE INDEX ix_items_order ON order_items(order_id);
      CREATE INDEX ix_orders_cust ON orders(customer_id, created_at);
    )sql");
    EXPECT_TRUE(s.ok()) << s;
  }

  const std::string& uri() const { return uri_; }

  // Customer 1's page, written out by hand from the rows above: newest first
  // (created_at desc, then id desc for the tie at 3000), items by item id.
  static Page CustomerOnePage() {
    return Page{1,
                {
                    {12, "SHIPPED", 0.99, 3000, {{2, "bolt", 3, 0.33}}},
                    {11, "PAID", 7.25, 3000, {{3, "crate", 1, 7.25}}},
                    {14,
                     "PAID",
                     100.01,
                     2000,
                     {{3, "crate", 4, 20.0}, {1, "anvil", 1, 20.01}}},
                    {10,
                     "NEW",
                     12.5,
                     1000,
                     {{1, "anvil", 2, 5.0}, {2, "bolt", 1, 2.5}}},
                }};
  }

  // The same page as the JSON body the service caches, typed by hand.
  static std::string CustomerOneBody() {
    return R"({"customer_id":1,"orders":[)"
           R"({"id":12,"status":"SHIPPED","total":0.99,"created_at":3000,)"
           R"("items":[{"product_id":2,"product":"bolt","qty":3,"price":0.33}]},)"
           R"({"id":11,"status":"PAID","total":7.25,"created_at":3000,)"
           R"("items":[{"product_id":3,"product":"crate","qty":1,"price":7.25}]},)"
           R"({"id":14,"status":"PAID","total":100.01,"created_at":2000,)"
           R"("items":[{"product_id":3,"product":"crate","qty":4,"price":20.0},)"
           R"({"product_id":1,"product":"anvil","qty":1,"price":20.01}]},)"
           R"({"id":10,"status":"NEW","total":12.5,"created_at":1000,)"
           R"("items":[{"product_id":1,"product":"anvil","qty":2,"price":5.0},)"
           R"({"product_id":2,"product":"bolt","qty":1,"price":2.5}]}]})";
  }

 private:
  std::string uri_;
  Database keeper_;  // the in-memory database exists while one is open
};

}  // namespace perflab::orders::testing

#endif  // PERFLAB_TESTS_LAB_KNOWN_DB_H_
