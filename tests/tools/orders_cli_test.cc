// perflab orders-service's database flags: --db postgres without the server
// binaries is one line naming the package and exit 2, before any dataset is
// generated; a bad --db or a --db-tcp without postgres is refused the same
// way. The PostgreSQL-backed service itself is tested with label pg in
// tests/order_service/pg_service_test.cc.
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "tests/tools/cli_runner.h"

namespace perflab::cli {
namespace {

using testing::ExpectOneLineExit2;
using testing::RunCli;

TEST(OrdersServiceDb, PostgresWithoutTheServerNamesThePackageAndWritesNothing) {
  const std::filesystem::path dir =
      std::filesystem::path(::testing::TempDir()) /
      absl::StrCat("orders_cli_", ::getpid());
  std::filesystem::create_directories(dir / "bin");
  const std::string dataset = (dir / "never.db").string();
  // Only this directory is searched, and it holds no initdb.
  ::setenv("PERFLAB_PG_BIN", (dir / "bin").c_str(), 1);
  const testing::CliResult r =
      RunCli({"orders-service", "--db", "postgres", "--dataset", dataset,
              "--max-seconds", "1"});
  ::unsetenv("PERFLAB_PG_BIN");
  ExpectOneLineExit2(r, "postgresql");
  EXPECT_FALSE(std::filesystem::exists(dataset));
  std::filesystem::remove_all(dir);
}

TEST(OrdersServiceDb, RefusesAnUnknownDbAndTcpWithoutPostgres) {
  ExpectOneLineExit2({"orders-service", "--db", "mysql", "--max-seconds", "1"},
                     "--db");
  ExpectOneLineExit2({"orders-service", "--db-tcp", "--max-seconds", "1"},
                     "--db-tcp");
}

}  // namespace
}  // namespace perflab::cli
