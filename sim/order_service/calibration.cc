#include "sim/order_service/calibration.h"

#include <algorithm>
#include <array>
#include <iterator>
#include <string>

#include "absl/strings/str_cat.h"

namespace perflab::sim {

namespace {

using C = Calibration;

// In declaration order; a table, read through CalibrationFields().
constexpr CalibrationField kFields[] = {
    {"orders_query_scan_us", "us", "newest 20 orders, full table scan",
     &C::orders_query_scan_us},
    {"orders_query_index_us", "us", "newest 20 orders through the index",
     &C::orders_query_index_us},
    {"item_statement_us", "us", "each of the 80 follow-up N+1 statements",
     &C::item_statement_us},
    {"join_scan_us", "us", "the whole page in one join, no index",
     &C::join_scan_us},
    {"join_index_us", "us", "the whole page in one join, with the index",
     &C::join_index_us},
    {"join_hold_ms", "ms",
     "the join's connection hold beyond its CPU (waits in the database)",
     &C::join_hold_ms},
    {"db_round_trip_ms", "ms", "network per statement (0: embedded)",
     &C::db_round_trip_ms},
    {"serialize_us", "us", "page serialisation, every response",
     &C::serialize_us},
    {"gzip_us", "us", "response compression (0: disabled)", &C::gzip_us},
    {"cache_hit_us", "us", "looking a page up in the cache", &C::cache_hit_us},
    {"other_cpu_us", "us", "HTTP parsing, routing, framework per request",
     &C::other_cpu_us},
    {"inventory_service_ms", "ms", "the inventory stub's service time",
     &C::inventory_service_ms},
    {"inventory_cpu_us", "us", "CPU of an inventory call, both ends",
     &C::inventory_cpu_us},
    {"connect_us", "us", "extra CPU of a new connection (Connection: close)",
     &C::connect_us},
    {"nagle_stall_ms", "ms", "Nagle + delayed-ACK stall per reused call",
     &C::nagle_stall_ms},
    {"alloc_per_request_mib", "MiB", "bytes allocated per request",
     &C::alloc_per_request_mib},
    {"live_set_mib", "MiB", "live set every collection keeps",
     &C::live_set_mib},
    {"young_pause_base_ms", "ms", "fixed cost of a young pause",
     &C::young_pause_base_ms},
    {"young_pause_per_mib_ms", "ms", "young pause cost per young-gen MiB",
     &C::young_pause_per_mib_ms},
    {"gc_concurrent_cpu_per_mib_us", "us",
     "concurrent marking CPU per MiB allocated above 45 % occupancy",
     &C::gc_concurrent_cpu_per_mib_us},
    {"generator_cpu_per_request_us", "us",
     "load generator CPU per request, on its own cores",
     &C::generator_cpu_per_request_us},
    {"generator_cores", "cores", "cores the load generator owns",
     &C::generator_cores},
    {"effective_cores", "cores",
     "cores of simultaneous work the app's 8 vCPUs deliver",
     &C::effective_cores},
    {"work_cv", "cv",
     "spread of every CPU piece of a request (lognormal coefficient of "
     "variation)",
     &C::work_cv},
    {"cpp_hit_pooled_us", "us",
     "C++ service (capstone --real): CPU per cache hit, 16 threads",
     &C::cpp_hit_pooled_us},
    {"cpp_hit_per_connection_us", "us",
     "C++ service (capstone --real): CPU per cache hit, thread per "
     "connection",
     &C::cpp_hit_per_connection_us},
    {"cpp_miss_pooled_us", "us",
     "C++ service (capstone --real): CPU per page miss, 16 threads",
     &C::cpp_miss_pooled_us},
    {"cpp_miss_per_connection_us", "us",
     "C++ service (capstone --real): CPU per page miss, thread per "
     "connection",
     &C::cpp_miss_per_connection_us},
    {"cpp_front_end_us", "us",
     "C++ service's part: HTTP front end, empty handler, thread per "
     "connection, per request",
     &C::cpp_front_end_us},
    {"cpp_handoff_us", "us",
     "C++ service's part: the poller handing a request to a worker, one "
     "CPU",
     &C::cpp_handoff_us},
    {"cpp_idle_wake_us", "us",
     "C++ service's part: waking a thread asleep on an idle core",
     &C::cpp_idle_wake_us},
    {"cpp_build_page_us", "us",
     "C++ service's part: the page's object graph, global heap",
     &C::cpp_build_page_us},
    {"cpp_build_page_arena_us", "us",
     "C++ service's part: the page's object graph, per-request arena",
     &C::cpp_build_page_arena_us},
    {"cpp_generator_cpu_us", "us",
     "C++ service (capstone --real): perflab's load generator's CPU per "
     "request",
     &C::cpp_generator_cpu_us},
    {"sched_quantum_us", "us",
     "scheduled CPU: the kernel's slice (0: processor sharing)",
     &C::sched_quantum_us},
    {"sched_switch_us", "us",
     "scheduled CPU: a switch between two threads, nothing to refill",
     &C::sched_switch_us},
    {"sched_refill_16kib_us", "us",
     "scheduled CPU: cache refill of a switch back, 16 KiB working set",
     &C::sched_refill_16kib_us},
    {"sched_refill_64kib_us", "us",
     "scheduled CPU: cache refill of a switch back, 64 KiB working set",
     &C::sched_refill_64kib_us},
    {"sched_refill_256kib_us", "us",
     "scheduled CPU: cache refill of a switch back, 256 KiB working set",
     &C::sched_refill_256kib_us},
    {"sched_refill_1mib_us", "us",
     "scheduled CPU: cache refill of a switch back, 1 MiB working set",
     &C::sched_refill_1mib_us},
    {"handler_working_set_kib", "KiB",
     "scheduled CPU: what a request's thread touches between switches",
     &C::handler_working_set_kib},
    {"contention_cache_2t_us", "us",
     "contention: the page cache's lookup, extra CPU per request at 2 threads "
     "on one core",
     &C::contention_cache_2t_us},
    {"contention_cache_4t_us", "us",
     "contention: the page cache's lookup, extra CPU per request at 4 threads "
     "on one core",
     &C::contention_cache_4t_us},
    {"contention_cache_8t_us", "us",
     "contention: the page cache's lookup, extra CPU per request at 8 threads "
     "on one core",
     &C::contention_cache_8t_us},
    {"contention_cache_16t_us", "us",
     "contention: the page cache's lookup, extra CPU per request at 16 threads "
     "on one core",
     &C::contention_cache_16t_us},
    {"contention_pool_2t_us", "us",
     "contention: the pool's borrow and return, extra CPU per request at 2 "
     "threads on one core",
     &C::contention_pool_2t_us},
    {"contention_pool_4t_us", "us",
     "contention: the pool's borrow and return, extra CPU per request at 4 "
     "threads on one core",
     &C::contention_pool_4t_us},
    {"contention_pool_8t_us", "us",
     "contention: the pool's borrow and return, extra CPU per request at 8 "
     "threads on one core",
     &C::contention_pool_8t_us},
    {"contention_pool_16t_us", "us",
     "contention: the pool's borrow and return, extra CPU per request at 16 "
     "threads on one core",
     &C::contention_pool_16t_us},
    {"contention_page_2t_us", "us",
     "contention: the page's allocations, extra CPU per request at 2 threads "
     "on one core",
     &C::contention_page_2t_us},
    {"contention_page_4t_us", "us",
     "contention: the page's allocations, extra CPU per request at 4 threads "
     "on one core",
     &C::contention_page_4t_us},
    {"contention_page_8t_us", "us",
     "contention: the page's allocations, extra CPU per request at 8 threads "
     "on one core",
     &C::contention_page_8t_us},
    {"contention_page_16t_us", "us",
     "contention: the page's allocations, extra CPU per request at 16 threads "
     "on one core",
     &C::contention_page_16t_us},
    {"contention_stats_2t_us", "us",
     "contention: the /stats counters, extra CPU per request at 2 threads on "
     "one core",
     &C::contention_stats_2t_us},
    {"contention_stats_4t_us", "us",
     "contention: the /stats counters, extra CPU per request at 4 threads on "
     "one core",
     &C::contention_stats_4t_us},
    {"contention_stats_8t_us", "us",
     "contention: the /stats counters, extra CPU per request at 8 threads on "
     "one core",
     &C::contention_stats_8t_us},
    {"contention_stats_16t_us", "us",
     "contention: the /stats counters, extra CPU per request at 16 threads on "
     "one core",
     &C::contention_stats_16t_us},
};

}  // namespace

absl::Status ValidateContention(const Calibration& c) {
  for (const CalibrationField& f : CalibrationFields()) {
    if (!f.name.starts_with("contention_") || !(c.*f.member > 1e6)) continue;
    return absl::InvalidArgumentError(
        absl::StrCat("calibration field '", std::string(f.name),
                     "' = ", c.*f.member, ": accepted 0 to 1e6 (us)"));
  }
  return absl::OkStatus();
}

double ContentionUs(const Calibration& c, SharedPart part, int64_t threads) {
  using C = Calibration;
  static constexpr std::array<std::array<double C::*, 4>, 4> kCurve = {{
      {&C::contention_cache_2t_us, &C::contention_cache_4t_us,
       &C::contention_cache_8t_us, &C::contention_cache_16t_us},
      {&C::contention_pool_2t_us, &C::contention_pool_4t_us,
       &C::contention_pool_8t_us, &C::contention_pool_16t_us},
      {&C::contention_page_2t_us, &C::contention_page_4t_us,
       &C::contention_page_8t_us, &C::contention_page_16t_us},
      {&C::contention_stats_2t_us, &C::contention_stats_4t_us,
       &C::contention_stats_8t_us, &C::contention_stats_16t_us},
  }};
  const auto& curve = kCurve[static_cast<size_t>(part)];
  double below_n = 1, below_us = 0;
  for (size_t i = 0; i < curve.size(); ++i) {
    const double n = static_cast<double>(int64_t{2} << i);
    const double us = c.*curve[i];
    if (static_cast<double>(threads) <= n) {
      const double t = std::max(0.0, static_cast<double>(threads) - below_n);
      return below_us + (us - below_us) * t / (n - below_n);
    }
    below_n = n;
    below_us = us;
  }
  return below_us;
}

const std::vector<CalibrationField>& CalibrationFields() {
  static const auto* fields =
      new std::vector<CalibrationField>(std::begin(kFields), std::end(kFields));
  return *fields;
}

const std::vector<CalibrationField>& PostgresFields() {
  static const auto* fields = new std::vector<CalibrationField>{
      {"pg_round_trip_ms", "ms",
       "PostgreSQL: one round trip on a kept session (SELECT 1, Unix socket)",
       &C::pg_round_trip_ms},
      {"pg_item_statement_us", "us",
       "PostgreSQL: each of the N+1's 80 follow-up statements, its round "
       "trip included",
       &C::pg_item_statement_us}};
  return *fields;
}

std::string_view SourceKindName(SourceKind kind) {
  switch (kind) {
    case SourceKind::kMeasured:
      return "measured";
    case SourceKind::kPublished:
      return "published";
    case SourceKind::kTable:
      return "table";
    case SourceKind::kFitted:
      return "fitted";
    case SourceKind::kAssumed:
      return "assumed";
  }
  return "assumed";
}

bool ReadsRow(const Provenance& p, std::string_view step) {
  auto named = [step](const std::vector<std::string>& list) {
    return std::find(list.begin(), list.end(), step) != list.end();
  };
  return named(p.selected_on) || named(p.runs) ||
         std::any_of(p.rows.begin(), p.rows.end(),
                     [step](const TableCells& c) { return c.row == step; });
}

std::vector<std::string> InputRows(const std::vector<Provenance>& provenance) {
  std::vector<std::string> rows;
  for (const auto& figures : case_study::kCapstoneTable) {
    const bool read = std::any_of(
        provenance.begin(), provenance.end(),
        [&figures](const Provenance& p) { return ReadsRow(p, figures.step); });
    if (read) rows.emplace_back(figures.step);
  }
  return rows;
}

}  // namespace perflab::sim
