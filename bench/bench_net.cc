// bench_net: the cost of the case study's call to its inventory service, over
// real TCP on 127.0.0.1 with a server thread in this process (ephemeral port,
// started and stopped by each benchmark run). Times are wall-clock per request
// (UseRealTime): the client sleeps in the kernel while the server works.
//   BM_Http_NewConnection, BM_Http_KeepAlive: connect per request vs reuse
//   BM_Http_KeepAlive_TwoWrites_Nagle: headers and body as two small writes
//     without TCP_NODELAY, the Nagle + delayed-ACK stall (~40 ms)
//   BM_Http_KeepAlive_TwoWrites_NoDelay: the same with TCP_NODELAY
//   BM_Http_KeepAlive_Gathered_Nagle: one gathered write, Nagle on
//   BM_Http_NewConnection_TwoWrites_Nagle: the stall hidden by closing
//   BM_Https_NewConnection, BM_Https_KeepAlive: full TLS handshake vs reuse
//   BM_Https_NewConnection_ClientNagle: the client without TCP_NODELAY; its
//     request waits behind its own handshake Finished message (~40 ms)
//   BM_HttpFront_EmptyHandler/pooled:P: the order service's front end with
//     a handler that does nothing, 32 kept-alive clients: its CPU per request
//   BM_OrdersService/hit:H/pooled:P: the whole order service, the same way
#include <benchmark/benchmark.h>
#include <sched.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <functional>
#include <limits>
#include <memory>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "bench/http/http_front.h"
#include "bench/http/load_client.h"
#include "bench/http/net.h"
#include "bench/http/tls.h"
#include "bench/order_service/bench_support.h"
#include "bench/order_service/payload.h"
#include "bench/order_service/server.h"
#include "core/case_study.h"
#include "core/cpu_time.h"

namespace perflab::http {
namespace {

// The self-signed identity is generated once per process (RSA-2048 keygen).
std::shared_ptr<const TlsContexts> Tls(benchmark::State& state) {
  static auto* tls = [] {
    auto t = TlsContexts::Create();
    return new absl::StatusOr<std::shared_ptr<const TlsContexts>>(std::move(t));
  }();
  if (!tls->ok()) {
    state.SkipWithError(tls->status().ToString().c_str());
    return nullptr;
  }
  return **tls;
}

struct Setup {
  bool tls = false;
  bool keep_alive = true;
  bool server_nodelay = true;
  bool client_nodelay = true;
  ResponseWrites writes = ResponseWrites::kGathered;
};

void BM_Request(benchmark::State& state, Setup setup) {
  std::shared_ptr<const TlsContexts> tls;
  if (setup.tls && (tls = Tls(state)) == nullptr) return;
  auto server = LoopbackServer::Start({.tcp_nodelay = setup.server_nodelay,
                                       .writes = setup.writes,
                                       .body_bytes = 256,
                                       .tls = tls});
  if (!server.ok()) {
    state.SkipWithError(server.status().ToString().c_str());
    return;
  }
  HttpClient client((*server)->port(), {.keep_alive = setup.keep_alive,
                                        .tcp_nodelay = setup.client_nodelay,
                                        .tls = tls});
  // A few untimed requests: Linux acknowledges the first segments of a new
  // connection at once (quick-ACK); delayed ACKs, and the stall, start after.
  for (int i = 0; i < 3; ++i) {
    if (!client.Get("/inventory").ok()) {
      state.SkipWithError("warm-up request failed");
      return;
    }
  }
  int64_t opened_before = client.connections_opened();
  int64_t bytes = 0;
  for (auto _ : state) {
    auto r = client.Get("/inventory");
    if (!r.ok() || r->status != 200) {
      state.SkipWithError(r.ok() ? "status != 200"
                                 : r.status().ToString().c_str());
      break;
    }
    bytes += static_cast<int64_t>(r->body.size());
  }
  client.Close();
  (*server)->Stop();
  using benchmark::Counter;
  state.counters["connections"] =
      Counter(static_cast<double>(client.connections_opened() - opened_before),
              Counter::kAvgIterations);
  state.SetItemsProcessed(state.iterations());
  state.SetBytesProcessed(bytes);
}

// The order service's own CPU per request, measured the way `capstone --real`
// loads it: the service (workers, poller, inventory stub) pinned to the last
// CPU, 32 kept-alive clients on the first (this thread and 31 more), the
// stub taking its 5 ms, so the service's threads block, wake and contend as
// they do in the real run. Why not a stub answering at once: this service's
// CPU per request depends on how its core idles. Measured with perflab load
// (32 clients, pooled threads): 180 us a request with a 0 ms stub against
// 277 us with the 5 ms one, every thread woken from a sleeping stub costing
// more. Server CPU is the process's CPU minus every client thread's, over
// every request the clients made.
constexpr int kServiceClients =
    static_cast<int>(case_study::kClosedLoopClients);
constexpr int64_t kServiceCustomers = 200;  // ids 1..200 in turn

struct ServiceClient {
  HttpClient http;
  int64_t next;
  absl::StatusOr<HttpResponse> Get() {
    return http.Get(
        absl::StrCat("/customers/", 1 + next++ % kServiceCustomers, "/orders"));
  }
};

// Drives the server on `port` (already pinned to the last CPU) from
// kServiceClients kept-alive clients pinned to the first: this thread in the
// timed loop, the others in the background until it ends. Sets the counters
// server_cpu_us (the process's CPU minus every client thread's, per request
// of all clients) and requests. The server's start-up and the cache fill
// (`fill_first`: one pass over the ids) are before the CPU window;
// `stop_server` ends the server after it.
void DriveServer(benchmark::State& state, uint16_t port, bool split,
                 bool fill_first, const std::function<void()>& stop_server) {
  if (split)
    (void)orders::PinToFirstCpus(1);  // the clients' threads inherit it
  ServiceClient mine{HttpClient(port, {.keep_alive = true}), 0};
  // With the cache on, one pass over the ids fills it (1 s: each a miss).
  for (int64_t i = 0; fill_first && i < kServiceCustomers; ++i) {
    (void)mine.Get();
  }
  std::atomic<bool> stop{false};
  std::atomic<int64_t> others{0}, failed{0};
  std::atomic<double> client_cpu{0};
  const double process0 = core::ProcessCpuSeconds();
  std::vector<std::thread> threads;
  for (int t = 1; t < kServiceClients; ++t) {
    threads.emplace_back([&, t] {
      const double cpu0 = core::ThreadCpuSeconds();
      ServiceClient c{HttpClient(port, {.keep_alive = true}), int64_t{t} * 7};
      int64_t done = 0;
      while (!stop.load(std::memory_order_relaxed)) {
        auto r = c.Get();
        if (!r.ok() || r->status != 200) ++failed;
        ++done;
      }
      c.http.Close();
      others += done;
      double cpu = core::ThreadCpuSeconds() - cpu0;
      for (double v = client_cpu.load();
           !client_cpu.compare_exchange_weak(v, v + cpu);) {
      }
    });
  }
  const double mine0 = core::ThreadCpuSeconds();
  for (auto _ : state) {
    auto r = mine.Get();
    if (!r.ok() || r->status != 200) {
      state.SkipWithError(r.ok() ? "status != 200"
                                 : r.status().ToString().c_str());
      break;
    }
  }
  const double mine_cpu = core::ThreadCpuSeconds() - mine0;
  stop = true;
  for (std::thread& t : threads) t.join();
  const double server =
      core::ProcessCpuSeconds() - process0 - mine_cpu - client_cpu.load();
  mine.http.Close();
  stop_server();
  if (failed > 0) state.SkipWithError("a client's request failed");
  const double requests = static_cast<double>(state.iterations() + others);
  state.counters["server_cpu_us"] =
      benchmark::Counter(server * 1e6 / std::max(1.0, requests));
  state.counters["requests"] = benchmark::Counter(requests);
  state.SetItemsProcessed(static_cast<int64_t>(requests));  // all clients
}

// The calling thread's CPU mask, restored when destroyed; `split` when there
// are two CPUs or more to share between the server and its clients.
struct SavedAffinity {
  cpu_set_t mask;
  SavedAffinity() {
    CPU_ZERO(&mask);
    sched_getaffinity(0, sizeof mask, &mask);
  }
  ~SavedAffinity() { Restore(); }
  SavedAffinity(const SavedAffinity&) = delete;
  SavedAffinity& operator=(const SavedAffinity&) = delete;
  void Restore() const { sched_setaffinity(0, sizeof mask, &mask); }
  bool split() const { return CPU_COUNT(&mask) > 1; }
};

void BM_OrdersService(benchmark::State& state) {
  const bool hit = state.range(0) == 1;
  const bool pooled = state.range(1) == 1;
  absl::StatusOr<std::string> dataset = orders::BenchDataset(1.0);
  if (!dataset.ok()) {
    state.SkipWithError(dataset.status().ToString().c_str());
    return;
  }
  const SavedAffinity saved;
  if (saved.split())
    (void)orders::PinToLastCpus(1);  // the service's threads inherit
  orders::OrdersServiceOptions o;
  o.threads = pooled ? 16 : 0;
  o.nodelay = true;
  o.inventory_ms = 5;
  o.handler.dataset_path = *dataset;
  o.handler.index = true;
  o.handler.join = true;
  o.handler.keep_alive = true;
  o.handler.cache = hit;
  auto service = orders::OrdersService::Start(o);
  saved.Restore();
  if (!service.ok()) {
    state.SkipWithError(service.status().ToString().c_str());
    return;
  }
  DriveServer(state, (*service)->port(), saved.split(), hit,
              [&] { (*service)->Stop(); });
}

// A page of 20 orders as the service serialises it: the empty handlers'
// fixed answer, the size of a real one.
const std::string& PageBody() {
  static const std::string* body = [] {
    orders::Page page;
    page.customer_id = 42;
    page.orders = orders::ToDto(orders::MakeFullOrders(20));
    return new std::string(orders::SerializePage(page));
  }();
  return *body;
}

// The order service's HTTP front end alone (http::HttpFront, as the service
// sets it up: no keep-alive timeout, TCP_NODELAY) with an empty handler that
// answers every request with a fixed body the size of a page (SerializePage
// of 20 orders), loaded as BM_OrdersService loads the whole service: server
// pinned to the last CPU, 32 kept-alive clients on the first. pooled:1 is 16
// workers behind the poller, pooled:0 a thread per connection. Its
// server_cpu_us is the front end's CPU per request (read, parse, write, the
// poller's epoll and, pooled, the hand-off to a worker), no handler work.
void BM_HttpFront_EmptyHandler(benchmark::State& state) {
  const bool pooled = state.range(0) == 1;
  static const std::string* const body = &PageBody();
  const SavedAffinity saved;
  if (saved.split()) (void)orders::PinToLastCpus(1);  // the front end's threads
  auto front = HttpFront::Listen(
      {.threads = pooled ? 16 : 0,
       .keepalive_timeout_s = std::numeric_limits<double>::infinity(),
       .max_connections = 1 << 20,
       .tcp_nodelay = true});
  absl::Status serving = front.status();
  if (front.ok()) {
    serving = (*front)->Serve([](const HttpFrontRequest&) {
      return HttpFrontResponse{.status = 200, .body = *body};
    });
  }
  saved.Restore();
  if (!serving.ok()) {
    state.SkipWithError(serving.ToString().c_str());
    return;
  }
  DriveServer(state, (*front)->port(), saved.split(), false,
              [&] { (*front)->Stop(); });
  state.counters["body_bytes"] = static_cast<double>(body->size());
}

// perflab's own load generator (http::RunLoad, capstone --real's client)
// alone: a closed loop of 32 clients for 0.5 s an iteration, on the first
// CPU, against the empty-handler front end above in a child process on the
// last CPU, so this process's CPU is the generator's and nothing else's.
// generator_cpu_us is its CPU per request answered; requests, the count.
void BM_LoadGenerator_EmptyHandler(benchmark::State& state) {
  static const std::string* const body = &PageBody();
  const SavedAffinity saved;
  int ports[2], done[2];
  if (pipe(ports) != 0 || pipe(done) != 0) {
    state.SkipWithError("pipe() failed");
    return;
  }
  const pid_t server = fork();
  if (server == 0) {  // the child: serve until the parent closes `done`
    close(ports[0]);
    close(done[1]);
    if (saved.split()) (void)orders::PinToLastCpus(1);
    auto front = HttpFront::Listen(
        {.threads = 0,
         .keepalive_timeout_s = std::numeric_limits<double>::infinity(),
         .max_connections = 1 << 20,
         .tcp_nodelay = true});
    uint16_t port = 0;
    if (front.ok() && (*front)
                          ->Serve([](const HttpFrontRequest&) {
                            return HttpFrontResponse{.status = 200,
                                                     .body = *body};
                          })
                          .ok()) {
      port = (*front)->port();
    }
    (void)!write(ports[1], &port, sizeof port);
    char c;
    (void)!read(done[0], &c, 1);
    _exit(0);
  }
  close(ports[1]);
  close(done[0]);
  uint16_t port = 0;
  const bool got = server > 0 && read(ports[0], &port, sizeof port) ==
                                     static_cast<ssize_t>(sizeof port);
  close(ports[0]);
  auto stop_server = [&] {
    close(done[1]);
    if (server > 0) waitpid(server, nullptr, 0);
  };
  if (!got || port == 0) {
    stop_server();
    state.SkipWithError("the empty-handler server did not start");
    return;
  }
  if (saved.split())
    (void)orders::PinToFirstCpus(1);  // RunLoad's threads inherit it
  std::atomic<int64_t> next{0};
  LoadOptions load;
  load.port = port;
  load.connections = static_cast<int>(case_study::kClosedLoopClients);
  load.duration_s = 0.5;
  load.timeout_ms = 10'000;
  load.next_path = [&next] {
    return absl::StrCat("/customers/", 1 + next++ % kServiceCustomers,
                        "/orders");
  };
  double cpu = 0, answered = 0;
  int64_t errors = 0;
  for (auto _ : state) {
    const double cpu0 = core::ProcessCpuSeconds();
    absl::StatusOr<LoadResult> r = RunLoad(load);
    cpu += core::ProcessCpuSeconds() - cpu0;
    if (!r.ok()) {
      state.SkipWithError(r.status().ToString().c_str());
      break;
    }
    answered += static_cast<double>(r->ok);
    errors += r->errors();
  }
  saved.Restore();
  stop_server();
  if (errors > 0) state.SkipWithError("the load generator saw errors");
  state.counters["generator_cpu_us"] = cpu * 1e6 / std::max(1.0, answered);
  state.counters["requests"] = answered;
  state.SetItemsProcessed(static_cast<int64_t>(answered));
}

constexpr auto kTwo = ResponseWrites::kHeadersThenBody;

// Registered with their stable names (bench/README.md). Fixed iteration
// counts bound the slow cases (and the ctest smoke run): a stall costs ~40 ms,
// a TLS handshake ~1 ms. New connections are bounded too because each one
// leaves a TIME_WAIT socket for 60 s on this shared machine's loopback.
constexpr int64_t kStalls = 12;
constexpr int64_t kNewConnections = 2000;
constexpr int64_t kNewTlsConnections = 300;
void Register() {
  struct Case {
    const char* name;
    Setup setup;
    int64_t iterations;  // 0: Google Benchmark's min time decides
  };
  const Case cases[] = {
      {"BM_Http_NewConnection", {.keep_alive = false}, kNewConnections},
      {"BM_Http_KeepAlive", {}, 0},
      {"BM_Http_KeepAlive_TwoWrites_Nagle",
       {.server_nodelay = false, .writes = kTwo},
       kStalls},
      {"BM_Http_KeepAlive_TwoWrites_NoDelay", {.writes = kTwo}, 0},
      {"BM_Http_KeepAlive_Gathered_Nagle", {.server_nodelay = false}, 0},
      {"BM_Http_NewConnection_TwoWrites_Nagle",
       {.keep_alive = false, .server_nodelay = false, .writes = kTwo},
       kNewConnections},
      {"BM_Https_NewConnection",
       {.tls = true, .keep_alive = false},
       kNewTlsConnections},
      {"BM_Https_KeepAlive", {.tls = true}, 0},
      {"BM_Https_NewConnection_ClientNagle",
       {.tls = true, .keep_alive = false, .client_nodelay = false},
       kStalls},
  };
  for (const Case& c : cases) {
    auto* b = benchmark::RegisterBenchmark(c.name, BM_Request, c.setup);
    b->UseRealTime()->Unit(benchmark::kMicrosecond);
    if (c.iterations > 0) b->Iterations(c.iterations);
  }
  benchmark::RegisterBenchmark("BM_HttpFront_EmptyHandler",
                               BM_HttpFront_EmptyHandler)
      ->ArgName("pooled")
      ->Arg(1)
      ->Arg(0)
      ->UseRealTime()
      ->Unit(benchmark::kMicrosecond);
  benchmark::RegisterBenchmark("BM_LoadGenerator_EmptyHandler",
                               BM_LoadGenerator_EmptyHandler)
      ->Iterations(3)
      ->UseRealTime()
      ->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark("BM_OrdersService", BM_OrdersService)
      ->ArgNames({"hit", "pooled"})
      ->Args({1, 1})
      ->Args({1, 0})
      ->Args({0, 1})
      ->Args({0, 0})
      ->UseRealTime()
      ->Unit(benchmark::kMicrosecond);
}

}  // namespace
}  // namespace perflab::http

int main(int argc, char** argv) {
  perflab::http::Register();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
