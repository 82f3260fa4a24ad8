// http::ParseRequest: what a careful server accepts and refuses, one case per
// rule of RFC 9112 the parser keeps. Lengths are counted by hand from the
// literal requests.
#include "bench/http/request_parser.h"

#include <string>

#include "gtest/gtest.h"

namespace perflab::http {
namespace {

ParsedRequest Parse(std::string_view s, const HttpLimits& l = {}) {
  return ParseRequest(s, l);
}

TEST(RequestParser, AWholeGetAndItsFields) {
  // "GET /a?b HTTP/1.1\r\n" is 19 bytes, "Host: x\r\n" 9, "\r\n" 2: 30.
  const std::string req = "GET /a?b HTTP/1.1\r\nHost: x\r\n\r\n";
  const ParsedRequest p = Parse(req);
  ASSERT_EQ(p.state, ParseState::kComplete);
  EXPECT_EQ(p.method, "GET");
  EXPECT_EQ(p.target, "/a?b");
  EXPECT_EQ(p.head_length, 30u);
  EXPECT_EQ(p.body_length, 0u);
  EXPECT_TRUE(p.keep_alive);
}

TEST(RequestParser, EveryPrefixIsIncompleteNotAnError) {
  const std::string req =
      "POST /x HTTP/1.1\r\nContent-Length: 3\r\nA:\tb \r\n\r\nabc";
  for (size_t n = 0; n < req.size(); ++n) {
    EXPECT_EQ(Parse(req.substr(0, n)).state, ParseState::kIncomplete) << n;
  }
  const ParsedRequest p = Parse(req + "GET /next");
  ASSERT_EQ(p.state, ParseState::kComplete);
  EXPECT_EQ(p.body_length, 3u);
  EXPECT_EQ(p.length(), req.size());
}

TEST(RequestParser, ConnectionOptionsAndVersionsDecideKeepAlive) {
  EXPECT_FALSE(Parse("GET / HTTP/1.1\r\nConnection: close\r\n\r\n").keep_alive);
  EXPECT_FALSE(
      Parse("GET / HTTP/1.1\r\nconnection: Upgrade, CLOSE\r\n\r\n").keep_alive);
  EXPECT_TRUE(
      Parse("GET / HTTP/1.1\r\nConnection: keep-alive\r\n\r\n").keep_alive);
  EXPECT_FALSE(Parse("GET / HTTP/1.0\r\n\r\n").keep_alive);
  EXPECT_TRUE(
      Parse("GET / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n").keep_alive);
  // A header merely containing the word is not the Connection header.
  EXPECT_TRUE(
      Parse("GET / HTTP/1.1\r\nX-Connection: close\r\n\r\n").keep_alive);
}

struct Refused {
  std::string_view request;
  int status;
};

class RequestParserRefuses : public ::testing::TestWithParam<Refused> {};

TEST_P(RequestParserRefuses, WithTheStatus) {
  const ParsedRequest p = Parse(GetParam().request);
  EXPECT_EQ(p.state, ParseState::kError) << GetParam().request;
  EXPECT_EQ(p.status, GetParam().status) << GetParam().request;
  EXPECT_FALSE(p.error.empty());
}

INSTANTIATE_TEST_SUITE_P(
    Cases, RequestParserRefuses,
    ::testing::Values(
        Refused{"GET /two words HTTP/1.1\r\n\r\n", 400},
        Refused{"GET  / HTTP/1.1\r\n\r\n", 400}, Refused{"GET /\r\n\r\n", 400},
        Refused{"GET / http/1.1\r\n\r\n", 400},
        Refused{"G(T / HTTP/1.1\r\n\r\n", 400},
        Refused{"GET / HTTP/2.0\r\n\r\n", 505},
        Refused{"GET / HTTP/1.1\n\n", 400},
        Refused{"\r\nGET / HTTP/1.1\r\n\r\n", 400},
        Refused{"GET / HTTP/1.1\r\nNoColon\r\n\r\n", 400},
        Refused{"GET / HTTP/1.1\r\nName : v\r\n\r\n", 400},
        Refused{"GET / HTTP/1.1\r\nA: b\r\n folded\r\n\r\n", 400},
        Refused{"GET / HTTP/1.1\r\nA: b\x01\r\n\r\n", 400},
        Refused{"GET / HTTP/1.1\r\nContent-Length: -1\r\n\r\n", 400},
        Refused{"GET / HTTP/1.1\r\nContent-Length: abc\r\n\r\n", 400},
        Refused{"GET / HTTP/1.1\r\nContent-Length:\r\n\r\n", 400},
        Refused{"GET / HTTP/1.1\r\nContent-Length: 1, 1\r\n\r\n", 400},
        Refused{"GET / HTTP/1.1\r\nContent-Length: 99999999999999999999999\r\n"
                "\r\n",
                400},
        Refused{"GET / HTTP/1.1\r\nContent-Length: 1048577\r\n\r\n", 400},
        Refused{"GET / HTTP/1.1\r\nContent-Length: 2\r\nContent-Length: 3\r\n"
                "\r\n",
                400},
        Refused{"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n", 501},
        Refused{"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n"
                "Content-Length: 3\r\n\r\nabc",
                400},
        // Refused before the line ends: a control byte needs no more input.
        Refused{std::string_view("GET /\0", 6), 400}));

TEST(RequestParser, AgreeingDuplicateLengthsAndTheLimitItselfAreAccepted) {
  const ParsedRequest p = Parse(
      "POST / HTTP/1.1\r\nContent-Length: 2\r\ncontent-length: 02\r\n\r\nab");
  ASSERT_EQ(p.state, ParseState::kComplete);
  EXPECT_EQ(p.body_length, 2u);
  const ParsedRequest at_limit =
      Parse("POST / HTTP/1.1\r\nContent-Length: 1048576\r\n\r\n", HttpLimits{});
  EXPECT_EQ(at_limit.state, ParseState::kIncomplete);
  EXPECT_EQ(at_limit.body_length, 1048576u);
}

TEST(RequestParser, RequestLineLimitIs414EvenBeforeTheLineEnds) {
  const HttpLimits l{.max_request_line_bytes = 20};
  // "GET / HTTP/1.1" is 14; a 20-byte line is allowed, 21 is not.
  const std::string at = "GET /" + std::string(6, 'a') + " HTTP/1.1";
  ASSERT_EQ(at.size(), 20u);
  EXPECT_EQ(Parse(at + "\r\n\r\n", l).state, ParseState::kComplete);
  const std::string over = "GET /" + std::string(7, 'a') + " HTTP/1.1";
  EXPECT_EQ(Parse(over + "\r\n\r\n", l).status, 414);
  // Unfinished: 21 bytes may still be the 20 and a CR; 22 cannot.
  EXPECT_EQ(Parse(std::string(21, 'a'), l).state, ParseState::kIncomplete);
  EXPECT_EQ(Parse(std::string(22, 'a'), l).status, 414);
}

TEST(RequestParser, HeaderBytesAndCountLimitsAre431) {
  // "A: b\r\n" is 6 bytes; with the final "\r\n", three headers are 20.
  const std::string three = "GET / HTTP/1.1\r\nA: b\r\nA: b\r\nA: b\r\n\r\n";
  EXPECT_EQ(Parse(three, {.max_header_bytes = 20}).state,
            ParseState::kComplete);
  EXPECT_EQ(Parse(three, {.max_header_bytes = 19}).status, 431);
  EXPECT_EQ(Parse(three, {.max_headers = 3}).state, ParseState::kComplete);
  EXPECT_EQ(Parse(three, {.max_headers = 2}).status, 431);
  // Never ending headers are refused once past the limit.
  EXPECT_EQ(Parse("GET / HTTP/1.1\r\n" + std::string(30, 'x'),
                  {.max_header_bytes = 20})
                .status,
            431);
}

TEST(RequestParser, DescribeLimitsNamesEveryLimit) {
  const std::string d = DescribeLimits({.max_request_line_bytes = 11,
                                        .max_header_bytes = 22,
                                        .max_headers = 33,
                                        .max_body_bytes = 44,
                                        .header_timeout_s = 5.5,
                                        .max_virtual_threads = 66});
  for (const char* part :
       {"<= 11 B (else 414)", "<= 22 B and <= 33 lines (else 431)",
        "<= 44 B (else 400)", "within 5.5 s", "<= 66 threads", "501"}) {
    EXPECT_NE(d.find(part), std::string::npos) << part << " in " << d;
  }
}

}  // namespace
}  // namespace perflab::http
