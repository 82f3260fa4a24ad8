// perflab orders-service: the case study's order service for real on
// loopback (bench/order_service), one flag per capstone step, bounded by
// --max-seconds and stopped cleanly by SIGINT/SIGTERM. Bad input (a
// non-loopback address, a port in use, a bad flag value) is one line and
// exit 2; a missing dataset is generated first, with a line on stderr.
// --db postgres serves the same rows from a throwaway PostgreSQL cluster
// (tools/perflab/orders_postgres.h), stopped and removed when the command
// ends, whichever way it ends.
#include <iostream>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "bench/order_service/dataset.h"
#include "bench/order_service/server.h"
#include "core/interrupt.h"
#include "tools/perflab/commands.h"
#include "tools/perflab/orders_postgres.h"
#include "tools/perflab/serve_flags.h"

namespace perflab::cli {
namespace {

// --threads of perflab orders-service: the request pool's size, stated by
// the help and checked by ParseThreadsFlag.
constexpr int kMaxOrdersThreads = 1024;

struct OrdersFlags {
  orders::OrdersServiceOptions service;
  int port = service.port;
  std::string threads = absl::StrCat(service.threads);
  std::string dataset;  // empty: the benchmarks' database of --scale
  double scale = orders::DatasetOptions().scale;
  int cores = 0;  // 0: no affinity
  double max_seconds = kDefaultMaxSeconds;
  std::string db = "sqlite";  // or "postgres"
  bool db_tcp = false;        // postgres over loopback TCP
};

// What the service did, from its counters once stopped.
core::Document StatsDocument(const orders::OrdersService& service, int sig,
                             const std::string& db,
                             const orders::OrdersServiceOptions& o) {
  const orders::OrdersServiceStats s = service.stats();
  core::Document doc("perflab orders-service: what the service did");
  doc.Set("port", "port", static_cast<int64_t>(service.port()));
  doc.Set("stopped_by", "stopped by", StopSignals::StoppedBy(sig));
  doc.Set("requests", "requests", s.handler.requests);
  doc.Set("pages", "pages served (200)", s.handler.pages);
  doc.Set("queries", "SQL statements", s.handler.queries);
  doc.Set("cache_hits", "cache hits", s.handler.cache_hits);
  doc.Set("cache_misses", "cache misses", s.handler.cache_misses);
  doc.Set("inventory_calls", "inventory calls", s.handler.inventory_calls);
  doc.Set("inventory_connections", "inventory connections opened",
          s.inventory_connections);
  doc.Set("db_timeouts", "database pool timeouts", s.handler.db_timeouts);
  doc.Set("not_found", "404 answers", s.handler.not_found);
  doc.Set("bad_requests", "400 answers", s.handler.bad_requests);
  doc.Set("errors", "5xx answers", s.handler.errors);
  doc.Set("connections", "connections accepted", s.connections);
  doc.Set("refused_requests",
          "refused by the front end (4xx/5xx, failed writes)",
          s.refused_requests);
  doc.Set("header_timeouts", "request not received in time (408)",
          s.header_timeouts);
  doc.Set("evicted", "idle, closed at the cap for a new client", s.evicted);
  doc.Set("db", "database", db);
  doc.Set("db_lost", "pages refused: database connection lost (503)",
          s.handler.db_lost);
  doc.Note(o.threads == 0
               ? absl::StrCat("--threads virtual: one OS thread per "
                              "connection, at most ",
                              o.limits.max_virtual_threads,
                              " (one task per in-flight request with these "
                              "clients).")
               : absl::StrCat("--threads ", o.threads,
                              ": a fixed pool serving one request at a time."));
  return doc;
}

absl::StatusOr<core::Document> RunOrdersService(OrdersFlags f) {
  orders::OrdersServiceOptions& o = f.service;
  absl::StatusOr<int> threads = ParseThreadsFlag(f.threads, kMaxOrdersThreads);
  if (!threads.ok()) return threads.status();
  o.threads = *threads;
  o.port = static_cast<uint16_t>(f.port);
  const bool postgres = f.db == "postgres";
  if (f.db_tcp && !postgres) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--db-tcp: given with --db ", f.db, "; accepted with --db postgres"));
  }
  // Before a dataset is generated: a missing server is one line at once.
  if (postgres) {
    if (absl::Status s = OrdersPostgres::CheckInstalled(); !s.ok()) return s;
  }
  orders::DatasetOptions dataset{.scale = f.scale};
  // Checked before any line on stderr announces a build.
  if (absl::StatusOr<orders::DatasetShape> shape = orders::ShapeFor(dataset);
      !shape.ok()) {
    return shape.status();
  }
  if (f.dataset == "-") {
    return absl::InvalidArgumentError(
        "--dataset: got '-'; accepted: the path of a SQLite file (a "
        "database cannot be read from stdin)");
  }
  o.handler.dataset_path =
      f.dataset.empty() ? orders::DefaultDatasetPath(f.scale) : f.dataset;
  if (!orders::CheckDataset(o.handler.dataset_path, dataset).ok()) {
    // Refused before the line that announces a build.
    if (absl::Status s = orders::CheckReplaceable(o.handler.dataset_path);
        !s.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("--dataset: ", s.message()));
    }
    // An interrupt during generation removes the temporary database; the
    // service's own stop signals are set up after.
    core::InstallInterruptCleanup();
    std::cerr << "perflab orders-service: generating the dataset (scale "
              << f.scale << ") at " << o.handler.dataset_path << "\n";
    absl::StatusOr<orders::BuildReport> built =
        orders::EnsureDataset(o.handler.dataset_path, dataset);
    if (!built.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("--dataset '", o.handler.dataset_path,
                       "': cannot generate it: ", built.status().message()));
    }
  }
  // Declared before the service, so it outlives every pooled session.
  std::unique_ptr<OrdersPostgres> pg;
  if (postgres) {
    absl::StatusOr<std::unique_ptr<OrdersPostgres>> started =
        OrdersPostgres::Start({.sqlite_path = o.handler.dataset_path,
                               .index = o.handler.index,
                               .tcp = f.db_tcp,
                               .db_pool = o.handler.db_pool});
    if (!started.ok()) return started.status();
    pg = *std::move(started);
    o.handler.open_store = pg->StoreFactory();
  }
  // Pinned and signal-masked before any service thread exists: they all
  // inherit the CPUs and the mask (the signal is taken by sigtimedwait).
  if (f.cores > 0) {
    if (absl::Status s = orders::PinToLastCpus(f.cores); !s.ok()) return s;
  }
  StopSignals stop_signals;
  absl::StatusOr<std::unique_ptr<orders::OrdersService>> service =
      orders::OrdersService::Start(o);
  if (!service.ok()) return service.status();
  std::cerr << "perflab orders-service: listening on http://" << o.host << ":"
            << (*service)->port() << "/ for at most " << f.max_seconds
            << " s (SIGINT or SIGTERM stops it)" << std::endl;
  const int sig = stop_signals.Wait(f.max_seconds);
  (*service)->Stop();
  return StatsDocument(**service, sig, f.db, o);
}

}  // namespace

void AddOrdersCommands(CLI::App& root, Registry& registry) {
  CLI::App* cmd = root.add_subcommand(
      "orders-service",
      "the case study's order service for real on loopback, one flag per "
      "capstone step");
  auto f = std::make_shared<OrdersFlags>();
  orders::OrdersServiceOptions& o = f->service;
  cmd->add_option("--host", o.host,
                  WithDefault("loopback address", DefaultText(o.host)));
  cmd->add_option("--port", f->port,
                  WithDefault("port, 0 = any free", DefaultText(f->port)))
      ->check(IntIn(0, 65535));
  cmd->add_option("--max-seconds", f->max_seconds,
                  absl::StrCat("stop after this long (s, default ",
                               DefaultText(f->max_seconds), ")"))
      ->check(Seconds(true));
  cmd->add_option("--dataset", f->dataset,
                  "SQLite dataset (default: the benchmarks' one; generated "
                  "when missing)");
  cmd->add_option("--scale", f->scale,
                  absl::StrCat("dataset scale (default ", DefaultText(f->scale),
                               ": 5,000 customers)"))
      ->check(NumberBetween(0.001, orders::kMaxScale));
  cmd->add_flag("--index", o.handler.index,
                "use orders(customer_id, created_at) (default: table scan)");
  cmd->add_flag("--join", o.handler.join,
                "one join per page (default: N+1, 81 statements)");
  cmd->add_flag("--keep-alive", o.handler.keep_alive,
                "keep inventory connections alive (default: Connection: "
                "close)");
  cmd->add_flag("--nodelay", o.nodelay,
                "the inventory stub sets TCP_NODELAY on its two writes");
  cmd->add_option("--db", f->db,
                  "sqlite (default: the embedded file) or postgres (a "
                  "throwaway local server holding the same rows)")
      ->check(CLI::IsMember({"sqlite", "postgres"}));
  cmd->add_flag("--db-tcp", f->db_tcp,
                "with --db postgres: connect over loopback TCP (default: "
                "the Unix socket)");
  cmd->add_option("--db-pool", o.handler.db_pool,
                  WithDefault("database connections (SQLite or libpq)",
                              DefaultText(o.handler.db_pool)))
      ->check(IntIn(1, 64));
  cmd->add_option("--db-timeout-ms", o.handler.db_acquire_timeout_ms,
                  WithDefault("bounded wait for a pooled connection",
                              DefaultText(o.handler.db_acquire_timeout_ms)))
      ->check(Millis(true));
  cmd->add_option(
      "--threads", f->threads,
      WithDefault(
          absl::StrCat("request threads, an integer in [1, ", kMaxOrdersThreads,
                       "], or 'virtual' = a thread per connection"),
          DefaultText(f->threads)));
  cmd->add_flag("--cache", o.handler.cache,
                "30 s TTL, 10,000-entry page cache");
  cmd->add_flag("--arena", o.handler.arena,
                "per-request arena for the page's object graph (default: "
                "the global allocator)");
  cmd->add_option("--cores", f->cores,
                  "pin the service to the last N CPUs (default: no pinning)")
      ->check(IntIn(1, 1024));
  cmd->add_option("--inventory-ms", o.inventory_ms,
                  absl::StrCat("the stub's service time (ms, default ",
                               DefaultText(o.inventory_ms), ")"))
      ->check(Millis());
  AddLimitsHelp(*cmd, o.limits, o.max_connections);
  registry.Produces(
      cmd, [f] { return RunOrdersService(*f); }, false);
}

}  // namespace perflab::cli
