#include "bench/order_service/pg_libpq.h"

#include <dlfcn.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <mutex>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace perflab::orders {
namespace {

absl::Status Unloadable(const std::string& soname, const char* reason) {
  return absl::FailedPreconditionError(absl::StrCat(
      "cannot load libpq (", soname, "): ", reason ? reason : "unknown error",
      "; install it with: apt-get install ", kLibpqPackage));
}

// Binds `fn` to `name` in `handle`; false (with dlerror() set) when absent.
template <typename Fn>
bool Bind(void* handle, const char* name, Fn& fn) {
  fn = reinterpret_cast<Fn>(::dlsym(handle, name));
  return fn != nullptr;
}

// A library that loads but lacks a function is closed again: nothing of it
// is kept, and a later load (of the right one) starts afresh.
absl::Status Unbound(void* handle, const std::string& soname) {
  absl::Status s = Unloadable(soname, ::dlerror());
  ::dlclose(handle);
  return s;
}

std::mutex g_load_mutex;
std::atomic<const Libpq*> g_loaded{nullptr};

}  // namespace

absl::StatusOr<Libpq> LoadLibpqFrom(const std::string& soname) {
  // Never closed once bound: the functions stay in use until the process
  // ends.
  // RTLD_LOCAL: libpq's own dependencies do not join the global scope.
  void* handle = ::dlopen(soname.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) return Unloadable(soname, ::dlerror());
  Libpq pq{};
  // The name is the member's, so the two cannot drift apart.
#define PERFLAB_BIND_PQ(fn) \
  if (!Bind(handle, #fn, pq.fn)) return Unbound(handle, soname)
  PERFLAB_BIND_PQ(PQconnectdb);
  PERFLAB_BIND_PQ(PQstatus);
  PERFLAB_BIND_PQ(PQerrorMessage);
  PERFLAB_BIND_PQ(PQfinish);
  PERFLAB_BIND_PQ(PQping);
  PERFLAB_BIND_PQ(PQbackendPID);
  PERFLAB_BIND_PQ(PQexec);
  PERFLAB_BIND_PQ(PQprepare);
  PERFLAB_BIND_PQ(PQexecPrepared);
  PERFLAB_BIND_PQ(PQsendQuery);
  PERFLAB_BIND_PQ(PQgetResult);
  PERFLAB_BIND_PQ(PQresultStatus);
  PERFLAB_BIND_PQ(PQresultErrorMessage);
  PERFLAB_BIND_PQ(PQntuples);
  PERFLAB_BIND_PQ(PQnfields);
  PERFLAB_BIND_PQ(PQgetvalue);
  PERFLAB_BIND_PQ(PQgetlength);
  PERFLAB_BIND_PQ(PQclear);
  PERFLAB_BIND_PQ(PQputCopyData);
  PERFLAB_BIND_PQ(PQputCopyEnd);
  PERFLAB_BIND_PQ(PQlibVersion);
#undef PERFLAB_BIND_PQ
  return pq;
}

absl::StatusOr<const Libpq*> LoadLibpq() {
  if (const Libpq* loaded = g_loaded.load(std::memory_order_acquire)) {
    return loaded;
  }
  std::lock_guard<std::mutex> lock(g_load_mutex);
  if (const Libpq* loaded = g_loaded.load(std::memory_order_acquire)) {
    return loaded;
  }
  absl::StatusOr<Libpq> pq = LoadLibpqFrom(kLibpqSoname);
  if (!pq.ok()) return pq.status();
  const Libpq* kept = new Libpq(*pq);  // lives as long as the process
  g_loaded.store(kept, std::memory_order_release);
  return kept;
}

const Libpq& Pq() {
  const Libpq* loaded = g_loaded.load(std::memory_order_acquire);
  if (loaded == nullptr) {
    std::fputs("perflab: libpq used before LoadLibpq() succeeded\n", stderr);
    std::abort();
  }
  return *loaded;
}

}  // namespace perflab::orders
