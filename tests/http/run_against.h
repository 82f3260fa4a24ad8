// Test helper for the tests that need a real server and a load run against it
// (http_server_test, load_client_test, wrk_test): starts an HttpServer on a
// free port, runs the load, stops the server. Not thread-safe; for one test.
#ifndef PERFLAB_TESTS_HTTP_RUN_AGAINST_H_
#define PERFLAB_TESTS_HTTP_RUN_AGAINST_H_

#include <utility>

#include "bench/http/http_server.h"
#include "bench/http/load_client.h"
#include "gtest/gtest.h"

namespace perflab::http::testing {

// The load's result; `stats`, when given, receives the server's counters
// after Stop() (which joins every thread that counts).
inline LoadResult RunAgainst(const HttpServerOptions& so, LoadOptions lo,
                             HttpServerStats* stats = nullptr) {
  auto server = HttpServer::Start(so);
  EXPECT_TRUE(server.ok()) << server.status();
  lo.port = (*server)->port();
  auto r = RunLoad(lo);
  EXPECT_TRUE(r.ok()) << r.status();
  (*server)->Stop();
  if (stats != nullptr) *stats = (*server)->stats();
  return *std::move(r);
}

inline double MeanMs(const LoadResult& r) { return r.latency_ns.Mean() / 1e6; }

// Percentile `p` of the recorded latency, in ms.
inline double PMs(const LoadResult& r, double p) {
  return static_cast<double>(r.latency_ns.Percentile(p)) / 1e6;
}

}  // namespace perflab::http::testing

#endif  // PERFLAB_TESTS_HTTP_RUN_AGAINST_H_
