#include "bench/lab/alloc.h"

#include <array>
#include <memory_resource>

#include "gtest/gtest.h"

namespace perflab::lab {
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

}  // namespace
}  // namespace perflab::lab
