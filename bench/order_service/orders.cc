#include "bench/order_service/orders.h"

#include <utility>

#include "absl/strings/str_cat.h"

namespace perflab::orders {
namespace {

enum Slot { kHeads = 0, kItems = 1, kProduct = 2, kJoin = 3 };

// Ties on created_at are broken by id so that scan and index, N+1 and join
// agree row for row. Items come in insertion (id) order in both shapes.
const char* SqlFor(int slot, OrdersAccess access) {
  const bool scan = access == OrdersAccess::kScan;
  switch (slot) {
    case kHeads:
      return scan ? "SELECT id, status, total, created_at FROM orders NOT "
                    "INDEXED WHERE customer_id = ?1 ORDER BY created_at DESC, "
                    "id DESC LIMIT 20"
                  : "SELECT id, status, total, created_at FROM orders WHERE "
                    "customer_id = ?1 ORDER BY created_at DESC, id DESC LIMIT "
                    "20";
    case kItems:
      return "SELECT product_id, qty, price FROM order_items WHERE order_id = "
             "?1 ORDER BY id";
    case kProduct:
      return "SELECT name FROM products WHERE id = ?1";
    default:
      return scan ? "SELECT o.id, o.status, o.total, o.created_at, "
                    "i.product_id, p.name, i.qty, i.price FROM (SELECT id, "
                    "status, total, created_at FROM orders NOT INDEXED WHERE "
                    "customer_id = ?1 ORDER BY created_at DESC, id DESC LIMIT "
                    "20) o JOIN order_items i ON i.order_id = o.id JOIN "
                    "products p ON p.id = i.product_id ORDER BY o.created_at "
                    "DESC, o.id DESC, i.id"
                  : "SELECT o.id, o.status, o.total, o.created_at, "
                    "i.product_id, p.name, i.qty, i.price FROM (SELECT id, "
                    "status, total, created_at FROM orders WHERE customer_id "
                    "= ?1 ORDER BY created_at DESC, id DESC LIMIT 20) o JOIN "
                    "order_items i ON i.order_id = o.id JOIN products p ON "
                    "p.id = i.product_id ORDER BY o.created_at DESC, o.id "
                    "DESC, i.id";
  }
}

std::string Text(sqlite3_stmt* s, int col) {
  const unsigned char* t = sqlite3_column_text(s, col);
  return t != nullptr ? std::string(reinterpret_cast<const char*>(t),
                                    sqlite3_column_bytes(s, col))
                      : std::string();
}

Order HeadFromRow(sqlite3_stmt* s) {
  Order o;
  o.id = sqlite3_column_int64(s, 0);
  o.status = Text(s, 1);
  o.total = sqlite3_column_double(s, 2);
  o.created_at = sqlite3_column_int64(s, 3);
  return o;
}

}  // namespace

absl::StatusOr<std::unique_ptr<OrderRepository>> OrderRepository::Open(
    const std::string& path, const RepositoryOptions& options) {
  auto db = OpenDatabase(path, /*read_only=*/true);
  if (!db.ok()) return db.status();
  if (auto s = Exec(db->get(), absl::StrCat("PRAGMA cache_size=-",
                                            options.page_cache_kib));
      !s.ok()) {
    return s;
  }
  return std::unique_ptr<OrderRepository>(
      new OrderRepository(std::move(*db), options));
}

absl::StatusOr<sqlite3_stmt*> OrderRepository::Get(int slot,
                                                   Statement& scratch) {
  Statement* target = options_.prepare_per_call ? &scratch : &cached_[slot];
  if (*target == nullptr) {
    auto stmt = Prepare(db_.get(), SqlFor(slot, options_.access));
    if (!stmt.ok()) return stmt.status();
    *target = std::move(*stmt);
  } else {
    sqlite3_reset(target->get());
  }
  ++stats_.statements;
  return target->get();
}

void OrderRepository::Account(sqlite3_stmt* stmt) {
  stats_.fullscan_steps +=
      sqlite3_stmt_status(stmt, SQLITE_STMTSTATUS_FULLSCAN_STEP, 1);
  stats_.vm_steps += sqlite3_stmt_status(stmt, SQLITE_STMTSTATUS_VM_STEP, 1);
}

absl::StatusOr<std::vector<Order>> OrderRepository::NewestOrders(
    int64_t customer_id) {
  Statement scratch;
  auto stmt = Get(kHeads, scratch);
  if (!stmt.ok()) return stmt.status();
  sqlite3_bind_int64(*stmt, 1, customer_id);
  std::vector<Order> out;
  out.reserve(kPageOrders);
  int rc;
  while ((rc = sqlite3_step(*stmt)) == SQLITE_ROW) {
    out.push_back(HeadFromRow(*stmt));
  }
  stats_.rows_read += static_cast<int64_t>(out.size());
  Account(*stmt);
  if (rc != SQLITE_DONE) return SqliteError(db_.get(), "newest orders");
  return out;
}

absl::StatusOr<Page> OrderRepository::LoadPageNPlusOne(int64_t customer_id) {
  auto heads = NewestOrders(customer_id);
  if (!heads.ok()) return heads.status();
  Page page{customer_id, std::move(*heads)};
  for (Order& o : page.orders) {
    Statement items_scratch;
    auto items = Get(kItems, items_scratch);
    if (!items.ok()) return items.status();
    sqlite3_bind_int64(*items, 1, o.id);
    int rc;
    while ((rc = sqlite3_step(*items)) == SQLITE_ROW) {
      ++stats_.rows_read;
      Item it;
      it.product_id = sqlite3_column_int64(*items, 0);
      it.qty = sqlite3_column_int(*items, 1);
      it.price = sqlite3_column_double(*items, 2);
      // The inner N x M lookup, one statement per line, as in the seed.
      Statement product_scratch;
      auto product = Get(kProduct, product_scratch);
      if (!product.ok()) return product.status();
      sqlite3_bind_int64(*product, 1, it.product_id);
      if (sqlite3_step(*product) != SQLITE_ROW) {
        return SqliteError(db_.get(), absl::StrCat("product ", it.product_id));
      }
      ++stats_.rows_read;
      it.product = Text(*product, 0);
      Account(*product);
      o.items.push_back(std::move(it));
    }
    Account(*items);
    if (rc != SQLITE_DONE) return SqliteError(db_.get(), "order items");
  }
  return page;
}

absl::StatusOr<Page> OrderRepository::LoadPageJoin(int64_t customer_id) {
  Statement scratch;
  auto stmt = Get(kJoin, scratch);
  if (!stmt.ok()) return stmt.status();
  sqlite3_bind_int64(*stmt, 1, customer_id);
  Page page{customer_id, {}};
  page.orders.reserve(kPageOrders);
  int rc;
  while ((rc = sqlite3_step(*stmt)) == SQLITE_ROW) {
    ++stats_.rows_read;
    int64_t id = sqlite3_column_int64(*stmt, 0);
    // Rows arrive grouped by order (ORDER BY o.created_at, o.id).
    if (page.orders.empty() || page.orders.back().id != id) {
      page.orders.push_back(HeadFromRow(*stmt));
    }
    Item it;
    it.product_id = sqlite3_column_int64(*stmt, 4);
    it.product = Text(*stmt, 5);
    it.qty = sqlite3_column_int(*stmt, 6);
    it.price = sqlite3_column_double(*stmt, 7);
    page.orders.back().items.push_back(std::move(it));
  }
  Account(*stmt);
  if (rc != SQLITE_DONE) return SqliteError(db_.get(), "page join");
  return page;
}

}  // namespace perflab::orders
