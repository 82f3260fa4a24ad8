// http::HttpFront on its own, in both request models: what the handler is
// given, what it answers, a dropped request, and the max_connections refusal.
// Counters are read after Stop(), which joins every thread that counts.
#include "bench/http/http_front.h"

#include <string>

#include "absl/strings/match.h"
#include "bench/http/net.h"
#include "gtest/gtest.h"

namespace perflab::http {
namespace {

// Echoes what it was given as "method|target|well_formed"; "/drop" gets no
// answer at all.
HttpFrontResponse Echo(const HttpFrontRequest& r) {
  HttpFrontResponse out;
  if (r.target == "/drop") {
    out.status = 0;
    return out;
  }
  out.status = r.target == "/missing" ? 404 : 200;
  out.content_type = "text/plain";
  out.body = std::string(r.method) + "|" + std::string(r.target) + "|" +
             (r.well_formed ? "1" : "0");
  return out;
}

std::unique_ptr<HttpFront> StartFront(const HttpFrontOptions& o) {
  auto front = HttpFront::Listen(o);
  EXPECT_TRUE(front.ok()) << front.status();
  if (!front.ok()) return nullptr;
  (*front)->Serve(Echo);
  return std::move(*front);
}

class HttpFrontModes : public ::testing::TestWithParam<int> {};

TEST_P(HttpFrontModes, HandlerGetsTheRequestLineAndItsAnswerIsSent) {
  auto front = StartFront({.threads = GetParam()});
  ASSERT_NE(front, nullptr);
  HttpClient client(front->port(), ClientOptions{.timeout_ms = 10'000});
  auto ok = client.Get("/a/b?c=1");
  ASSERT_TRUE(ok.ok()) << ok.status();
  EXPECT_EQ(ok->status, 200);
  EXPECT_EQ(ok->body, "GET|/a/b?c=1|1");
  EXPECT_TRUE(absl::StrContains(ok->headers, "Content-Type: text/plain"));
  auto missing = client.Get("/missing");  // the same kept-alive connection
  ASSERT_TRUE(missing.ok()) << missing.status();
  EXPECT_EQ(missing->status, 404);
  EXPECT_TRUE(absl::StrContains(missing->headers, "404 Not Found"));
  // "GET /two words HTTP/1.1": the version field is "words ...".
  auto odd = client.Get("/two words");
  ASSERT_TRUE(odd.ok()) << odd.status();
  EXPECT_EQ(odd->body, "||0");
  EXPECT_EQ(client.connections_opened(), 1);
  front->Stop();
  const HttpFrontStats s = front->stats();
  EXPECT_EQ(s.responses, 3);
  EXPECT_EQ(s.connections, 1);
  EXPECT_EQ(s.errors, 0);
  EXPECT_EQ(s.open_connections, 0);
}

TEST_P(HttpFrontModes, DroppedRequestClosesAndCountsAnError) {
  auto front = StartFront({.threads = GetParam()});
  ASSERT_NE(front, nullptr);
  HttpClient client(front->port(), ClientOptions{.timeout_ms = 10'000});
  EXPECT_FALSE(client.Get("/drop").ok());
  auto after = client.Get("/x");  // reconnects
  ASSERT_TRUE(after.ok()) << after.status();
  EXPECT_EQ(client.connections_opened(), 2);
  front->Stop();
  const HttpFrontStats s = front->stats();
  EXPECT_EQ(s.errors, 1);
  EXPECT_EQ(s.responses, 1);
  EXPECT_EQ(s.connections, 2);
}

TEST_P(HttpFrontModes, RefusesConnectionsBeyondTheMax) {
  auto front = StartFront({.threads = GetParam(), .max_connections = 1});
  ASSERT_NE(front, nullptr);
  HttpClient first(front->port(), ClientOptions{.timeout_ms = 10'000});
  ASSERT_TRUE(first.Get("/1").ok());  // accepted and still open
  HttpClient second(front->port(), ClientOptions{.timeout_ms = 10'000});
  EXPECT_FALSE(second.Get("/2").ok());
  front->Stop();
  const HttpFrontStats s = front->stats();
  EXPECT_EQ(s.connections, 1);
  EXPECT_EQ(s.refused, 1);
  EXPECT_EQ(s.responses, 1);
}

INSTANTIATE_TEST_SUITE_P(PoolAndVirtual, HttpFrontModes,
                         ::testing::Values(2, 0));

TEST(HttpFront, RefusesBadOptions) {
  for (const HttpFrontOptions& o :
       {HttpFrontOptions{.threads = -1}, HttpFrontOptions{.host = "8.8.8.8"},
        HttpFrontOptions{.keepalive_timeout_s = -1},
        HttpFrontOptions{.max_connections = 0}}) {
    auto front = HttpFront::Listen(o);
    ASSERT_FALSE(front.ok());
    EXPECT_EQ(front.status().code(), absl::StatusCode::kInvalidArgument);
  }
}

}  // namespace
}  // namespace perflab::http
