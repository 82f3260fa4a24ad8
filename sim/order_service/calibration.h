// A calibration: every cost the order-service model reads, as plain numbers
// with their unit in the name. The defaults ARE the "seed-h2" calibration:
// each derived from the case study's published figures (capstone chapter;
// fixtures/calibration/seed-h2.json carries the same numbers and sources).
// A field may come from one step's figures and then predicts the others; none
// is fitted to the ten-step table it is compared with. `perflab calibrate`
// measures the same fields on this machine; reading and writing the JSON file
// lives in tools/ (tools/capstone/), and the simulator only sees this struct.
// A plain value type: copy it freely, share it read-only between threads.
//
// Shorthand in the comments: C_k = the application's CPU per request at step
// k = CPU cores / RPS (baseline 4.3/86 = 50,000 us; +index 4.0/691 = 5,788.7;
// +join 4.5/1224 = 3,676.5; +TCP_NODELAY 3.7/1762 = 2,099.9; +cache
// 3.7/5293 = 699.0; +heap 768 2.2/5214 = 421.9). G = GC CPU per request at
// 256 MiB in this model = 298.3 us (51.0 in pauses: 0.1636 MiB / 50 MiB x
// 3.9 ms x the 4 effective cores a pause occupies; 247.3 concurrent:
// 0.1636 MiB x 1,511.6 us/MiB). At 768 MiB the pauses' share is 0.1636 /
// 562 x 18.2 ms x 4 = 21.2 us.
#ifndef PERFLAB_SIM_ORDER_SERVICE_CALIBRATION_H_
#define PERFLAB_SIM_ORDER_SERVICE_CALIBRATION_H_

#include <string_view>
#include <vector>

#include "core/case_study.h"

namespace perflab::sim {

struct Calibration {
  // --- database: CPU on the application's cores while holding a connection
  // Newest 20 orders by full scan: C_0 - 80 x item_statement_us - hit path
  // (400.7) - inventory_cpu_us - connect_us - G = 50,000 - 3,124.0 - 400.7 -
  // 350.0 - 1,576.6 - 298.3 (check: database = 94.7 % of C_0; JFR: 97.2 %).
  double orders_query_scan_us = 44250.3;
  // Newest 20 orders through the index: taken equal to one item statement
  // (an indexed lookup of a few rows, like the other 80).
  double orders_query_index_us = 39.1;
  // Each of the 80 follow-up N+1 statements, all-in while the connection is
  // held (engine, JDBC, mapping): (C_1 - 400.7 - 350.0 - 1,576.6 - G) / 81.
  // (check: JFR puts 37 % of C_1 in H2 itself, 26.4 us a statement).
  double item_statement_us = 39.1;
  // The whole page in one join, no index: the scan replaces the indexed
  // lookup inside the join: 44,250.3 - 39.1 + 1,050.9 (not measured).
  double join_scan_us = 45262.1;
  // The whole page in one join, with the index: C_4 - 400.7 - 350.0 - G.
  double join_index_us = 1050.9;
  // Network per statement: 0, the case study's database is embedded (its
  // text: 0.5-1 ms within an AZ for a networked one).
  double db_round_trip_ms = 0;
  // --- response (hit path = C_8 - GC pause CPU at 768 MiB 21.2 = 400.7 us,
  // split as the baseline JFR's framework 1.7 % : JSON 0.3 %)
  double serialize_us = 60.1;  // Jackson, on hits too: 400.7 x 0.3 / 2.0
  double gzip_us = 0;          // response compression: off in the case study
  double cache_hit_us = 1;     // a Caffeine lookup: sub-microsecond, 1 us
  // Tomcat, routing, framework per request: 400.7 x 1.7 / 2.0 - 1.
  double other_cpu_us = 339.6;
  // --- the inventory call (its stub runs in the same JVM)
  double inventory_service_ms = 5;  // the stub's Thread.sleep(5)
  // CPU of a call on a kept-alive connection, both ends: baseline JFR
  // "socket / HTTP client" 0.7 % x 50,000 us.
  double inventory_cpu_us = 350;
  // Extra CPU of a new connection per call (Connection: close), both ends:
  // C_2 - C_4 (same code but for keep-alive + TCP_NODELAY) = 1,576.6.
  double connect_us = 1576.6;
  // Nagle + delayed ACK on a kept-alive connection: the pools chapter's
  // 43.7 ms a request minus its warm call's 0.569 ms.
  double nagle_stall_ms = 43.131;
  // --- memory and GC (G1)
  // Allocated per request: 401 young GCs x 50 MiB young (256 - 206) over the
  // cache step's requests (5,293/s x 23 s + 40/s x 20 s = 122,539): 0.1636
  // (an upper bound: seeding is in the count; 768 MiB gives 0.149).
  double alloc_per_request_mib = 0.1636;
  double live_set_mib = case_study::kLiveSetMib;  // GC log: 206M after marking
  // A young pause = base + per MiB of young generation: through the logs'
  // means 1,562 ms / 401 = 3.9 ms at 50 MiB and 589 / 32 = 18.4 at 562 MiB.
  double young_pause_base_ms = case_study::kYoungPauseBaseMs;
  double young_pause_per_mib_ms = case_study::kYoungPausePerMibMs;
  // Concurrent marking CPU per MiB allocated while the live set is above 45 %
  // of the heap (the 256 MiB log's "Concurrent Start"/"Mixed"): the heap
  // step's CPU saving per request C_7 - C_8 = 277.1 us, less the pauses'
  // share 51.0 - 21.2 = 29.8, is 247.3 us per 0.1636 MiB.
  double gc_concurrent_cpu_per_mib_us = 1511.6;
  // --- the load generator (its own cores, as the case study's taskset 8-11)
  // At the last step the app used 1.9 of 4 cores, so the generator was the
  // limit: 4 cores / 6,066 RPS.
  double generator_cpu_per_request_us = 659.4;
  double generator_cores = 4;  // run.sh: taskset -c 8-11
  // --- the application's hardware
  // Cores of simultaneous work its 8 vCPUs deliver (a 4 vCPU step gets half,
  // rounded). The case study's CPU column stays at 3.7-4.8 cores at every
  // step from the index to virtual threads while the limit it names moves
  // (queries, threads, pool): one saturated resource of about 4 cores, which
  // 8 hyperthreads on 4 physical cores of its "laptop-class 12-core machine"
  // would be; which it was is not published. From one step: the index step
  // ran at 4.0 cores (and C_1 is its CPU per request), so 4. Integer: the
  // model's processor-sharing CPU has whole cores.
  double effective_cores = 4;
  // --- the C++ order service of `capstone --real` (bench/lab/order_service),
  // read only there (CppService) in place of the JVM's framework and GC
  // costs; 0 = not measured (the case study's JVM has no such figure).
  // Its CPU per request, cache hit, 16 pooled request threads.
  double cpp_hit_pooled_us = 0;
  // The same with one thread per connection (the virtual-threads step on).
  double cpp_hit_per_connection_us = 0;
  // Its CPU per page miss (index, join, kept-alive inventory call answered
  // at once), 16 pooled request threads.
  double cpp_miss_pooled_us = 0;
  // The same with one thread per connection.
  double cpp_miss_per_connection_us = 0;
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

#endif  // PERFLAB_SIM_ORDER_SERVICE_CALIBRATION_H_
