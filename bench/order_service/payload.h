// The response body of GET /customers/{id}/orders two ways: the full object
// graph an ORM hands to the serialiser (items with product details, both
// addresses, internal notes, an audit trail) and the slim DTO carrying only
// what the client uses (Order / Item). Serialised with RapidJSON's
// writer, parsed back with simdjson on-demand or RapidJSON's DOM, and gzipped
// with zlib. Every function is thread-safe (no shared mutable state).
#ifndef PERFLAB_BENCH_ORDER_SERVICE_PAYLOAD_H_
#define PERFLAB_BENCH_ORDER_SERVICE_PAYLOAD_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "bench/order_service/orders.h"

namespace perflab::orders {

struct Address {
  std::string name, line1, line2, city, region, postcode, country;
};
struct AuditEntry {
  int64_t at = 0;
  std::string actor, action, from_status, to_status;
};
struct ProductDetail {
  std::string sku, description, category;
  double weight_kg = 0;
};
struct FullItem {
  int64_t id = 0;
  int64_t product_id = 0;
  std::string product;  // name
  ProductDetail detail;
  int qty = 0;
  double price = 0, discount = 0, tax = 0;
};
struct Customer {
  int64_t id = 0;
  std::string name, email, phone, segment;
};
struct FullOrder {
  int64_t id = 0;
  Customer customer;
  std::string status, currency;
  double total = 0;
  int64_t created_at = 0, updated_at = 0;
  Address billing, shipping;
  std::vector<FullItem> items;
  std::string internal_notes;
  std::vector<AuditEntry> audit;
};

// `count` orders of 3 items each with realistic text; same seed, same orders.
std::vector<FullOrder> MakeFullOrders(int count, uint64_t seed = 42);

// The projection the client needs: id, status, total, created_at and items
// (product_id, product name, qty, price).
std::vector<Order> ToDto(const std::vector<FullOrder>& orders);

// JSON arrays of orders. Both bodies name the client's fields the same way,
// so one client parser reads either.
std::string SerializeGraph(const std::vector<FullOrder>& orders);
std::string SerializeOrders(const std::vector<Order>& orders);
// {"customer_id":N,"orders":[...]}: the cached page body.
std::string SerializePage(const Page& page);

// The client's view of a body (either shape): only the DTO fields are kept.
// On-demand parsing needs SIMDJSON_PADDING spare bytes of capacity after the
// text: pass a body made by PadForSimdjson (otherwise it is copied first).
std::string PadForSimdjson(std::string body);
absl::StatusOr<std::vector<Order>> ParseOrdersOnDemand(const std::string& body);
absl::StatusOr<std::vector<Order>> ParseOrdersDom(std::string_view body);

// gzip (RFC 1952) at zlib level 1..9, and back.
absl::StatusOr<std::string> Gzip(std::string_view data, int level);
absl::StatusOr<std::string> Gunzip(std::string_view data);

}  // namespace perflab::orders

#endif  // PERFLAB_BENCH_ORDER_SERVICE_PAYLOAD_H_
