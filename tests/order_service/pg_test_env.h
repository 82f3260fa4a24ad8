// The PostgreSQL server shared by the tests of the pg binary: started once
// per process (the binary runs as one ctest test, so once per run), stopped
// and removed when the process exits. main() (pg_test_main.cc) has already
// skipped the run when the server binaries are absent.
#ifndef PERFLAB_TESTS_LAB_PG_TEST_ENV_H_
#define PERFLAB_TESTS_LAB_PG_TEST_ENV_H_

#include <memory>

#include "bench/order_service/pg_cluster.h"
#include "gtest/gtest.h"

namespace perflab::orders::testing {

// The shared server, or nullptr (with a test failure) when it cannot start.
inline PgCluster* SharedCluster() {
  static std::unique_ptr<PgCluster> cluster = [] {
    auto started = PgCluster::Start();
    EXPECT_TRUE(started.ok()) << started.status();
    return started.ok() ? std::move(*started) : nullptr;
  }();
  return cluster.get();
}

}  // namespace perflab::orders::testing

#endif  // PERFLAB_TESTS_LAB_PG_TEST_ENV_H_
