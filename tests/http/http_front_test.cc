// http::HttpFront on its own, in both request models: what the handler is
// given, what it answers, a dropped request, the connection cap, and the
// hostile clients of a careful server (malformed or oversized requests, a
// body holding a request, a trickle, idle connections at the cap), each by a
// raw socket client. Counters are read after Stop(), which joins every thread
// that counts. Waits are on events (an answer, an end of stream, a counter),
// each bounded generously; no test sleeps.
#include "bench/http/http_front.h"

#include <algorithm>
#include <atomic>
#include <future>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "bench/http/net.h"
#include "gtest/gtest.h"
#include "tests/http/raw_client.h"

namespace perflab::http {
namespace {

// Echoes what it was given as "method|target|body"; "/drop" gets no answer
// at all.
HttpFrontResponse Echo(const HttpFrontRequest& r) {
  HttpFrontResponse out;
  if (r.target == "/drop") {
    out.status = 0;
    return out;
  }
  out.status = r.target == "/missing" ? 404 : 200;
  out.content_type = "text/plain";
  out.body = std::string(r.method) + "|" + std::string(r.target) + "|" +
             std::string(r.body);
  return out;
}

std::unique_ptr<HttpFront> StartFront(const HttpFrontOptions& o,
                                      HttpFrontHandler handler = Echo) {
  auto front = HttpFront::Listen(o);
  EXPECT_TRUE(front.ok()) << front.status();
  if (!front.ok()) return nullptr;
  const absl::Status served = (*front)->Serve(std::move(handler));
  EXPECT_TRUE(served.ok()) << served;
  return std::move(*front);
}

// Waits until `n` connections wait idle for a request (the front end has
// taken each back after its answer); false if that does not happen within
// RawClient::kBoundMs.
bool WaitIdle(const HttpFront& front, int64_t n) {
  const auto until = std::chrono::steady_clock::now() +
                     std::chrono::milliseconds(RawClient::kBoundMs);
  while (front.stats().idle_connections != n) {
    if (std::chrono::steady_clock::now() > until) return false;
    std::this_thread::yield();
  }
  return true;
}

// Waits until `accepted` connections were accepted and `partial` of them
// hold half a request (the front end has read it); false after
// RawClient::kBoundMs.
bool WaitPartial(const HttpFront& front, int64_t accepted, int64_t partial) {
  const auto until = std::chrono::steady_clock::now() +
                     std::chrono::milliseconds(RawClient::kBoundMs);
  for (;;) {
    const HttpFrontStats s = front.stats();
    if (s.connections == accepted && s.partial_connections == partial) {
      return true;
    }
    if (std::chrono::steady_clock::now() > until) return false;
    std::this_thread::yield();
  }
}

int Count(std::string_view text, std::string_view part) {
  int n = 0;
  for (size_t at = text.find(part); at != text.npos;
       at = text.find(part, at + 1)) {
    ++n;
  }
  return n;
}

class HttpFrontModes : public ::testing::TestWithParam<int> {};

TEST_P(HttpFrontModes, HandlerGetsTheRequestLineAndItsAnswerIsSent) {
  auto front = StartFront({.threads = GetParam()});
  ASSERT_NE(front, nullptr);
  HttpClient client(front->port(), ClientOptions{.timeout_ms = 10'000});
  auto ok = client.Get("/a/b?c=1");
  ASSERT_TRUE(ok.ok()) << ok.status();
  EXPECT_EQ(ok->status, 200);
  EXPECT_EQ(ok->body, "GET|/a/b?c=1|");
  EXPECT_TRUE(absl::StrContains(ok->headers, "Content-Type: text/plain"));
  auto missing = client.Get("/missing");  // the same kept-alive connection
  ASSERT_TRUE(missing.ok()) << missing.status();
  EXPECT_EQ(missing->status, 404);
  EXPECT_TRUE(absl::StrContains(missing->headers, "404 Not Found"));
  // "GET /two words HTTP/1.1" is malformed: the front end answers 400 and
  // closes, the handler never sees it.
  auto odd = client.Get("/two words");
  ASSERT_TRUE(odd.ok()) << odd.status();
  EXPECT_EQ(odd->status, 400);
  EXPECT_TRUE(odd->connection_close);
  EXPECT_EQ(client.connections_opened(), 1);
  front->Stop();
  const HttpFrontStats s = front->stats();
  EXPECT_EQ(s.responses, 2);
  EXPECT_EQ(s.connections, 1);
  EXPECT_EQ(s.errors, 1);
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

TEST_P(HttpFrontModes, RefusesConnectionsBeyondTheMaxWhenNoneIsIdle) {
  // "/hold" stays in the handler until released: its connection is busy.
  std::promise<void> entered;
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  auto front = StartFront({.threads = GetParam(), .max_connections = 1},
                          [&](const HttpFrontRequest& r) {
                            if (r.target == "/hold") {
                              entered.set_value();
                              released.wait();
                            }
                            return Echo(r);
                          });
  ASSERT_NE(front, nullptr);
  RawClient first(front->port());
  ASSERT_TRUE(first.Send("GET /hold HTTP/1.1\r\n\r\n"));
  entered.get_future().wait();
  RawClient second(front->port());
  ASSERT_TRUE(second.Send("GET /2 HTTP/1.1\r\n\r\n"));
  EXPECT_EQ(second.ReadToEof(), "");  // closed unanswered
  release.set_value();
  EXPECT_TRUE(absl::StrContains(first.ReadResponse(), "GET|/hold|"));
  front->Stop();
  const HttpFrontStats s = front->stats();
  EXPECT_EQ(s.connections, 1);
  EXPECT_EQ(s.refused, 1);
  EXPECT_EQ(s.evicted, 0);
  EXPECT_EQ(s.responses, 1);
}

TEST_P(HttpFrontModes, AtTheCapTheLongestIdleConnectionMakesRoom) {
  auto front = StartFront({.threads = GetParam(), .max_connections = 2});
  ASSERT_NE(front, nullptr);
  RawClient a(front->port());
  ASSERT_TRUE(a.Send("GET /a HTTP/1.1\r\n\r\n"));
  ASSERT_NE(a.ReadResponse(), "");
  ASSERT_TRUE(WaitIdle(*front, 1));  // a is idle first
  RawClient b(front->port());
  ASSERT_TRUE(b.Send("GET /b HTTP/1.1\r\n\r\n"));
  ASSERT_NE(b.ReadResponse(), "");
  ASSERT_TRUE(WaitIdle(*front, 2));
  RawClient c(front->port());
  ASSERT_TRUE(c.Send("GET /c HTTP/1.1\r\n\r\n"));
  EXPECT_TRUE(absl::StrContains(c.ReadResponse(), "GET|/c|"));
  EXPECT_EQ(a.ReadToEof(), "");  // closed to admit c
  EXPECT_TRUE(b.QuietAndOpen());
  front->Stop();
  const HttpFrontStats s = front->stats();
  EXPECT_EQ(s.connections, 3);
  EXPECT_EQ(s.evicted, 1);
  EXPECT_EQ(s.refused, 0);
  EXPECT_EQ(s.responses, 3);
}

// Clients that each send half a request and then nothing (the header
// timeout a minute away) cannot lock a new client out: at the cap the
// connection whose half request is oldest is closed, as an idle one would
// be. 300 half-sent against a cap of 200 keeps this process (client and
// server ends) within a 1,024-descriptor limit.
TEST_P(HttpFrontModes, HalfSentRequestsAtTheCapMakeRoomOldestFirst) {
  constexpr int kCap = 200;
  constexpr int kHalf = 300;
  auto front = StartFront({.threads = GetParam(),
                           .max_connections = kCap,
                           .limits = {.header_timeout_s = 60}});
  ASSERT_NE(front, nullptr);
  std::vector<std::unique_ptr<RawClient>> half;
  for (int i = 0; i < kHalf; ++i) {
    half.push_back(std::make_unique<RawClient>(front->port()));
    ASSERT_TRUE(half.back()->Send("GET /half HT"));
    ASSERT_TRUE(WaitPartial(*front, i + 1, std::min(i + 1, kCap))) << i;
  }
  RawClient fresh(front->port());
  ASSERT_TRUE(fresh.Send("GET /fresh HTTP/1.1\r\n\r\n"));
  EXPECT_TRUE(absl::StrContains(fresh.ReadResponse(), "GET|/fresh|"));
  // Each connection past the cap, the fresh one too, closed the oldest.
  const int evicted = kHalf - kCap + 1;
  for (int i = 0; i < evicted; ++i) EXPECT_EQ(half[i]->ReadToEof(), "") << i;
  for (int i = evicted; i < kHalf; ++i) {
    EXPECT_TRUE(half[i]->QuietAndOpen()) << i;
  }
  front->Stop();
  const HttpFrontStats s = front->stats();
  EXPECT_EQ(s.evicted, evicted);
  EXPECT_EQ(s.refused, 0);
  EXPECT_EQ(s.responses, 1);
  EXPECT_EQ(s.errors, 0);
}

// An idle connection that has waited longer than a half-sent request goes
// first: the two are ranked by one clock, the idle one by its last answer,
// the half-sent one by its first byte.
TEST_P(HttpFrontModes, AtTheCapTheLongerWaitGoesIdleOrHalfSent) {
  auto front = StartFront({.threads = GetParam(),
                           .max_connections = 2,
                           .limits = {.header_timeout_s = 60}});
  ASSERT_NE(front, nullptr);
  RawClient idle(front->port());
  ASSERT_TRUE(idle.Send("GET /a HTTP/1.1\r\n\r\n"));
  ASSERT_NE(idle.ReadResponse(), "");
  ASSERT_TRUE(WaitIdle(*front, 1));
  RawClient half(front->port());
  ASSERT_TRUE(half.Send("GET /b HT"));
  ASSERT_TRUE(WaitPartial(*front, 2, 1));
  RawClient c(front->port());
  ASSERT_TRUE(c.Send("GET /c HTTP/1.1\r\n\r\n"));
  EXPECT_TRUE(absl::StrContains(c.ReadResponse(), "GET|/c|"));
  EXPECT_EQ(idle.ReadToEof(), "");
  EXPECT_TRUE(half.QuietAndOpen());
  ASSERT_TRUE(half.Send("TP/1.1\r\n\r\n"));  // still served when finished
  EXPECT_TRUE(absl::StrContains(half.ReadResponse(), "GET|/b|"));
}

// A method other than what the handler serves: its 405 carries Allow, and
// the answer to HEAD states the body's length and sends no body (a body
// after a HEAD answer would be read as the next response).
TEST_P(HttpFrontModes, AllowHeaderAndHeadWithoutBody) {
  auto front =
      StartFront({.threads = GetParam()}, [](const HttpFrontRequest& r) {
        HttpFrontResponse out = Echo(r);
        if (r.method != "GET") {
          out.status = 405;
          out.allow = "GET";
        }
        return out;
      });
  ASSERT_NE(front, nullptr);
  RawClient client(front->port());
  ASSERT_TRUE(client.Send("HEAD /h HTTP/1.1\r\nConnection: close\r\n\r\n"));
  const std::optional<std::string> head = client.ReadToEof();
  ASSERT_TRUE(head.has_value());
  EXPECT_TRUE(absl::StartsWith(*head, "HTTP/1.1 405 Method Not Allowed\r\n"))
      << *head;
  EXPECT_TRUE(absl::StrContains(*head, "\r\nAllow: GET\r\n")) << *head;
  // "HEAD|/h|" is 8 bytes: stated, not sent.
  EXPECT_TRUE(absl::StrContains(*head, "Content-Length: 8\r\n")) << *head;
  EXPECT_TRUE(absl::EndsWith(*head, "\r\n\r\n")) << *head;
  RawClient get(front->port());
  ASSERT_TRUE(get.Send("GET /g HTTP/1.1\r\n\r\n"));
  const std::string got = get.ReadResponse();
  EXPECT_FALSE(absl::StrContains(got, "Allow:")) << got;
  EXPECT_TRUE(absl::EndsWith(got, "GET|/g|")) << got;
}

// The buffer holds a whole request with its largest accepted body: a
// 100 KiB POST is read and answered, not left to time out with 408.
TEST_P(HttpFrontModes, ABodyUpToTheLimitIsBufferedWhole) {
  auto front = StartFront({.threads = GetParam(),
                           .limits = {.max_body_bytes = size_t{200} * 1024,
                                      .header_timeout_s = 5}});
  ASSERT_NE(front, nullptr);
  RawClient client(front->port());
  const std::string body(size_t{100} * 1024, 'x');
  ASSERT_TRUE(client.Send("POST /p HTTP/1.1\r\nContent-Length: " +
                          std::to_string(body.size()) + "\r\n\r\n" + body));
  const std::string got = client.ReadResponse();
  EXPECT_TRUE(absl::StartsWith(got, "HTTP/1.1 200 ")) << got.substr(0, 80);
  EXPECT_TRUE(absl::EndsWith(got, "POST|/p|" + body));
}

// Must 9: a front end that keeps the connection after "Connection: close"
// (or after an HTTP/1.0 request without keep-alive) leaves ReadToEof
// waiting, as the keep-alive timeout is a minute away.
TEST_P(HttpFrontModes, ConnectionCloseEndsTheConnectionAfterTheAnswer) {
  auto front = StartFront({.threads = GetParam()});
  ASSERT_NE(front, nullptr);
  for (const char* request :
       {"GET /x HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n",
        "GET /x HTTP/1.0\r\n\r\n"}) {
    RawClient raw(front->port());
    ASSERT_TRUE(raw.Send(request));
    const std::optional<std::string> got = raw.ReadToEof();
    ASSERT_TRUE(got.has_value()) << "still open after: " << request;
    EXPECT_EQ(Count(*got, "HTTP/1.1 200 OK"), 1) << *got;
    EXPECT_TRUE(absl::StrContains(*got, "Connection: close\r\n")) << *got;
  }
}

// The refusals of a careful server, each answered and closed without the
// handler seeing the request.
struct Refusal {
  std::string request;
  int status;
};

TEST_P(HttpFrontModes, BadRequestsAreAnsweredAndClosed) {
  std::atomic<int> handled{0};
  auto front =
      StartFront({.threads = GetParam()}, [&](const HttpFrontRequest& r) {
        ++handled;
        return Echo(r);
      });
  ASSERT_NE(front, nullptr);
  std::string many_headers = "GET / HTTP/1.1\r\n";
  for (int i = 0; i < 10'000; ++i) many_headers += "X-Header-Name: value\r\n";
  std::string hundred_and_one = "GET / HTTP/1.1\r\n";
  for (int i = 0; i < 101; ++i) hundred_and_one += "A: b\r\n";
  const Refusal cases[] = {
      {"GET /a b HTTP/1.1\r\n\r\n", 400},
      {"NONSENSE\r\n\r\n", 400},
      {"GET / HTTP/1.1\r\nNo colon here\r\n\r\n", 400},
      {"GET / HTTP/1.1\r\nContent-Length: -1\r\n\r\n", 400},
      {"GET / HTTP/1.1\r\nContent-Length: abc\r\n\r\n", 400},
      {"GET / HTTP/1.1\r\nContent-Length: 99999999999\r\n\r\n", 400},
      {"GET / HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab",
       400},
      {"GET /" + std::string(1 << 20, 'a') + " HTTP/1.1\r\n\r\n", 414},
      {many_headers + "\r\n", 431},
      {hundred_and_one + "\r\n", 431},
      {"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 501},
  };
  for (const Refusal& c : cases) {
    RawClient raw(front->port());
    ASSERT_TRUE(raw.Send(c.request)) << c.request.substr(0, 60);
    raw.ShutdownWrite();
    const std::optional<std::string> got = raw.ReadToEof();
    ASSERT_TRUE(got.has_value()) << c.request.substr(0, 60);
    EXPECT_TRUE(absl::StartsWith(*got, "HTTP/1.1 " + std::to_string(c.status)))
        << c.request.substr(0, 60) << " -> " << got->substr(0, 60);
    EXPECT_TRUE(absl::StrContains(*got, "Connection: close\r\n"));
  }
  front->Stop();
  EXPECT_EQ(handled.load(), 0);
  EXPECT_EQ(front->stats().errors, std::size(cases));
}

TEST_P(HttpFrontModes, ABodyIsReadAsABodyNeverAsTheNextRequest) {
  auto front = StartFront({.threads = GetParam()});
  ASSERT_NE(front, nullptr);
  const std::string smuggled = "GET /smuggled HTTP/1.1\r\n\r\n";
  RawClient raw(front->port());
  ASSERT_TRUE(raw.Send("GET /first HTTP/1.1\r\nContent-Length: " +
                       std::to_string(smuggled.size()) + "\r\n\r\n" + smuggled +
                       "GET /last HTTP/1.1\r\nConnection: close\r\n\r\n"));
  const std::optional<std::string> got = raw.ReadToEof();
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(Count(*got, "HTTP/1.1 200 OK"), 2) << *got;
  EXPECT_TRUE(absl::StrContains(*got, "GET|/first|" + smuggled)) << *got;
  EXPECT_TRUE(absl::StrContains(*got, "GET|/last|")) << *got;
  EXPECT_FALSE(absl::StrContains(*got, "GET|/smuggled|")) << *got;
}

// A client that sends a byte at a time is answered 408 and dropped once its
// request is older than header_timeout_s, however steadily it sends: the
// trickle would take 20 s and more to fill the request line.
TEST_P(HttpFrontModes, ATrickleIsDroppedAtTheHeaderTimeout) {
  auto front =
      StartFront({.threads = GetParam(), .limits = {.header_timeout_s = 0.2}});
  ASSERT_NE(front, nullptr);
  RawClient slow(front->port());
  const std::string line = "GET /" + std::string(2000, 'a');
  size_t sent = 0;
  for (; sent < line.size(); ++sent) {
    if (!slow.Send(line.substr(sent, 1))) break;
    if (slow.Readable(10)) break;  // answered: stop sending
  }
  EXPECT_LT(sent, line.size());
  const std::optional<std::string> got = slow.ReadToEof();
  ASSERT_TRUE(got.has_value());
  EXPECT_TRUE(absl::StartsWith(*got, "HTTP/1.1 408 ")) << *got;
  front->Stop();
  EXPECT_EQ(front->stats().header_timeouts, 1);
}

// With one worker, a client holding half a request does not hold the worker:
// another client is served while the first is still open, waiting.
TEST(HttpFront, AHalfSentRequestHoldsNoWorker) {
  auto front = StartFront({.threads = 1, .limits = {.header_timeout_s = 60}});
  ASSERT_NE(front, nullptr);
  RawClient slow(front->port());
  ASSERT_TRUE(slow.Send("GET /slow HT"));
  RawClient other(front->port());
  ASSERT_TRUE(other.Send("GET /other HTTP/1.1\r\n\r\n"));
  EXPECT_TRUE(absl::StrContains(other.ReadResponse(), "GET|/other|"));
  EXPECT_TRUE(slow.QuietAndOpen());
  ASSERT_TRUE(slow.Send("TP/1.1\r\n\r\n"));  // finishing it is still served
  EXPECT_TRUE(absl::StrContains(slow.ReadResponse(), "GET|/slow|"));
}

// --threads virtual has a stated cap: at max_virtual_threads an idle
// connection's thread is handed the new one, so no more threads ever run.
TEST(HttpFront, VirtualThreadsStayWithinTheirCap) {
  auto front = StartFront({.threads = 0, .limits = {.max_virtual_threads = 2}});
  ASSERT_NE(front, nullptr);
  std::vector<std::unique_ptr<RawClient>> clients;
  for (int i = 0; i < 5; ++i) {
    clients.push_back(std::make_unique<RawClient>(front->port()));
    const std::string path = "/" + std::to_string(i);
    ASSERT_TRUE(clients.back()->Send("GET " + path + " HTTP/1.1\r\n\r\n"));
    EXPECT_TRUE(
        absl::StrContains(clients.back()->ReadResponse(), "GET|" + path + "|"));
    ASSERT_TRUE(WaitIdle(*front, std::min(i + 1, 2)));
  }
  // The three oldest made room in turn.
  for (int i = 0; i < 3; ++i) EXPECT_EQ(clients[i]->ReadToEof(), "") << i;
  front->Stop();
  const HttpFrontStats s = front->stats();
  EXPECT_EQ(s.peak_threads, 2);
  EXPECT_EQ(s.evicted, 3);
  EXPECT_EQ(s.responses, 5);
}

INSTANTIATE_TEST_SUITE_P(PoolAndVirtual, HttpFrontModes,
                         ::testing::Values(2, 0));

TEST(HttpFront, RefusesBadOptions) {
  for (const HttpFrontOptions& o :
       {HttpFrontOptions{.threads = -1}, HttpFrontOptions{.host = "8.8.8.8"},
        HttpFrontOptions{.keepalive_timeout_s = -1},
        HttpFrontOptions{.max_connections = 0},
        HttpFrontOptions{.limits = {.header_timeout_s = 0}},
        HttpFrontOptions{.limits = {.max_virtual_threads = 0}}}) {
    auto front = HttpFront::Listen(o);
    ASSERT_FALSE(front.ok());
    EXPECT_EQ(front.status().code(), absl::StatusCode::kInvalidArgument);
  }
}

}  // namespace
}  // namespace perflab::http
