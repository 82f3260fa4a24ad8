// The method check both servers share (`perflab serve` and the order
// service): every method but GET gets 405 with "Allow: GET" and keeps the
// connection, GET still works on it after, and HEAD is answered without a
// body. Test-only; one client, not thread-safe.
#ifndef PERFLAB_TESTS_HTTP_ONLY_GET_ALLOWED_H_
#define PERFLAB_TESTS_HTTP_ONLY_GET_ALLOWED_H_

#include <cstdint>
#include <optional>
#include <string>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "tests/http/raw_client.h"

namespace perflab::http {

// POST with a body, a method nobody defined, "get" (methods are
// case-sensitive), then GET, then HEAD, all on one connection to `path`.
inline void ExpectOnlyGetAllowed(uint16_t port, const std::string& path) {
  RawClient client(port);
  const std::string requests[] = {
      "POST " + path + " HTTP/1.1\r\nContent-Length: 2\r\n\r\nhi",
      "BREW " + path + " HTTP/1.1\r\n\r\n",
      "get " + path + " HTTP/1.1\r\n\r\n"};
  for (const std::string& request : requests) {
    ASSERT_TRUE(client.Send(request));
    const std::string got = client.ReadResponse();
    EXPECT_TRUE(absl::StartsWith(got, "HTTP/1.1 405 Method Not Allowed\r\n"))
        << request << got;
    EXPECT_TRUE(absl::StrContains(got, "\r\nAllow: GET\r\n")) << got;
    EXPECT_TRUE(absl::StrContains(got, "Connection: keep-alive")) << got;
  }
  ASSERT_TRUE(client.Send("GET " + path + " HTTP/1.1\r\n\r\n"));
  EXPECT_TRUE(absl::StartsWith(client.ReadResponse(), "HTTP/1.1 200 OK\r\n"));
  // HEAD last, closing: its answer has no body, so reading to the end of
  // the stream shows exactly the head.
  ASSERT_TRUE(
      client.Send("HEAD " + path + " HTTP/1.1\r\nConnection: close\r\n\r\n"));
  const std::optional<std::string> head = client.ReadToEof();
  ASSERT_TRUE(head.has_value());
  EXPECT_TRUE(absl::StartsWith(*head, "HTTP/1.1 405 Method Not Allowed\r\n"))
      << *head;
  EXPECT_TRUE(absl::StrContains(*head, "\r\nAllow: GET\r\n")) << *head;
  EXPECT_TRUE(absl::EndsWith(*head, "\r\n\r\n")) << *head;
}

}  // namespace perflab::http

#endif  // PERFLAB_TESTS_HTTP_ONLY_GET_ALLOWED_H_
