// libFuzzer target: the URL parser of `perflab load` (ParseLoopbackUrl). Any
// input must give a loopback URL or a clean InvalidArgument: no crash or
// undefined behaviour. What parses must be safe to put in a request line (a
// path starting with '/', no space or control byte), name a loopback host
// and a port in [1, 65535], and parse to the same URL when written back.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "absl/strings/str_cat.h"
#include "bench/http/loopback.h"

namespace {

void Require(bool ok) {
  if (!ok) std::abort();
}

bool Printable(std::string_view s) {
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (u <= 0x20 || u >= 0x7f) return false;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<perflab::http::Url> url =
      perflab::http::ParseLoopbackUrl(text);
  if (!url.ok()) {
    Require(url.status().code() == absl::StatusCode::kInvalidArgument);
    return 0;
  }
  Require(!url->path.empty() && url->path.front() == '/');
  Require(Printable(url->path) && Printable(url->host));
  Require(url->port >= 1);
  Require(perflab::http::LoopbackAddress(url->host, url->port).ok());
  const bool v6 = url->host.find(':') != std::string::npos;
  const std::string back =
      absl::StrCat("http://", v6 ? "[" : "", url->host, v6 ? "]" : "", ":",
                   url->port, url->path);
  absl::StatusOr<perflab::http::Url> again =
      perflab::http::ParseLoopbackUrl(back);
  Require(again.ok() && again->host == url->host && again->port == url->port &&
          again->path == url->path);
  return 0;
}
