// main() of the PostgreSQL-backed service tests: where the server binaries
// are absent the binary is skipped (exit 77, ctest's SKIP_RETURN_CODE) with
// the one line that names the package, instead of failing every test.
#include <cstdio>
#include <string>

#include "bench/order_service/pg_cluster.h"
#include "gtest/gtest.h"

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  auto bin = perflab::orders::FindPgBinDir();
  if (!bin.ok()) {
    std::fprintf(stderr, "SKIP: %s\n",
                 std::string(bin.status().message()).c_str());
    return 77;
  }
  return RUN_ALL_TESTS();
}
