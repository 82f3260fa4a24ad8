// A calibration: every cost the order-service model reads, as plain numbers
// with their unit in the name, and where each came from (Provenance). The
// defaults ARE the "seed-h2" calibration, which tools/calibration/seed_h2.cc
// derives from the case study's published figures (core/case_study.h) and a
// test checks against these numbers. Nine of the ten-step table's rows feed
// seed-h2's fields, through their cells, a choice made on them or a figure
// from their run (each field's Provenance names them): those steps are
// inputs when the table is compared with the model, not predictions.
// `perflab calibrate` measures most fields on this machine; reading and
// writing the JSON file lives in tools/ (tools/calibration/), and the simulator
// only sees the Calibration struct.
// Plain value types: copy them freely, share them read-only between threads.
#ifndef PERFLAB_SIM_ORDER_SERVICE_CALIBRATION_H_
#define PERFLAB_SIM_ORDER_SERVICE_CALIBRATION_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "core/case_study.h"

namespace perflab::sim {

struct Calibration {
  // --- database: CPU on the application's cores while holding a connection
  double orders_query_scan_us = 44246.4;  // newest 20 orders, full scan
  // Newest 20 orders through the index: an indexed lookup of a few rows,
  // taken equal to one item statement.
  double orders_query_index_us = 39.1;
  // Each of the 80 follow-up N+1 statements, all-in while the connection is
  // held (engine, JDBC, mapping).
  double item_statement_us = 39.1;
  // The whole page in one join, no index (not measured by the case study).
  double join_scan_us = 45258.2;
  double join_index_us = 1050.9;  // the whole page in one join, with the index
  // What the join holds its pooled connection beyond its CPU (waits inside
  // the embedded database), from Little's law on the TCP_NODELAY step's 4
  // connections; the N+1 statements' CPU figures already include theirs.
  // Fitted: the hold, on the join alone, was chosen so the pool step gains.
  double join_hold_ms = 1.2192;
  // Network per statement: 0, the case study's database is embedded (its
  // text: 0.5-1 ms within an AZ for a networked one).
  double db_round_trip_ms = 0;
  // --- response: the hit path split as the baseline JFR's framework : JSON
  double serialize_us = 60.1;   // Jackson, on hits too
  double gzip_us = 0;           // response compression: off in the case study
  double cache_hit_us = 1;      // a Caffeine lookup: sub-microsecond, 1 us
  double other_cpu_us = 339.6;  // Tomcat, routing, framework per request
  // --- the inventory call (its stub runs in the same JVM)
  double inventory_service_ms = case_study::kInventoryStubMs;
  double inventory_cpu_us = 350;  // a kept-alive call's CPU, both ends
  // Extra CPU of a new connection per call (Connection: close), both ends.
  double connect_us = 1576.6;
  double nagle_stall_ms = 43.131;  // Nagle + delayed ACK, kept-alive call
  // --- memory and GC (G1)
  // Allocated per request, from the GC log's young collections: an upper
  // bound (the seeding's allocation is in the log's count).
  double alloc_per_request_mib = 0.1636;
  double live_set_mib = case_study::kLiveSetMib;  // GC log: 206M after marking
  // A young pause = base + per MiB of young generation: the line through the
  // GC logs' mean pauses at 256 and 768 MiB. A copying collector's pause
  // grows with the survivors, so the 768 MiB mean may be inflated by the
  // seeding phase; the published figures cannot separate it.
  double young_pause_base_ms = case_study::kYoungPauseBaseMs;
  double young_pause_per_mib_ms = case_study::kYoungPausePerMibMs;
  // Concurrent marking CPU per MiB allocated while the live set is above 45 %
  // of the heap (the 256 MiB log's "Concurrent Start"/"Mixed").
  double gc_concurrent_cpu_per_mib_us = 1511.5;
  // --- the load generator (its own cores, as the case study's taskset 8-11)
  double generator_cpu_per_request_us = 659.4;
  double generator_cores = case_study::kGeneratorCores;
  // --- the application's hardware
  // Cores of simultaneous work its 8 vCPUs deliver (a 4 vCPU step gets half,
  // rounded). Integer: the model's processor-sharing CPU has whole cores.
  // Fitted: the mean CPU of the five steps whose level suggested it.
  // What the resource physically was (8 hyperthreads on 4 physical cores of
  // its "laptop-class 12-core machine" would be one) is not published.
  double effective_cores = 4;
  // --- the spread of the work
  // Coefficient of variation of every CPU piece of a request (lognormal
  // around its mean): assumed, no published figure gives it. It sets how
  // much of the tail the model's queues can make; 0 marches the clients in
  // lockstep after every pause.
  double work_cv = 0.5;
  // --- the C++ order service of `capstone --real` (bench/http/), read only
  // there (CppService) in place of the JVM's framework and GC costs; 0 = not
  // measured (the case study's JVM has no such figure).
  // Its CPU per request, cache hit, 16 pooled request threads.
  double cpp_hit_pooled_us = 0;
  // The same with one thread per connection (the virtual-threads step on).
  double cpp_hit_per_connection_us = 0;
  // Its CPU per page miss (index, join, kept-alive inventory call answered
  // at once), 16 pooled request threads.
  double cpp_miss_pooled_us = 0;
  // The same with one thread per connection.
  double cpp_miss_per_connection_us = 0;
  // The four above are the whole service measured; the composed C++ service
  // never reads them (they are shown beside the sum of its parts). Its parts,
  // each from a benchmark of that part alone, with the measured costs above
  // (join, serialisation, cache lookup, inventory call, new connection):
  // The HTTP front end with an empty handler, one thread per connection, per
  // request (read, parse, write, the thread's wake-up).
  double cpp_front_end_us = 0;
  // The poller handing a request to a worker (16 pooled threads): its epoll
  // work and the worker's wake-up, on the service's one CPU.
  double cpp_handoff_us = 0;
  // Waking a thread asleep on an idle core: the stub's 5 ms sleep ending,
  // once per inventory call.
  double cpp_idle_wake_us = 0;
  // The page's object graph the service builds on every miss, on the global
  // heap and on its per-request arena (the heap step's --arena).
  double cpp_build_page_us = 0;
  double cpp_build_page_arena_us = 0;
  // perflab's own load generator (capstone --real's client): its CPU per
  // request against a server on another core, measured alone; the composed
  // C++ service's generator_cpu_per_request_us (0: not measured).
  double cpp_generator_cpu_us = 0;
  // --- the kernel's scheduler: the application's CPU time-sliced, as a
  // kernel runs threads (sim::Cpu's sliced discipline), instead of processor
  // sharing's free, perfect sharing. 0: processor sharing, and the fields
  // below are not read. seed-h2 assumes Linux's default on 8 vCPUs.
  double sched_quantum_us = 3000;
  // A switch between two threads on one core with nothing to refill.
  double sched_switch_us = 2;
  // What a switch back costs beyond that, refilling the caches with the
  // working set the thread brings back, at four working sets (the curve is
  // linear between them and 0 at an empty working set).
  double sched_refill_16kib_us = 0.3;
  double sched_refill_64kib_us = 0.6;
  double sched_refill_256kib_us = 1.2;
  double sched_refill_1mib_us = 2.2;
  // What a request's thread touches between two switches: at most 1024
  // (the curve's last point). seed-h2: what a request allocates.
  double handler_working_set_kib = 168;
  // --- contention: the CPU a request's use of one shared part of the C++
  // service costs beyond its cost alone, when n threads on one core share
  // that part (its lock's hand-offs, its cache lines moving). Per part, at
  // 2, 4, 8 and 16 threads: the cache lookup, the pool's borrow and return,
  // the page's allocations, the stats counters. 0: not measured.
  double contention_cache_2t_us = 0;
  double contention_cache_4t_us = 0;
  double contention_cache_8t_us = 0;
  double contention_cache_16t_us = 0;
  double contention_pool_2t_us = 0;
  double contention_pool_4t_us = 0;
  double contention_pool_8t_us = 0;
  double contention_pool_16t_us = 0;
  double contention_page_2t_us = 0;
  double contention_page_4t_us = 0;
  double contention_page_8t_us = 0;
  double contention_page_16t_us = 0;
  double contention_stats_2t_us = 0;
  double contention_stats_4t_us = 0;
  double contention_stats_8t_us = 0;
  double contention_stats_16t_us = 0;
  // --- a networked database: PostgreSQL on this machine, read only by
  // `capstone --real --db postgres`'s composed side. Not in
  // CalibrationFields(): a file has them in an optional section of their
  // own (PostgresFields()), so that files written before them still read.
  // 0: not measured.
  // One round trip on a kept session (a prepared SELECT 1 over the Unix
  // socket), paid by every statement.
  double pg_round_trip_ms = 0;
  // Each of the N+1's 80 follow-up statements, all-in (its round trip
  // included): what one more statement adds to a page.
  double pg_item_statement_us = 0;
};

// One field's name, unit and meaning, for readers, writers and --help.
struct CalibrationField {
  std::string_view name;  // JSON key, e.g. "orders_query_scan_us"
  std::string_view unit;  // "us", "ms", "MiB", "cores", "cv"
  std::string_view meaning;
  double Calibration::*member;
};

// The contention fields' bound: each in [0, 1e6] us; InvalidArgument naming
// the first field beyond it (the negative and non-finite values are refused
// with every other field's).
absl::Status ValidateContention(const Calibration& c);

// The C++ service's parts its threads share, each measured by one
// contention benchmark.
enum class SharedPart { kCache, kPool, kPage, kStats };

// What one request's use of `part` costs beyond its cost alone, in us, when
// `threads` threads share it on one core: 0 at one thread, the measured
// points at 2, 4, 8 and 16, linear between them, and the 16-thread figure
// beyond (the curve is not measured further).
double ContentionUs(const Calibration& c, SharedPart part, int64_t threads);

// Every field of Calibration, in declaration order: the single list the JSON
// reader, the writer and the docs iterate (a test checks it is complete).
const std::vector<CalibrationField>& CalibrationFields();

// The networked database's fields (pg_*), in declaration order; neither in
// CalibrationFields() nor required in a file.
const std::vector<CalibrationField>& PostgresFields();

// Where one field's value comes from, machine-readable beside the human
// `source` text. Exactly one kind:
//   measured:  a benchmark of this machine (`benchmarks`, `formula`);
//   published: the case study's named figures only (`figures`, names of
//              core/case_study.h's kNamedFigures);
//   table:     reads cells of the ten-step table (`rows`), maybe figures too;
//   fitted:    chosen to match cells of the ten-step table (`rows`, the
//              cells it was fitted on) where no figure outside it gives the
//              value; `why` says how and what it contradicts;
//   assumed:   a stated value (`why`); copied from another calibration
//              (`from`), it keeps the reads of its derivation there.
// Two more lists name rows without cells: `selected_on`, the steps whose
// results were looked at to choose the value or the form the model gives
// it (a choice made by reading a row reads it), and `runs`, the steps
// whose own run a named figure was measured in (a GC log, a profile).
// `rows`, `selected_on`, `runs` and `figures` are everything the value
// depends on, through the fields it is computed from (`fields`) too, so the
// union of the three row lists over a calibration is the set of table rows
// that calibration read.
enum class SourceKind { kMeasured, kPublished, kTable, kFitted, kAssumed };

// "measured", "published", "table", "fitted", "assumed".
std::string_view SourceKindName(SourceKind kind);

struct TableCells {
  std::string row;                   // a kCapstoneTable step, e.g. "index"
  std::vector<std::string> columns;  // kCapstoneColumns names, e.g. "rps"
  bool operator==(const TableCells&) const = default;
};

struct Provenance {
  SourceKind kind = SourceKind::kAssumed;
  // The calibration the value was derived in when copied from another file
  // ("seed-h2"); empty: this one. Names in `fields` are that calibration's.
  std::string from;
  std::vector<std::string> benchmarks;  // measured: "bench_db BM_...", ...
  std::string formula;                  // measured: the arithmetic
  std::vector<TableCells> rows;         // table: rows in table order
  // Steps (kCapstoneTable names, in table order) a choice was made on.
  std::vector<std::string> selected_on;
  // Steps (the same) whose own run measured a figure the value reads.
  std::vector<std::string> runs;
  std::vector<std::string> figures;  // named figures, in kNamedFigures order
  std::vector<std::string> fields;   // fields it is computed from
  std::string why;                   // assumed: why this value
  bool operator==(const Provenance&) const = default;
};

// The table rows (kCapstoneTable step names, in table order) any of
// `provenance` reads through its cells, its selections or its runs: the
// steps a comparison with the table must count as inputs, not predictions.
std::vector<std::string> InputRows(const std::vector<Provenance>& provenance);

// Whether `p` reads `step` (a cell, a selection or a run of it).
bool ReadsRow(const Provenance& p, std::string_view step);

}  // namespace perflab::sim

#endif  // PERFLAB_SIM_ORDER_SERVICE_CALIBRATION_H_
