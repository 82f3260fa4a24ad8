// Loopback addresses for the real server and load generator: they talk to
// 127.0.0.0/8 and ::1 only, so an experiment can never load someone else's
// machine by a typo. Pure functions; thread-safe.
#ifndef PERFLAB_BENCH_HTTP_LOOPBACK_H_
#define PERFLAB_BENCH_HTTP_LOOPBACK_H_

#include <sys/socket.h>

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace perflab::http {

struct SocketAddress {
  sockaddr_storage storage{};
  socklen_t length = 0;
  int family() const { return storage.ss_family; }
  const sockaddr* get() const {
    return reinterpret_cast<const sockaddr*>(&storage);
  }
};

// "127.0.0.1" (any of 127.0.0.0/8), "::1", "[::1]" or "localhost" (as
// 127.0.0.1) with `port`; anything else is InvalidArgument naming the host.
absl::StatusOr<SocketAddress> LoopbackAddress(std::string_view host,
                                              uint16_t port);

// An http://HOST:PORT/PATH URL whose host is loopback.
struct Url {
  std::string host;  // as written, without brackets
  uint16_t port = 80;
  std::string path = "/";
};
absl::StatusOr<Url> ParseLoopbackUrl(std::string_view url);

}  // namespace perflab::http

#endif  // PERFLAB_BENCH_HTTP_LOOPBACK_H_
