#include "bench/http/request_parser.h"

#include <algorithm>
#include <optional>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"

namespace perflab::http {
namespace {

constexpr size_t kNpos = std::string_view::npos;

ParsedRequest Error(int status, std::string_view why) {
  ParsedRequest r;
  r.state = ParseState::kError;
  r.status = status;
  r.error = why;
  return r;
}

// RFC 9110's tchar: the characters of a method and of a header name.
bool IsTchar(unsigned char c) {
  return absl::ascii_isalnum(c) ||
         (c != 0 &&
          std::string_view("!#$%&'*+-.^_`|~").find(static_cast<char>(c)) !=
              kNpos);
}

bool IsToken(std::string_view s) {
  if (s.empty()) return false;
  for (unsigned char c : s) {
    if (!IsTchar(c)) return false;
  }
  return true;
}

bool IsCtl(unsigned char c) { return c < 0x20 || c == 0x7f; }

// The unfinished last line: wrong as soon as a control byte arrives (a tab
// only in a header, a CR only as its last byte), without waiting for more.
bool BadTail(std::string_view tail, bool tab_ok) {
  for (size_t i = 0; i < tail.size(); ++i) {
    const auto c = static_cast<unsigned char>(tail[i]);
    if (c == '\r' && i + 1 == tail.size()) continue;
    if (c == '\t' && tab_ok) continue;
    if (IsCtl(c)) return true;
  }
  return false;
}

std::string_view TrimOws(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) {
    s.remove_prefix(1);
  }
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) {
    s.remove_suffix(1);
  }
  return s;
}

// `name` equals `lower` (lower case) ignoring case.
bool HeaderIs(std::string_view name, std::string_view lower) {
  if (name.size() != lower.size()) return false;
  for (size_t i = 0; i < name.size(); ++i) {
    if (absl::ascii_tolower(static_cast<unsigned char>(name[i])) != lower[i]) {
      return false;
    }
  }
  return true;
}

// The request line, METHOD SP TARGET SP HTTP-VERSION with one space each
// (without its CRLF): a request with its method and target, and http11 set
// for HTTP/1.1; or an error.
ParsedRequest ParseRequestLine(std::string_view line, bool& http11) {
  const size_t sp1 = line.find(' ');
  const size_t sp2 = sp1 == kNpos ? kNpos : line.find(' ', sp1 + 1);
  if (sp2 == kNpos) return Error(400, "malformed request line");
  ParsedRequest r;
  r.method = line.substr(0, sp1);
  r.target = line.substr(sp1 + 1, sp2 - sp1 - 1);
  const std::string_view version = line.substr(sp2 + 1);
  if (!IsToken(r.method) || r.target.empty()) {
    return Error(400, "malformed request line");
  }
  for (unsigned char c : r.target) {
    if (c <= 0x20 || c >= 0x7f) return Error(400, "malformed request line");
  }
  http11 = false;
  if (version == "HTTP/1.1") {
    http11 = true;
  } else if (version != "HTTP/1.0") {
    const bool shaped = version.size() == 8 && version.starts_with("HTTP/") &&
                        absl::ascii_isdigit(version[5]) && version[6] == '.' &&
                        absl::ascii_isdigit(version[7]);
    return shaped ? Error(505, "HTTP version not supported")
                  : Error(400, "malformed request line");
  }
  return r;
}

// What the header fields read so far say about framing and the connection.
struct HeaderFacts {
  bool have_length = false;
  uint64_t length = 0;
  bool chunked_or_other = false;  // any Transfer-Encoding
  bool close = false;
  bool keep_alive = false;
};

// A Content-Length value: digits, within the body limit, and the same as
// any earlier one. An error, or nothing.
std::optional<ParsedRequest> ReadContentLength(std::string_view value,
                                               const HttpLimits& limits,
                                               HeaderFacts& h) {
  if (value.empty()) return Error(400, "invalid Content-Length");
  uint64_t v = 0;
  for (unsigned char c : value) {
    if (!absl::ascii_isdigit(c)) {
      return Error(400, "invalid Content-Length");
    }
    v = v * 10 + (c - '0');
    if (v > limits.max_body_bytes) {
      return Error(400, "Content-Length beyond the body limit");
    }
  }
  if (h.have_length && v != h.length) {
    return Error(400, "Content-Length values disagree");
  }
  h.have_length = true;
  h.length = v;
  return std::nullopt;
}

// One header field line (without its CRLF, not empty): an error, or nothing
// with what it says noted in h.
std::optional<ParsedRequest> ReadHeaderField(std::string_view field,
                                             const HttpLimits& limits,
                                             HeaderFacts& h) {
  if (field[0] == ' ' || field[0] == '\t') {
    return Error(400, "folded header line");
  }
  const size_t colon = field.find(':');
  if (colon == kNpos) return Error(400, "header without a colon");
  const std::string_view name = field.substr(0, colon);
  if (!IsToken(name)) return Error(400, "malformed header name");
  const std::string_view value = TrimOws(field.substr(colon + 1));
  for (unsigned char c : value) {
    if (c != '\t' && IsCtl(c)) return Error(400, "control character");
  }
  if (HeaderIs(name, "content-length")) {
    return ReadContentLength(value, limits, h);
  }
  if (HeaderIs(name, "transfer-encoding")) {
    h.chunked_or_other = true;
  } else if (HeaderIs(name, "connection")) {
    for (size_t from = 0; from <= value.size();) {
      const size_t comma = std::min(value.find(',', from), value.size());
      const std::string_view option = TrimOws(value.substr(from, comma - from));
      h.close = h.close || HeaderIs(option, "close");
      h.keep_alive = h.keep_alive || HeaderIs(option, "keep-alive");
      from = comma + 1;
    }
  }
  return std::nullopt;
}

}  // namespace

ParsedRequest ParseRequest(std::string_view b, const HttpLimits& limits) {
  const size_t lf = b.find('\n');
  if (lf == kNpos) {
    if (b.size() > limits.max_request_line_bytes + 1) {
      return Error(414, "request line too long");
    }
    if (BadTail(b, false)) return Error(400, "control character");
    return {};
  }
  if (lf == 0 || b[lf - 1] != '\r') return Error(400, "bare LF");
  const std::string_view line = b.substr(0, lf - 1);
  if (line.size() > limits.max_request_line_bytes) {
    return Error(414, "request line too long");
  }
  bool http11 = false;
  ParsedRequest r = ParseRequestLine(line, http11);
  if (r.state == ParseState::kError) return r;

  const size_t headers_start = lf + 1;
  size_t pos = headers_start;
  int count = 0;
  HeaderFacts h;
  for (;;) {
    const size_t end = b.find('\n', pos);
    if (end == kNpos) {
      if (b.size() - headers_start > limits.max_header_bytes) {
        return Error(431, "headers too large");
      }
      if (BadTail(b.substr(pos), true)) return Error(400, "control character");
      return {};
    }
    if (end == pos || b[end - 1] != '\r') return Error(400, "bare LF");
    const std::string_view field = b.substr(pos, end - 1 - pos);
    pos = end + 1;
    if (pos - headers_start > limits.max_header_bytes) {
      return Error(431, "headers too large");
    }
    if (field.empty()) break;  // the end of the head
    if (++count > limits.max_headers) return Error(431, "too many headers");
    if (auto bad = ReadHeaderField(field, limits, h)) return *bad;
  }
  if (h.chunked_or_other) {
    return h.have_length ? Error(400, "Content-Length with Transfer-Encoding")
                         : Error(501, "Transfer-Encoding not supported");
  }
  r.head_length = pos;
  r.body_length = static_cast<size_t>(h.length);
  r.keep_alive = !h.close && (http11 || h.keep_alive);
  r.state =
      b.size() >= r.length() ? ParseState::kComplete : ParseState::kIncomplete;
  return r;
}

std::string DescribeLimits(const HttpLimits& l) {
  return absl::StrCat(
      "Request limits: request line <= ", l.max_request_line_bytes,
      " B (else 414); headers <= ", l.max_header_bytes,
      " B and <= ", l.max_headers,
      " lines (else 431); Content-Length <= ", l.max_body_bytes,
      " B (else 400); a whole request within ", l.header_timeout_s,
      " s of its first byte (else 408, closed); Transfer-Encoding: 501; "
      "--threads virtual: <= ",
      l.max_virtual_threads,
      " threads; at the connection cap the longest-idle connection is closed "
      "to admit a new one.");
}

}  // namespace perflab::http
