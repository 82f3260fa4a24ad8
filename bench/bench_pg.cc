// bench_pg: bench_db's costs on a real networked database. A throwaway
// PostgreSQL server (bench/order_service/pg_cluster.h) is started for the run,
// the same SQLite dataset (scale 1: 200,000 orders, 600,000 lines, seed 42) is
// copied into two databases, with and without orders(customer_id, created_at),
// and every benchmark runs over the Unix socket (tcp:0) and over loopback TCP
// (tcp:1). The server is stopped and its directory removed at exit.
//   BM_Pg_NewestOrders_{Scan,Index}   newest 20 orders without / with the index
//   BM_Pg_Page_{NPlus1,Join}          the page: 81 statements vs one join
//   BM_Pg_Page_{NPlus1,Join}_Scan     the same without the index (the baseline)
//   BM_Pg_RoundTrip                   one prepared SELECT 1 on a kept
//   connection BM_Pg_Connect                     connect, SELECT 1, close: no
//   pool
// Counters per iteration: statements (= round trips), rows_read, connections.
// Times are wall time (names end in /real_time).
// No server binaries: one line naming the package, exit 2. A server that does
// not start: its log's last line, exit 1.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "bench/order_service/bench_support.h"
#include "bench/order_service/customer_picker.h"
#include "bench/order_service/dataset.h"
#include "bench/order_service/orders.h"
#include "bench/order_service/pg_cluster.h"
#include "bench/order_service/pg_orders.h"
#include "core/env.h"

namespace perflab::orders {
namespace {

constexpr uint64_t kKeySeed = 42;
constexpr double kScale = 1.0;
constexpr char kIndexed[] = "orders_idx";
constexpr char kUnindexed[] = "orders_noidx";

PgCluster* g_cluster = nullptr;

// Starts the server and loads both databases; the one line that says why
// not otherwise (and the exit code to end with).
std::pair<int, std::string> Setup() {
  auto bin = FindPgBinDir();
  if (!bin.ok()) return {2, std::string(bin.status().message())};
  const core::Env& env = core::Env::Default();
  const int64_t t0 = env.NowNanos();
  auto cluster = PgCluster::Start();
  if (!cluster.ok()) return {1, std::string(cluster.status().message())};
  const double start_s = static_cast<double>(env.NowNanos() - t0) * 1e-9;
  auto sqlite = BenchDataset(kScale);
  if (!sqlite.ok()) return {1, std::string(sqlite.status().message())};
  const int64_t t1 = env.NowNanos();
  // The unindexed twin is a file copy of the loaded database, minus the
  // index: half the load time of a second COPY.
  absl::Status loaded = (*cluster)->CreateDatabase(kIndexed);
  if (loaded.ok()) {
    loaded = LoadPgDataset((*cluster)->UnixConninfo(kIndexed), *sqlite, true)
                 .status();
  }
  if (loaded.ok()) loaded = (*cluster)->CreateDatabase(kUnindexed, kIndexed);
  if (loaded.ok()) {
    loaded = DropCustomerIndex((*cluster)->UnixConninfo(kUnindexed));
  }
  if (!loaded.ok()) return {1, std::string(loaded.message())};
  const double load_s = static_cast<double>(env.NowNanos() - t1) * 1e-9;
  auto conn = PgConnection::Open((*cluster)->UnixConninfo());
  std::string version = "?";
  if (conn.ok()) version = conn->Scalar("SHOW server_version").value_or("?");
  std::fprintf(stderr,
               "bench_pg: PostgreSQL %s in %s (port %d), started in %.1f s; "
               "dataset loaded in %.1f s\n",
               version.c_str(), (*cluster)->dir().c_str(), (*cluster)->port(),
               start_s, load_s);
  benchmark::AddCustomContext("pg_server_version", version);
  benchmark::AddCustomContext("pg_start_seconds", absl::StrCat(start_s));
  benchmark::AddCustomContext("pg_load_seconds", absl::StrCat(load_s));
  g_cluster = cluster->release();
  return {0, ""};
}

std::string Conninfo(const char* db, bool tcp) {
  return tcp ? g_cluster->TcpConninfo(db) : g_cluster->UnixConninfo(db);
}

// One repository per database and transport for the whole process, so its
// prepared statements and the server's caches stay warm across runs.
PgOrderRepository* Repo(benchmark::State& state, const char* db, bool tcp) {
  static auto* repos = new std::map<std::pair<std::string, bool>,
                                    std::unique_ptr<PgOrderRepository>>();
  auto key = std::pair{std::string(db), tcp};
  if (auto it = repos->find(key); it != repos->end()) return it->second.get();
  auto repo = PgOrderRepository::Open(Conninfo(db, tcp));
  if (!repo.ok()) {
    state.SkipWithError(repo.status().ToString().c_str());
    return nullptr;
  }
  return ((*repos)[key] = std::move(*repo)).get();
}

void Counters(benchmark::State& state, const QueryStats& s,
              double connections = 0) {
  using benchmark::Counter;
  state.counters["statements"] =
      Counter(static_cast<double>(s.statements), Counter::kAvgIterations);
  state.counters["rows_read"] =
      Counter(static_cast<double>(s.rows_read), Counter::kAvgIterations);
  state.counters["connections"] = Counter(connections, Counter::kAvgIterations);
  state.SetItemsProcessed(state.iterations());
}

enum class Work { kHeads, kNPlusOne, kJoin };

template <Work kWork, bool kIndex>
void BM_Pg(benchmark::State& state) {
  const bool tcp = state.range(0) != 0;
  PgOrderRepository* repo = Repo(state, kIndex ? kIndexed : kUnindexed, tcp);
  if (repo == nullptr) return;
  CustomerPicker pick(ShapeFor({.scale = kScale})->customers, true, kKeySeed);
  repo->ResetStats();
  for (auto _ : state) {
    const int64_t customer = pick.Next();
    size_t orders = 0;
    bool ok = false;
    if constexpr (kWork == Work::kHeads) {
      auto r = repo->NewestOrders(customer);
      ok = r.ok();
      if (ok) orders = r->size();
      benchmark::DoNotOptimize(r);
    } else {
      auto r = kWork == Work::kJoin ? repo->LoadPageJoin(customer)
                                    : repo->LoadPageNPlusOne(customer);
      ok = r.ok();
      if (ok) orders = r->orders.size();
      benchmark::DoNotOptimize(r);
    }
    if (!ok || orders != kPageOrders) {
      state.SkipWithError("query failed or returned a short page");
      break;
    }
  }
  Counters(state, repo->stats());
}

void BM_Pg_RoundTrip(benchmark::State& state) {
  PgOrderRepository* repo = Repo(state, kIndexed, state.range(0) != 0);
  if (repo == nullptr) return;
  repo->ResetStats();
  for (auto _ : state) {
    if (!repo->RoundTrip().ok()) {
      state.SkipWithError("SELECT 1 failed");
      break;
    }
  }
  Counters(state, repo->stats());
}

void BM_Pg_Connect(benchmark::State& state) {
  const std::string conninfo = Conninfo(kIndexed, state.range(0) != 0);
  int64_t n = 0;
  for (auto _ : state) {
    absl::Status s = PgConnectQueryClose(conninfo);
    if (!s.ok()) {
      state.SkipWithError(s.ToString().c_str());
      break;
    }
    ++n;
  }
  QueryStats stats;
  stats.statements = n;
  stats.rows_read = n;
  Counters(state, stats, static_cast<double>(n));
}

// Wall time: the client's CPU time leaves out the server's work and the
// wait for it, which is what is measured here.
void Transports(benchmark::internal::Benchmark* b) {
  b->ArgNames({"tcp"})->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);
  b->UseRealTime();
}
void TcpOnly(benchmark::internal::Benchmark* b) {
  b->ArgNames({"tcp"})->Arg(1)->Unit(benchmark::kMicrosecond)->UseRealTime();
}

BENCHMARK(BM_Pg<Work::kHeads, false>)
    ->Name("BM_Pg_NewestOrders_Scan")
    ->Apply(Transports);
BENCHMARK(BM_Pg<Work::kHeads, true>)
    ->Name("BM_Pg_NewestOrders_Index")
    ->Apply(Transports);
BENCHMARK(BM_Pg<Work::kNPlusOne, true>)
    ->Name("BM_Pg_Page_NPlus1")
    ->Apply(Transports);
BENCHMARK(BM_Pg<Work::kJoin, true>)->Name("BM_Pg_Page_Join")->Apply(Transports);
BENCHMARK(BM_Pg<Work::kNPlusOne, false>)
    ->Name("BM_Pg_Page_NPlus1_Scan")
    ->Apply(TcpOnly);
BENCHMARK(BM_Pg<Work::kJoin, false>)
    ->Name("BM_Pg_Page_Join_Scan")
    ->Apply(TcpOnly);
BENCHMARK(BM_Pg_RoundTrip)->Apply(Transports);
BENCHMARK(BM_Pg_Connect)->Apply(Transports);

}  // namespace
}  // namespace perflab::orders

int main(int argc, char** argv) {
  // Listing the names needs no server (the names check runs it everywhere).
  // Read before Initialize, which removes the flags it knows from argv.
  bool list_only = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.rfind("--benchmark_list_tests", 0) == 0) {
      list_only = arg != "--benchmark_list_tests=false" &&
                  arg != "--benchmark_list_tests=0";
    }
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  if (!list_only) {
    auto [code, why] = perflab::orders::Setup();
    if (code != 0) {
      std::fprintf(stderr, "bench_pg: %s\n", why.c_str());
      return code;
    }
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  delete perflab::orders::g_cluster;  // stops the server, removes its directory
  return 0;
}
