// Allocator pressure of building one request's page: the full object graph of
// 20 orders (what an ORM materialises per request) built through a
// std::pmr::memory_resource, so the same code runs on plain new/delete, on a
// per-request arena (monotonic_buffer_resource) or on a reused buffer.
// CountingResource tells how many allocations and bytes reach a resource.
// Thread-compatible: one resource per thread.
#ifndef PERFLAB_BENCH_ORDER_SERVICE_ALLOC_H_
#define PERFLAB_BENCH_ORDER_SERVICE_ALLOC_H_

#include <cstdint>
#include <memory_resource>
#include <string>
#include <vector>

#include "bench/order_service/payload.h"

namespace perflab::orders {

struct PmrItem {
  int64_t product_id = 0;
  std::pmr::string product, sku, description, category;
  int qty = 0;
  double price = 0;
};
struct PmrAudit {
  int64_t at = 0;
  std::pmr::string actor, action;
};
struct PmrOrder {
  int64_t id = 0;
  std::pmr::string status, customer_name, customer_email;
  std::pmr::string billing, shipping;  // formatted address blocks
  std::pmr::vector<PmrItem> items;
  std::pmr::string internal_notes;
  std::pmr::vector<PmrAudit> audit;
  double total = 0;
};
// Orders are separate heap objects, like the entities of an ORM's graph.
using PmrPage = std::pmr::vector<PmrOrder*>;

// Builds the page from `source` with every allocation on `mr`; the caller
// frees it with DestroyPage on the same resource.
PmrPage* BuildPage(const std::vector<FullOrder>& source,
                   std::pmr::memory_resource* mr);
void DestroyPage(PmrPage* page, std::pmr::memory_resource* mr);
// A value that depends on every string, so the build cannot be optimised away
// and tests can compare pages built on different resources.
uint64_t Checksum(const PmrPage& page);

// What the order service does with each page it loads (the object graph an
// ORM would materialise): every order and item of `page` copied into the
// full entity shape, built on `mr` as a PmrPage and torn down again. Returns
// the graph's Checksum, which keeps the work observable.
uint64_t MaterialisePage(const Page& page, std::pmr::memory_resource* mr);

// Forwards to `upstream` and counts what passes (not thread-safe).
class CountingResource : public std::pmr::memory_resource {
 public:
  explicit CountingResource(std::pmr::memory_resource* upstream)
      : upstream_(upstream) {}
  int64_t allocations() const { return allocations_; }
  int64_t bytes() const { return bytes_; }

 private:
  void* do_allocate(size_t bytes, size_t align) override {
    ++allocations_;
    bytes_ += static_cast<int64_t>(bytes);
    return upstream_->allocate(bytes, align);
  }
  void do_deallocate(void* p, size_t bytes, size_t align) override {
    upstream_->deallocate(p, bytes, align);
  }
  bool do_is_equal(const memory_resource& other) const noexcept override {
    return this == &other;
  }
  std::pmr::memory_resource* upstream_;
  int64_t allocations_ = 0, bytes_ = 0;
};

}  // namespace perflab::orders

#endif  // PERFLAB_BENCH_ORDER_SERVICE_ALLOC_H_
