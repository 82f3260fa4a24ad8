// http-connections (pools chapter): sequential GETs over one HTTP client:
// new connections, keep-alive, the Nagle + delayed-ACK stall and TLS.
#include <cstdint>
#include <vector>

#include "absl/strings/str_cat.h"
#include "sim/http.h"
#include "sim/scenarios/internal/common.h"

namespace perflab::sim {
namespace {

// ---- http-connections: sequential GETs over one client.
Process Sequential(Simulation& sim, HttpClient& http, int64_t calls,
                   Time server, Time& end) {
  for (int64_t i = 0; i < calls; ++i) co_await http.Call(server);
  end = sim.now();
}

absl::StatusOr<core::Document> RunHttp(const Params& p, uint64_t) {
  core::Document doc("HTTP connections: new, kept alive, and the Nagle stall");
  core::Table& t = doc.AddTable("rows", "Sequential GETs",
                                {{"protocol", "protocol"},
                                 {"connection", "connection"},
                                 {"throughput_per_s", "req/s", 0},
                                 {"ms_per_request", "ms per request", 3},
                                 {"connects", "new connections"},
                                 {"stalls", "delayed-ACK stalls"}});
  struct Variant {
    const char* name;
    bool keep_alive, nodelay;
  };
  const Variant variants[] = {{"new per call", false, false},
                              {"keep-alive", true, false},
                              {"keep-alive + TCP_NODELAY", true, true}};
  const int64_t calls = p.Integer("calls");
  const bool two_writes = p.Text("response_writes") == "2";
  // Requests per second by [tls][variant], and the stalled variant's ms.
  double per_s[2][3] = {{0, 0, 0}, {0, 0, 0}};
  double stalled_ms = 0;
  for (bool tls : {false, true}) {
    for (int vi = 0; vi < 3; ++vi) {
      const Variant& v = variants[vi];
      HttpOptions o;
      o.keep_alive = v.keep_alive;
      o.tcp_nodelay = v.nodelay;
      o.two_writes = p.Text("response_writes") == "2";
      o.tls = tls;
      o.call = MsToNs(p.Number("call_ms"));
      o.connect = MsToNs(p.Number("connect_ms"));
      o.tls_handshake = MsToNs(p.Number("tls_handshake_ms"));
      o.tls_per_call = MsToNs(p.Number("tls_per_call_ms"));
      o.delayed_ack = MsToNs(p.Number("delayed_ack_ms"));
      Simulation sim(BudgetFrom(p));
      HttpClient http(sim, o);
      Time end = 0;
      sim.Spawn(Sequential(sim, http, calls, 0, end));
      if (absl::Status s = sim.Run(kForever); !s.ok()) return s;
      const double rate = static_cast<double>(calls) / ToSec(end);
      const double ms = ToMs(end) / static_cast<double>(calls);
      per_s[tls ? 1 : 0][vi] = rate;
      if (!tls && vi == 1) stalled_ms = ms;
      t.Add({std::string(tls ? "HTTPS" : "HTTP"), std::string(v.name), rate, ms,
             http.stats().connects, http.stats().stalls});
    }
  }
  doc.Note(
      "A fresh connection starts in quick-ACK mode; on a reused one the "
      "server's second small write waits for an ACK the client delays.");
  // The case study's Java client kept connections alive with no Nagle stall
  // in its keep-alive figures (0.569 ms a call), so they stand beside the
  // TCP_NODELAY rows; its 43.7 ms stall beside the plain keep-alive row.
  namespace cs = case_study;
  std::vector<CaseStudyRow> rows = {
      {"HTTP, new connection per call (req/s)", cs::kHttpClosePerS,
       per_s[0][0]},
      {"HTTP, kept alive (req/s)", cs::kHttpKeepAlivePerS, per_s[0][2]},
      {"HTTPS, new connection per call (req/s)", cs::kHttpsClosePerS,
       per_s[1][0]},
      {"HTTPS, kept alive (req/s)", cs::kHttpsKeepAlivePerS, per_s[1][2]}};
  if (two_writes) {
    rows.push_back({"Nagle + delayed-ACK stall, ms per request",
                    cs::kNagleStallMs, stalled_ms});
  }
  AddCaseStudyTable(doc, rows);
  return doc;
}

}  // namespace

Scenario HttpConnectionsScenario() {
  return {
      "http-connections",
      "2,000 sequential GETs: new connections, keep-alive, Nagle stall, TLS",
      // Six variants of `calls` GETs, about 1e7 GETs a second: 1e7 calls
      // is seconds.
      {IntKey("calls", "2000", 1, 10000000, "sequential GETs per variant"),
       NumKey("call_ms", DefaultText(case_study::kHttpCallUs / 1e3), 0, 1e6,
              "warm round trip + handling (ms)"),
       NumKey("connect_ms", DefaultText(case_study::kHttpConnectUs / 1e3), 0,
              1e6, "TCP connect + accept (ms)"),
       NumKey("tls_handshake_ms",
              DefaultText(case_study::kTlsHandshakeUs / 1e3), 0, 1e6,
              "TLS handshake (ms)"),
       NumKey("tls_per_call_ms", DefaultText(case_study::kTlsPerCallUs / 1e3),
              0, 1e6, "TLS cost per call (ms)"),
       NumKey("delayed_ack_ms", DefaultText(case_study::kDelayedAckMs), 0, 1e6,
              "client delayed-ACK timer (ms)"),
       ChoiceKey("response_writes", "2", {"1", "2"},
                 "server writes per response (2 triggers Nagle)"),
       MaxPendingKey()},
      RunHttp};
}

const ScenarioRegistration kHttpConnections(HttpConnectionsScenario);

}  // namespace perflab::sim
