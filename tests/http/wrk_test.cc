// http::ParseWrkOutput on a report written by hand, and RunWrk, the
// independent witness, against a real HttpServer's thread cap (skipped when
// wrk is not installed). Ports: always 0, read back.
#include "bench/http/wrk.h"

#include <string>

#include "bench/http/http_server.h"
#include "gtest/gtest.h"

namespace perflab::http {
namespace {

TEST(Wrk, ParsesLatencyReport) {
  const char* text =
      "Running 2s test @ http://127.0.0.1:8080/\n"
      "  2 threads and 100 connections\n"
      "  Thread Stats   Avg      Stdev     Max   +/- Stdev\n"
      "    Latency   445.08ms  122.14ms   1.04s    84.62%\n"
      "    Req/Sec   137.17     70.47   202.00     69.57%\n"
      "  Latency Distribution\n"
      "     50%  502.39ms\n"
      "     75%  502.78ms\n"
      "     90%  503.07ms\n"
      "     99%  950.00us\n"
      "  390 requests in 2.01s, 40.37KB read\n"
      "  Socket errors: connect 1, read 2, write 3, timeout 4\n"
      "  Non-2xx or 3xx responses: 5\n"
      "Requests/sec:    194.21\n"
      "Transfer/sec:     20.10KB\n";
  auto r = ParseWrkOutput(text);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_DOUBLE_EQ(r->mean_ms, 445.08);
  EXPECT_DOUBLE_EQ(r->max_ms, 1040);
  EXPECT_DOUBLE_EQ(r->p50_ms, 502.39);
  EXPECT_DOUBLE_EQ(r->p99_ms, 0.95);
  EXPECT_EQ(r->requests, 390);
  EXPECT_DOUBLE_EQ(r->duration_s, 2.01);
  EXPECT_DOUBLE_EQ(r->requests_per_s, 194.21);
  EXPECT_EQ(r->errors_connect + r->errors_read + r->errors_write, 6);
  EXPECT_EQ(r->errors_timeout, 4);
  EXPECT_EQ(r->non_2xx, 5);
  // Without --latency the distribution is missing: an error, not zeros.
  EXPECT_FALSE(ParseWrkOutput("    Latency   1.00ms  1.00ms 1.00ms 50%\n"
                              "Requests/sec: 1\n")
                   .ok());
}

// 4 threads x 20 ms: wrk sees the same 200 req/s cap as perflab's client.
// A busy machine only lowers what wrk reads, so the rate is bounded above;
// that the cap was reached is the server's count of requests in its handler.
TEST(Wrk, SeesTheThreadCap) {
  auto server = HttpServer::Start({.threads = 4, .handler_ms = 20});
  ASSERT_TRUE(server.ok());
  auto r = RunWrk(
      {.url = "http://127.0.0.1:" + std::to_string((*server)->port()) + "/",
       .threads = 1,
       .connections = 16,
       .duration_s = 1});
  if (r.status().code() == absl::StatusCode::kNotFound) {
    GTEST_SKIP() << r.status();
  }
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_GT(r->requests_per_s, 0);
  EXPECT_LT(r->requests_per_s, 210);
  (*server)->Stop();
  EXPECT_EQ((*server)->stats().peak_in_handler, 4);
}

}  // namespace
}  // namespace perflab::http
