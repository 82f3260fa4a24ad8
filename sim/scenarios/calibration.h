// A calibration: every cost the order-service model reads, as plain numbers
// with their unit in the name. Defaults are the case study's own published
// figures (the "seed-h2" calibration; constants from core/case_study.h where
// another part of perflab uses them too). `perflab calibrate` measures the
// same fields on this machine; reading and writing the JSON file lives in
// tools/ (tools/capstone/), and the simulator only ever sees this struct.
// A plain value type: copy it freely, share it read-only between threads.
#ifndef PERFLAB_SIM_SCENARIOS_CALIBRATION_H_
#define PERFLAB_SIM_SCENARIOS_CALIBRATION_H_

#include <string_view>
#include <vector>

#include "core/case_study.h"

namespace perflab::sim {

struct Calibration {
  // --- database (CPU on the application's cores while holding a connection)
  double orders_query_scan_us = 0;   // newest 20 orders, full table scan
  double orders_query_index_us = 0;  // newest 20 orders through the index
  double item_statement_us = 0;      // each of the 80 follow-up N+1 statements
  double join_scan_us = 0;           // the whole page in one join, no index
  double join_index_us = 0;          // the whole page in one join, with index
  double db_round_trip_ms = 0;       // network per statement (0: embedded DB)
  // --- response
  double serialize_us = 0;  // page serialisation (the graph the service sends)
  double gzip_us = 0;       // response compression (0: disabled)
  double cache_hit_us = 0;  // serving a cached page
  double other_cpu_us = 0;  // HTTP parsing, routing, framework per request
  // --- the inventory call
  double inventory_service_ms = 5;  // the stub's service time
  double inventory_cpu_us = 0;      // the stub's CPU (it runs in the same JVM)
  double connect_us = case_study::kHttpConnectUs;     // new TCP connection
  double nagle_stall_ms = case_study::kDelayedAckMs;  // Nagle + delayed ACK
  // --- memory and GC
  double alloc_per_request_mib = 0;               // bytes allocated per request
  double live_set_mib = case_study::kLiveSetMib;  // survives every collection
  double young_pause_base_ms = case_study::kYoungPauseBaseMs;       // per pause
  double young_pause_per_mib_ms = case_study::kYoungPausePerMibMs;  // per MiB
  double gc_cpu_per_mib_us = 0;  // GC threads' CPU per young MiB collected
  // --- the load generator (its own cores, as the case study's taskset)
  double generator_cpu_per_request_us = 0;  // client CPU per request
  double generator_cores = 4;               // cores the generator owns
};

// One field's name, unit and meaning, for readers, writers and --help.
struct CalibrationField {
  std::string_view name;  // JSON key, e.g. "orders_query_scan_us"
  std::string_view unit;  // "us", "ms", "MiB", "cores"
  std::string_view meaning;
  double Calibration::*member;
};

// Every field of Calibration, in declaration order: the single list the JSON
// reader, the writer and the docs iterate (a test checks it is complete).
const std::vector<CalibrationField>& CalibrationFields();

}  // namespace perflab::sim

#endif  // PERFLAB_SIM_SCENARIOS_CALIBRATION_H_
