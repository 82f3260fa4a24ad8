#include "bench/http/loopback.h"

#include <arpa/inet.h>
#include <netinet/in.h>

#include <cstdint>
#include <cstring>
#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/number.h"

namespace perflab::http {

absl::StatusOr<SocketAddress> LoopbackAddress(std::string_view host,
                                              uint16_t port) {
  std::string h(host);
  if (h.size() >= 2 && h.front() == '[' && h.back() == ']') {
    h = h.substr(1, h.size() - 2);
  }
  if (h == "localhost") h = "127.0.0.1";
  SocketAddress out;
  in_addr v4{};
  in6_addr v6{};
  if (::inet_pton(AF_INET, h.c_str(), &v4) == 1) {
    // 127.0.0.0/8: the first octet, in network byte order.
    if ((ntohl(v4.s_addr) >> 24) == 127) {
      auto* a = reinterpret_cast<sockaddr_in*>(&out.storage);
      a->sin_family = AF_INET;
      a->sin_addr = v4;
      a->sin_port = htons(port);
      out.length = sizeof(sockaddr_in);
      return out;
    }
  } else if (::inet_pton(AF_INET6, h.c_str(), &v6) == 1) {
    if (std::memcmp(&v6, &in6addr_loopback, sizeof v6) == 0) {
      auto* a = reinterpret_cast<sockaddr_in6*>(&out.storage);
      a->sin6_family = AF_INET6;
      a->sin6_addr = v6;
      a->sin6_port = htons(port);
      out.length = sizeof(sockaddr_in6);
      return out;
    }
  }
  return absl::InvalidArgumentError(
      absl::StrCat("host '", std::string(host),
                   "' is not loopback; accepted: 127.0.0.0/8, ::1, localhost"));
}

absl::StatusOr<Url> ParseLoopbackUrl(std::string_view url) {
  auto bad = [&](std::string_view why) {
    return absl::InvalidArgumentError(
        absl::StrCat("URL '", std::string(url), "': ", std::string(why),
                     "; accepted: http://127.0.0.1:PORT/PATH (or [::1])"));
  };
  std::string_view rest = url;
  // The path goes into the request line as is: a space, CR, LF or any other
  // control byte would split it or inject a header.
  for (char c : url) {
    const auto u = static_cast<unsigned char>(c);
    if (u <= 0x20 || u >= 0x7f) {
      return bad(absl::StrFormat("byte 0x%02x is not allowed in a URL", u));
    }
  }
  if (!rest.starts_with("http://")) return bad("not http://");
  rest.remove_prefix(7);
  size_t slash = rest.find('/');
  std::string_view authority = rest.substr(0, slash);
  Url out;
  out.path =
      slash == std::string_view::npos ? "/" : std::string(rest.substr(slash));
  std::string_view port_text;
  if (authority.starts_with("[")) {
    size_t close = authority.find(']');
    if (close == std::string_view::npos) return bad("unclosed [");
    out.host = std::string(authority.substr(1, close - 1));
    std::string_view after = authority.substr(close + 1);
    if (after.starts_with(":")) {
      port_text = after.substr(1);
    } else if (!after.empty()) {
      return bad("after ] only :PORT");
    }
  } else {
    size_t colon = authority.rfind(':');
    out.host = std::string(authority.substr(0, colon));
    if (colon != std::string_view::npos)
      port_text = authority.substr(colon + 1);
  }
  if (!port_text.empty() || authority.ends_with(":")) {
    // Decimal digits (core/number.h), at most five: "+80" and "0x50" are
    // refused, not read as a port.
    const std::optional<int64_t> port =
        port_text.size() > 5 ? std::nullopt
                             : core::ParseDecimalInteger(port_text);
    if (!port || *port < 1 || *port > 65535) {
      return bad("port must be in [1, 65535]");
    }
    out.port = static_cast<uint16_t>(*port);
  }
  if (absl::Status s = LoopbackAddress(out.host, out.port).status(); !s.ok()) {
    return s;
  }
  return out;
}

}  // namespace perflab::http
