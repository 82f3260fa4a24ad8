#include "bench/order_service/alloc.h"

#include <array>
#include <memory_resource>

#include "gtest/gtest.h"

namespace perflab::orders {
namespace {

TEST(AllocTest, SamePageOnEveryResource) {
  auto source = MakeFullOrders(20);
  CountingResource heap(std::pmr::new_delete_resource());
  PmrPage* plain = BuildPage(source, &heap);
  uint64_t expected = Checksum(*plain);
  DestroyPage(plain, &heap);
  EXPECT_GT(heap.allocations(), 20 * 10);  // strings and vectors of 20 orders

  CountingResource arena_upstream(std::pmr::new_delete_resource());
  {
    std::pmr::monotonic_buffer_resource arena(&arena_upstream);
    PmrPage* page = BuildPage(source, &arena);
    EXPECT_EQ(Checksum(*page), expected);
    DestroyPage(page, &arena);
  }
  // The arena asks the heap for a few growing chunks, not one block per object.
  EXPECT_GT(arena_upstream.allocations(), 0);
  EXPECT_LT(arena_upstream.allocations(), heap.allocations() / 10);

  alignas(std::max_align_t) static std::array<std::byte, 1 << 18> buffer;
  CountingResource reuse_upstream(std::pmr::new_delete_resource());
  for (int request = 0; request < 3; ++request) {
    std::pmr::monotonic_buffer_resource reused(buffer.data(), buffer.size(),
                                               &reuse_upstream);
    PmrPage* page = BuildPage(source, &reused);
    EXPECT_EQ(Checksum(*page), expected);
    DestroyPage(page, &reused);
  }
  EXPECT_EQ(reuse_upstream.allocations(), 0);  // the buffer is large enough
}

// The service's graph of a loaded page is the entity graph of the same
// orders written out by hand as FullOrders (only the page's fields set),
// with the same allocations; a product name is part of it.
TEST(AllocTest, MaterialisedPageIsTheEntityGraphOfItsOrders) {
  Page page;
  page.customer_id = 7;
  page.orders = {
      {.id = 3,
       .status = "SHIPPED",
       .total = 12.5,
       .created_at = 1700000000,
       .items = {{.product_id = 11,
                  .product = "a long product name, heap",
                  .qty = 2,
                  .price = 5},
                 {.product_id = 12, .product = "b", .qty = 1, .price = 2.5}}},
      {.id = 2,
       .status = "NEW",
       .total = 1,
       .created_at = 1690000000,
       .items = {}}};
  std::vector<FullOrder> by_hand(2);
  by_hand[0].id = 3;
  by_hand[0].status = "SHIPPED";
  by_hand[0].total = 12.5;
  by_hand[0].created_at = 1700000000;
  by_hand[0].items.resize(2);
  by_hand[0].items[0].product_id = 11;
  by_hand[0].items[0].product = "a long product name, heap";
  by_hand[0].items[0].qty = 2;
  by_hand[0].items[0].price = 5;
  by_hand[0].items[1].product_id = 12;
  by_hand[0].items[1].product = "b";
  by_hand[0].items[1].qty = 1;
  by_hand[0].items[1].price = 2.5;
  by_hand[1].id = 2;
  by_hand[1].status = "NEW";
  by_hand[1].total = 1;
  by_hand[1].created_at = 1690000000;
  CountingResource want_mr(std::pmr::new_delete_resource());
  PmrPage* want = BuildPage(by_hand, &want_mr);
  const uint64_t expected = Checksum(*want);
  DestroyPage(want, &want_mr);

  CountingResource got_mr(std::pmr::new_delete_resource());
  EXPECT_EQ(MaterialisePage(page, &got_mr), expected);
  EXPECT_EQ(got_mr.allocations(), want_mr.allocations());
  EXPECT_EQ(got_mr.bytes(), want_mr.bytes());
  page.orders[0].items[1].product = "c";
  EXPECT_NE(MaterialisePage(page, std::pmr::new_delete_resource()), expected);
}

}  // namespace
}  // namespace perflab::orders
