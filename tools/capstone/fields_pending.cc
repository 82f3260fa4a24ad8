// TEMPORARY, until the MODEL branch (sim/scenarios/calibration.cc) is
// merged: a weak definition of sim::CalibrationFields() so the calibration
// reader links and tests today (and the fuzz target links without the
// simulator). The real, strong definition replaces it at link time; delete
// this file once it is on main.
#include "sim/scenarios/calibration.h"

namespace perflab::sim {

__attribute__((weak)) const std::vector<CalibrationField>& CalibrationFields() {
  using C = Calibration;
  static const std::vector<CalibrationField> kFields = {
      {"orders_query_scan_us", "us", "newest 20 orders, full table scan",
       &C::orders_query_scan_us},
      {"orders_query_index_us", "us", "newest 20 orders through the index",
       &C::orders_query_index_us},
      {"item_statement_us", "us", "each of the 80 follow-up N+1 statements",
       &C::item_statement_us},
      {"join_scan_us", "us", "the whole page in one join, no index",
       &C::join_scan_us},
      {"join_index_us", "us", "the whole page in one join, with index",
       &C::join_index_us},
      {"db_round_trip_ms", "ms", "network per statement (0: embedded DB)",
       &C::db_round_trip_ms},
      {"serialize_us", "us", "page serialisation", &C::serialize_us},
      {"gzip_us", "us", "response compression (0: disabled)", &C::gzip_us},
      {"cache_hit_us", "us", "serving a cached page", &C::cache_hit_us},
      {"other_cpu_us", "us", "HTTP parsing, routing, framework per request",
       &C::other_cpu_us},
      {"inventory_service_ms", "ms", "the inventory stub's service time",
       &C::inventory_service_ms},
      {"inventory_cpu_us", "us", "the stub's CPU (same JVM)",
       &C::inventory_cpu_us},
      {"connect_us", "us", "new TCP connection", &C::connect_us},
      {"nagle_stall_ms", "ms", "Nagle + delayed ACK stall", &C::nagle_stall_ms},
      {"alloc_per_request_mib", "MiB", "bytes allocated per request",
       &C::alloc_per_request_mib},
      {"live_set_mib", "MiB", "survives every collection", &C::live_set_mib},
      {"young_pause_base_ms", "ms", "fixed cost of a young pause",
       &C::young_pause_base_ms},
      {"young_pause_per_mib_ms", "ms", "young pause per MiB of young gen",
       &C::young_pause_per_mib_ms},
      {"gc_cpu_per_mib_us", "us", "GC threads' CPU per young MiB collected",
       &C::gc_cpu_per_mib_us},
      {"generator_cpu_per_request_us", "us", "load generator CPU per request",
       &C::generator_cpu_per_request_us},
      {"generator_cores", "cores", "cores the generator owns",
       &C::generator_cores},
  };
  return kFields;
}

}  // namespace perflab::sim
