// bench_net: the cost of the case study's call to its inventory service, over
// real TCP on 127.0.0.1 with a server thread in this process (ephemeral port,
// started and stopped by each benchmark run). Times are wall-clock per request
// (UseRealTime): the client sleeps in the kernel while the server works.
//   BM_Http_NewConnection / BM_Http_KeepAlive       connect per request vs
//   reuse BM_Http_KeepAlive_TwoWrites_Nagle               headers and body as
//   two small
//       writes without TCP_NODELAY: the Nagle + delayed-ACK stall (~40 ms)
//   BM_Http_KeepAlive_TwoWrites_NoDelay             the same with TCP_NODELAY
//   BM_Http_KeepAlive_Gathered_Nagle                one gathered write, Nagle
//   on BM_Http_NewConnection_TwoWrites_Nagle           the stall hidden by
//   closing BM_Https_NewConnection / BM_Https_KeepAlive     full TLS handshake
//   vs reuse BM_Https_NewConnection_ClientNagle              the client without
//   TCP_NODELAY:
//       its request waits behind its own handshake Finished message (~40 ms)
#include <benchmark/benchmark.h>

#include <memory>

#include "bench/lab/net.h"
#include "bench/lab/tls.h"

namespace perflab::lab {
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
}

}  // namespace
}  // namespace perflab::lab

int main(int argc, char** argv) {
  perflab::lab::Register();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
