// The HTTP/1.1 request parser of http::HttpFront: a strict reading of
// RFC 9112's request line, header fields and Content-Length framing, on the
// bytes a connection has buffered so far. No library in the project's
// dependencies parses HTTP, so it is kept small and refuses what it does not
// understand rather than guessing:
//  - a malformed request line, a bare LF, a control character, a header
//    without a colon or with space before it, a folded (obs-fold) line, an
//    invalid Content-Length (not digits, beyond max_body_bytes, repeated
//    with another value), Content-Length with Transfer-Encoding: 400;
//  - a request line over max_request_line_bytes: 414;
//  - headers over max_header_bytes or max_headers: 431;
//  - any Transfer-Encoding (no chunked bodies here): 501;
//  - an HTTP version other than 1.0 and 1.1: 505.
// A body is framed by Content-Length only, so the next request starts
// exactly after it: a body is never read as a request (no smuggling).
//
// Pure functions on their arguments; thread-safe.
#ifndef PERFLAB_BENCH_HTTP_REQUEST_PARSER_H_
#define PERFLAB_BENCH_HTTP_REQUEST_PARSER_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace perflab::http {

// What the front end holds a client to.
struct HttpLimits {
  size_t max_request_line_bytes = 8192;  // without CRLF; longer: 414
  size_t max_header_bytes = 16384;       // header lines with CRLFs; more: 431
  int max_headers = 100;                 // header lines; more: 431
  size_t max_body_bytes = 1048576;       // a larger Content-Length: 400
  // From a request's first byte to its last (head and body); then 408 and
  // the connection is closed. Kept by the poller, not by a blocked worker.
  double header_timeout_s = 10;
  // --threads virtual: connection threads at most (one per connection).
  int max_virtual_threads = 1024;
};

enum class ParseState {
  kIncomplete,  // more bytes are needed (nothing wrong so far)
  kComplete,    // a whole request (head and body) is buffered
  kError,       // answer `status` and close the connection
};

struct ParsedRequest {
  ParseState state = ParseState::kIncomplete;
  int status = 0;          // kError: 400, 414, 431, 501 or 505
  std::string_view error;  // kError: what was wrong, a short static phrase
  // kComplete (and kIncomplete once the head is whole): the views point into
  // the parsed buffer.
  size_t head_length = 0;  // request line and headers, up to CRLF CRLF
  size_t body_length = 0;  // Content-Length, 0 without one
  std::string_view method;
  std::string_view target;
  // HTTP/1.1 unless "Connection: close"; HTTP/1.0 only with "keep-alive".
  bool keep_alive = false;

  size_t length() const { return head_length + body_length; }
};

// Parses the request at the start of `buffer` (what is buffered so far).
ParsedRequest ParseRequest(std::string_view buffer, const HttpLimits& limits);

// The limits as one line for --help ("request line <= 8192 B (414), ...").
std::string DescribeLimits(const HttpLimits& limits);

}  // namespace perflab::http

#endif  // PERFLAB_BENCH_HTTP_REQUEST_PARSER_H_
