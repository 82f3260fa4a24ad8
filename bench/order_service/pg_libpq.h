// libpq, loaded when the first PostgreSQL connection is wanted rather than
// when the process starts. Linked as a dependency, libpq and the seventeen
// libraries behind it (Kerberos, LDAP, GnuTLS, SASL...) took the dynamic
// loader about 16 ms in every perflab process, for a backend only
// `orders-service --db postgres` (and bench_pg, the pg tests) use. Loaded
// here with dlopen instead, the process keeps one copy of everything else
// (perflab::core's interrupt registry, which pg_cluster.cc fills, included),
// as a plugin holding its own perflab::core could not.
//
// The functions keep libpq's names and types, as members: Pq().PQexec(...).
// Thread-safe: the load happens once; a failure is not cached.
#ifndef PERFLAB_BENCH_ORDER_SERVICE_PG_LIBPQ_H_
#define PERFLAB_BENCH_ORDER_SERVICE_PG_LIBPQ_H_

#include <libpq-fe.h>

#include <string>

#include "absl/status/statusor.h"

namespace perflab::orders {

// libpq's soname: its major version has been 5 since PostgreSQL 8.0.
inline constexpr char kLibpqSoname[] = "libpq.so.5";
// The Debian package that holds it.
inline constexpr char kLibpqPackage[] = "libpq5";

// The libpq functions the order service uses.
struct Libpq {
  decltype(&::PQconnectdb) PQconnectdb;
  decltype(&::PQstatus) PQstatus;
  decltype(&::PQerrorMessage) PQerrorMessage;
  decltype(&::PQfinish) PQfinish;
  decltype(&::PQping) PQping;
  decltype(&::PQbackendPID) PQbackendPID;
  decltype(&::PQexec) PQexec;
  decltype(&::PQprepare) PQprepare;
  decltype(&::PQexecPrepared) PQexecPrepared;
  decltype(&::PQsendQuery) PQsendQuery;
  decltype(&::PQgetResult) PQgetResult;
  decltype(&::PQresultStatus) PQresultStatus;
  decltype(&::PQresultErrorMessage) PQresultErrorMessage;
  decltype(&::PQntuples) PQntuples;
  decltype(&::PQnfields) PQnfields;
  decltype(&::PQgetvalue) PQgetvalue;
  decltype(&::PQgetlength) PQgetlength;
  decltype(&::PQclear) PQclear;
  decltype(&::PQputCopyData) PQputCopyData;
  decltype(&::PQputCopyEnd) PQputCopyEnd;
  decltype(&::PQlibVersion) PQlibVersion;
};

// Loads `soname` and binds every member, each time it is called (no cache;
// the library stays loaded). FailedPrecondition, in one line naming the
// library, the loader's reason and the package, when it cannot be loaded or
// lacks a function.
absl::StatusOr<Libpq> LoadLibpqFrom(const std::string& soname);

// kLibpqSoname's functions, loaded on the first successful call.
absl::StatusOr<const Libpq*> LoadLibpq();

// The loaded functions. Only after LoadLibpq() succeeded (every object that
// holds a connection was made after it did); aborts otherwise.
const Libpq& Pq();

}  // namespace perflab::orders

#endif  // PERFLAB_BENCH_ORDER_SERVICE_PG_LIBPQ_H_
