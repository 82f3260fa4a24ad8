// The order service's own counters, read from its GET /stats JSON (what
// `perflab orders-service` serves: requests, queries, cache hits and misses
// since it started), so `capstone --real` can count what one step's closed
// loop cost it. Stateless functions; thread-safe.
#ifndef PERFLAB_TOOLS_CAPSTONE_SERVICE_STATS_H_
#define PERFLAB_TOOLS_CAPSTONE_SERVICE_STATS_H_

#include <cstdint>
#include <string_view>

#include "absl/status/statusor.h"

namespace perflab::capstone {

struct ServiceCounters {
  int64_t requests = 0, queries = 0, cache_hits = 0, cache_misses = 0;
};

// Parses a /stats body. Text that is not JSON, not an object, or lacks one
// of the four counters as a whole number >= 0 is InvalidArgument with one
// line saying which and what is accepted; other members are ignored.
absl::StatusOr<ServiceCounters> ParseServiceStats(std::string_view body);

// GET /stats from the service on 127.0.0.1:`port`, parsed; a failed request
// or a status other than 200 is an error too.
absl::StatusOr<ServiceCounters> ReadServiceStats(uint16_t port);

}  // namespace perflab::capstone

#endif  // PERFLAB_TOOLS_CAPSTONE_SERVICE_STATS_H_
