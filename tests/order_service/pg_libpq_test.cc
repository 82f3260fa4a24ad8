#include "bench/order_service/pg_libpq.h"

#include <dlfcn.h>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace perflab::orders {
namespace {

using ::testing::HasSubstr;

TEST(PgLibpqTest, AbsentLibraryIsOneLineNamingItAndThePackage) {
  absl::StatusOr<Libpq> pq = LoadLibpqFrom("libperflab-absent.so.0");
  ASSERT_FALSE(pq.ok());
  EXPECT_EQ(pq.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(pq.status().message(), HasSubstr("libperflab-absent.so.0"));
  EXPECT_THAT(pq.status().message(), HasSubstr("apt-get install libpq5"));
  EXPECT_THAT(std::string(pq.status().message()),
              ::testing::Not(HasSubstr("\n")));
}

TEST(PgLibpqTest, ALibraryWithoutTheFunctionsIsRefused) {
  // libc loads, but has no PQconnectdb.
  absl::StatusOr<Libpq> pq = LoadLibpqFrom("libc.so.6");
  ASSERT_FALSE(pq.ok());
  EXPECT_THAT(pq.status().message(), HasSubstr("PQconnectdb"));
}

// libexpat loads (nothing here links it) but has no PQconnectdb: refused,
// and unloaded again, so RTLD_NOLOAD no longer finds it.
TEST(PgLibpqTest, ALibraryRefusedIsClosedAgain) {
  ASSERT_EQ(::dlopen("libexpat.so.1", RTLD_NOW | RTLD_NOLOAD), nullptr);
  absl::StatusOr<Libpq> pq = LoadLibpqFrom("libexpat.so.1");
  ASSERT_FALSE(pq.ok());
  EXPECT_THAT(pq.status().message(), HasSubstr("PQconnectdb"));
  EXPECT_EQ(::dlopen("libexpat.so.1", RTLD_NOW | RTLD_NOLOAD), nullptr);
}

TEST(PgLibpqTest, BindsEachFunctionToItsOwnName) {
  absl::StatusOr<const Libpq*> pq = LoadLibpq();
  ASSERT_TRUE(pq.ok()) << pq.status();
  void* handle = ::dlopen(kLibpqSoname, RTLD_NOW | RTLD_NOLOAD);
  ASSERT_NE(handle, nullptr);
  EXPECT_EQ(reinterpret_cast<void*>((*pq)->PQexec), ::dlsym(handle, "PQexec"));
  EXPECT_EQ(reinterpret_cast<void*>((*pq)->PQexecPrepared),
            ::dlsym(handle, "PQexecPrepared"));
  EXPECT_EQ(reinterpret_cast<void*>((*pq)->PQclear),
            ::dlsym(handle, "PQclear"));
  // PostgreSQL 10 and later number versions major * 10000 + minor.
  EXPECT_GE((*pq)->PQlibVersion(), 100000);
  ::dlclose(handle);
}

TEST(PgLibpqTest, LoadsOnceAndPqReturnsTheLoadedTable) {
  absl::StatusOr<const Libpq*> first = LoadLibpq();
  absl::StatusOr<const Libpq*> second = LoadLibpq();
  ASSERT_TRUE(first.ok() && second.ok());
  EXPECT_EQ(*first, *second);
  EXPECT_EQ(&Pq(), *first);
}

}  // namespace
}  // namespace perflab::orders
