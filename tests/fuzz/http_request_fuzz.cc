// libFuzzer target: http::ParseRequest, the HTTP front end's reader of the
// bytes a client sends, on arbitrary input. The first byte picks the limits
// (the defaults, or small ones so the 414/431/body limits are reached), the
// rest is what a connection has buffered. Any input must give a request, a
// need for more bytes, or a refusal with one of the documented statuses: no
// crash, hang or undefined behaviour. The answer must be the same on the
// request's own bytes (what follows it cannot change it), a request one byte
// short must be incomplete, and an incomplete buffer's prefixes must not be
// refused (a refusal never waits for bytes that could undo it).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "bench/http/request_parser.h"

namespace {

using perflab::http::HttpLimits;
using perflab::http::ParsedRequest;
using perflab::http::ParseRequest;
using perflab::http::ParseState;

void Check(bool ok) {
  if (!ok) std::abort();
}

bool Within(std::string_view part, std::string_view whole) {
  return part.data() >= whole.data() &&
         part.data() + part.size() <= whole.data() + whole.size();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  HttpLimits limits;
  if (data[0] & 1) {
    limits.max_request_line_bytes = 16 + (data[0] >> 4);
    limits.max_header_bytes = 16 + (data[0] >> 1 & 7) * 8;
    limits.max_headers = 1 + (data[0] >> 5);
    limits.max_body_bytes = data[0] >> 2;
  }
  const std::string_view in(reinterpret_cast<const char*>(data) + 1, size - 1);
  const ParsedRequest p = ParseRequest(in, limits);
  switch (p.state) {
    case ParseState::kError:
      Check(p.status == 400 || p.status == 414 || p.status == 431 ||
            p.status == 501 || p.status == 505);
      Check(!p.error.empty());
      break;
    case ParseState::kComplete: {
      Check(p.length() <= in.size() && p.body_length <= limits.max_body_bytes);
      Check(in.substr(0, p.head_length).ends_with("\r\n\r\n"));
      Check(!p.method.empty() && !p.target.empty());
      Check(Within(p.method, in) && Within(p.target, in));
      const std::string_view own = in.substr(0, p.length());
      const ParsedRequest again = ParseRequest(own, limits);
      Check(again.state == ParseState::kComplete &&
            again.head_length == p.head_length &&
            again.body_length == p.body_length &&
            again.keep_alive == p.keep_alive && again.method == p.method &&
            again.target == p.target);
      Check(ParseRequest(own.substr(0, own.size() - 1), limits).state ==
            ParseState::kIncomplete);
      break;
    }
    case ParseState::kIncomplete:
      for (size_t cut : {in.size() / 2, in.size() - (in.empty() ? 0 : 1)}) {
        Check(ParseRequest(in.substr(0, cut), limits).state ==
              ParseState::kIncomplete);
      }
      break;
  }
  return 0;
}
