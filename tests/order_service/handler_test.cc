// The order service's request logic without its front end:
// ParseOrdersTarget accepts exactly /customers/{id}/orders, and
// OrdersHandler::Create refuses a pool or a timeout it cannot honour.
#include "bench/order_service/handler.h"

#include <cmath>

#include "gtest/gtest.h"

namespace perflab::orders {
namespace {

TEST(OrdersTarget, ParsesOnlyTheOrdersPath) {
  EXPECT_EQ(*ParseOrdersTarget("/customers/1/orders"), 1);
  EXPECT_EQ(*ParseOrdersTarget("/customers/4999/orders"), 4999);
  for (const char* bad :
       {"/customers//orders", "/customers/0/orders", "/customers/-1/orders",
        "/customers/01/orders", "/customers/1x/orders", "/customers/1/order",
        "/customers/1", "/customers/orders", "/", "",
        "/customers/1234567890123456789/orders", "/Customers/1/orders"}) {
    EXPECT_FALSE(ParseOrdersTarget(bad).ok()) << bad;
  }
}

// Checked before the dataset is opened: no database is needed.
TEST(OrdersHandler, CreateRefusesABadPoolOrTimeout) {
  for (const HandlerOptions& o :
       {HandlerOptions{.dataset_path = "", .db_pool = 0},
        HandlerOptions{.dataset_path = "", .db_pool = 65},
        HandlerOptions{.dataset_path = "", .db_acquire_timeout_ms = 0},
        HandlerOptions{.dataset_path = "", .inventory_timeout_ms = NAN}}) {
    auto h = OrdersHandler::Create(o);
    ASSERT_FALSE(h.ok());
    EXPECT_EQ(h.status().code(), absl::StatusCode::kInvalidArgument)
        << h.status();
  }
}

}  // namespace
}  // namespace perflab::orders
