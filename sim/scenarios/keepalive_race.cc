// keepalive-race (pools chapter): a load balancer reuses idle kept-alive
// connections; the server closes connections idle longer than its own
// keep-alive timeout. A request sent into a connection whose close is already
// on its way is the load balancer's sporadic 502. The client knows of a close
// whose FIN reached it before it sends (it then opens a new connection); only
// a request that crosses the FIN on the wire (the close falls within one
// one-way delay either side of the send) fails. The client drops connections
// idle longer than its own idle timeout.
#include <vector>

#include "absl/strings/str_cat.h"
#include "sim/random.h"
#include "sim/scenarios/internal/common.h"

namespace perflab::sim {
namespace {

struct Pool {
  std::vector<Time> idle_since;  // a LIFO stack of idle connections
  int64_t requests = 0, stale = 0, opened = 0;
  int64_t seen_closed = 0;  // idle connections the client saw closed
};

struct Setup {
  Time server_timeout, client_timeout, one_way, request;
};

Process Request(Simulation& sim, Pool& pool, const Setup& s) {
  ++pool.requests;
  // Take the most recently used idle connection the client still trusts.
  while (!pool.idle_since.empty()) {
    const Time since = pool.idle_since.back();
    pool.idle_since.pop_back();
    if (sim.now() - since > s.client_timeout) continue;  // client closes it
    // `since` is when the response reached the client; the server went idle
    // one one-way delay earlier and closes server_timeout after that. Its
    // FIN reaches the client one one-way delay after the close.
    const Time close = since - s.one_way + s.server_timeout;
    if (close + s.one_way <= sim.now()) {
      ++pool.seen_closed;  // the FIN arrived first: the client knows
      continue;
    }
    // The request reaches the server at now + one_way: a close before that
    // means the request and the FIN crossed on the wire.
    if (close <= sim.now() + s.one_way) {
      ++pool.stale;  // 502: the load balancer reads EOF / RST
      co_return;
    }
    co_await sim.Delay(s.request);
    pool.idle_since.push_back(sim.now());
    co_return;
  }
  ++pool.opened;
  co_await sim.Delay(2 * s.one_way + s.request);  // connect, then the request
  pool.idle_since.push_back(sim.now());
}

Process Arrivals(Simulation& sim, Pool& pool, const Setup& s, Dist gap,
                 Rng& rng, Time end) {
  while (true) {
    co_await sim.Delay(SampleNs(gap, rng));
    if (sim.now() >= end) co_return;
    sim.Spawn(Request(sim, pool, s));
  }
}

absl::StatusOr<core::Document> Run(const Params& p, uint64_t seed) {
  core::Document doc(
      "Keep-alive race: server timeout against client idle timeout");
  const double client_ms = p.Number("client_idle_timeout_ms");
  doc.Set("client_idle_timeout_ms", "client (load balancer) idle timeout (ms)",
          client_ms, 0);
  core::Table& t =
      doc.AddTable("rows", "Server keep-alive timeouts",
                   {{"rate_per_s", "traffic (req/s)", 3},
                    {"server_keepalive_ms", "server keep-alive (ms)", 0},
                    {"requests", "requests"},
                    {"stale_sends", "sent into a closed connection (502)"},
                    {"stale_pct", "502 share (%)", 3},
                    {"new_connections", "new connections"},
                    {"safe", "server > client timeout + 2 one-way"}});
  const double one_way_ms = p.Number("one_way_ms");
  int64_t cs_requests = 0, cs_stale = 0;  // server 2 s, client 3 s, all rates
  for (double rate : p.Numbers("rates_per_s")) {
    for (double server_ms : p.Numbers("server_keepalive_ms")) {
      Simulation sim(BudgetFrom(p));
      Setup s{MsToNs(server_ms), MsToNs(client_ms),
              MsToNs(p.Number("one_way_ms")), MsToNs(p.Number("request_ms"))};
      Pool pool;
      // The same arrivals for every row, so rows differ only in the timeout.
      Rng rng(seed, absl::StrCat("arrivals/", rate));
      const Time end = SecToNs(p.Number("duration_s"));
      sim.Spawn(Arrivals(sim, pool, s, Dist::Exp(1e9 / rate), rng, end));
      if (absl::Status st = sim.Run(end + kSec); !st.ok()) return st;
      t.Add({rate, server_ms, pool.requests, pool.stale,
             pool.requests > 0 ? 100.0 * static_cast<double>(pool.stale) /
                                     static_cast<double>(pool.requests)
                               : 0.0,
             pool.opened, server_ms > client_ms + 2 * one_way_ms});
      // The case study's setting: server 2 s, client reuses after 3 s.
      if (server_ms == 2000 && client_ms == 3000) {
        cs_requests += pool.requests;
        cs_stale += pool.stale;
      }
    }
  }
  doc.Note(absl::StrCat(
      "Fix: make the server's keep-alive timeout longer than the client's "
      "idle timeout plus a round trip (2 x ",
      p.Text("one_way_ms"), " ms), so the client always closes first."));
  doc.Note(
      "A reuse fails only when the server's close and the request cross on "
      "the wire; a FIN that arrived before the send makes the client open a "
      "new connection instead. Real clients also lose races to FINs still in "
      "their socket buffers; that is not modelled.");
  if (cs_requests > 0) {
    // Per 100,000 requests, over every rate: the table's one decimal.
    AddCaseStudyTable(doc,
                      {{"502s per 100,000 requests, server 2 s, client 3 s",
                        case_study::kKeepaliveRace502Pct * 1000,
                        1e5 * static_cast<double>(cs_stale) /
                            static_cast<double>(cs_requests)}});
  }
  return doc;
}

// Every rate runs once per server timeout: about 5e6 requests a second here.
double Requests(const Params& p) {
  double rates = 0;
  for (double r : p.Numbers("rates_per_s")) rates += r;
  return rates * p.Number("duration_s") *
         static_cast<double>(p.Numbers("server_keepalive_ms").size());
}

}  // namespace

Scenario KeepaliveRaceScenario() {
  return {
      "keepalive-race",
      "load balancer reuse against the server's keep-alive timeout: the "
      "sporadic 502",
      {ListKey("rates_per_s", "0.2,1,5", 0, 1e6,
               "Poisson request rates (req/s)", LowerBound::kOpen),
       NumKey("client_idle_timeout_ms", "3000", 0, 1e9,
              "client drops connections idle longer than this (ms)",
              LowerBound::kOpen),
       ListKey("server_keepalive_ms", "1000,2000,2500,3000,4000,5000", 0, 1e9,
               "server keep-alive timeouts to try (ms)", LowerBound::kOpen),
       NumKey("one_way_ms", "0.5", 0, 1e6, "one-way network delay (ms)"),
       NumKey("request_ms", "10", 0, 1e6, "server time per request (ms)"),
       NumKey("duration_s", "3600", 0, 864000, "traffic duration (s)",
              LowerBound::kOpen),
       MaxPendingKey()},
      Run,
      {"sum(rates_per_s) x duration_s x count(server_keepalive_ms)", 3e7,
       "requests", Requests}};
}

const ScenarioRegistration kKeepaliveRace(KeepaliveRaceScenario);

}  // namespace perflab::sim
