// main() of the pg tests: where the PostgreSQL server binaries are absent the
// whole binary is skipped (exit 77, ctest's SKIP_RETURN_CODE) with the one
// line that names the package, instead of failing every test.
//
// `lab_pg_test --sigterm-child` is the helper of the SIGTERM test, run in a
// fresh process (a fork of the test process would share its registry of
// servers and temporary paths): it starts a server, opens a session, prints
// "<server pid> <backend pid>" and raises SIGTERM.
#include <signal.h>

#include <cstdio>
#include <cstring>

#include "bench/order_service/pg_cluster.h"
#include "bench/order_service/pg_libpq.h"
#include "bench/order_service/pg_orders.h"
#include "gtest/gtest.h"

namespace {

int SigtermChild() {
  auto cluster = perflab::orders::PgCluster::Start();
  if (!cluster.ok()) return 3;
  auto conn = perflab::orders::PgConnection::Open((*cluster)->UnixConninfo());
  if (!conn.ok()) return 4;
  std::printf("%d %d\n", static_cast<int>((*cluster)->pid()),
              perflab::orders::Pq().PQbackendPID(conn->get()));
  std::fflush(stdout);
  ::raise(SIGTERM);
  return 5;  // not reached: the cleanup re-raises with the default action
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 2 && std::strcmp(argv[1], "--sigterm-child") == 0) {
    return SigtermChild();
  }
  ::testing::InitGoogleTest(&argc, argv);
  auto bin = perflab::orders::FindPgBinDir();
  if (!bin.ok()) {
    std::fprintf(stderr, "SKIP: %s\n",
                 std::string(bin.status().message()).c_str());
    return 77;
  }
  return RUN_ALL_TESTS();
}
