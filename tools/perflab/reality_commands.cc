// perflab serve | load | reality: a real HTTP server and load generator on
// loopback, and the side-by-side check of the simulator against them
// (tools/perflab/reality_cases.h). Bad input (a non-loopback address, a port
// in use, a negative or non-finite duration) is one line and exit 2.
#include <algorithm>
#include <iostream>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "bench/http/http_server.h"
#include "bench/http/load_client.h"
#include "bench/http/loopback.h"
#include "models/hdr_codec.h"
#include "tools/perflab/commands.h"
#include "tools/perflab/reality_cases.h"
#include "tools/perflab/serve_flags.h"

namespace perflab::cli {
namespace {

// --threads of perflab serve: the pool's size, stated by the help and
// checked by ParseThreadsFlag.
constexpr int kMaxServeThreads = 4096;
std::string ServeThreadsHelp() {
  return absl::StrCat("worker threads, an integer in [1, ", kMaxServeThreads,
                      "], or 'virtual'");
}

struct ServeFlags {
  http::HttpServerOptions server{.tcp_nodelay = false};
  int port = server.port;
  std::string threads = absl::StrCat(server.threads);
  double max_seconds = kDefaultMaxSeconds;
};

absl::StatusOr<core::Document> RunServe(ServeFlags f) {
  absl::StatusOr<int> threads = ParseThreadsFlag(f.threads, kMaxServeThreads);
  if (!threads.ok()) return threads.status();
  f.server.threads = *threads;
  f.server.port = static_cast<uint16_t>(f.port);
  // Before any server thread exists, so they all inherit the mask.
  StopSignals stop_signals;
  absl::StatusOr<std::unique_ptr<http::HttpServer>> server =
      http::HttpServer::Start(f.server);
  if (!server.ok()) return server.status();
  std::cerr << "perflab serve: listening on http://" << f.server.host << ":"
            << (*server)->port() << "/ for at most " << f.max_seconds
            << " s (SIGINT or SIGTERM stops it)\n";
  const int sig = stop_signals.Wait(f.max_seconds);
  (*server)->Stop();
  const http::HttpServerStats s = (*server)->stats();
  core::Document doc("perflab serve: what the server did");
  doc.Set("port", "port", static_cast<int64_t>((*server)->port()));
  doc.Set("stopped_by", "stopped by", StopSignals::StoppedBy(sig));
  doc.Set("responses", "responses", s.responses);
  doc.Set("connections", "connections accepted", s.connections);
  doc.Set("idle_closes", "closed by keep-alive timeout", s.idle_closes);
  doc.Set("errors", "errors", s.errors);
  doc.Set("refused", "refused (at the cap, every connection busy)", s.refused);
  doc.Set("evicted", "idle, closed at the cap for a new client", s.evicted);
  doc.Set("header_timeouts", "request not received in time (408)",
          s.header_timeouts);
  const double n = static_cast<double>(std::max<int64_t>(s.responses, 1));
  doc.Set("mean_thread_wait_ms", "mean wait for a worker thread (ms)",
          static_cast<double>(s.queue_wait_ns) / n / 1e6, 3);
  return doc;
}

// The highest --rate: one request a nanosecond, the load client's clock
// resolution; beyond it the interval between sends rounds to zero.
constexpr double kMaxRatePerS = 1e9;
// One request per 1,000 s: a slower pace is no load test, and the interval
// between sends must stay a representable duration.
constexpr double kMinRatePerS = 1e-3;

// The open loop's connections when --connections is not given (the closed
// loop has one per --clients).
constexpr int kDefaultOpenLoopConnections = 64;

struct LoadFlags {
  std::string url;
  http::LoadOptions load{.connections = 0};
  double rate = 0;
  int clients = 0;
  int connections = kDefaultOpenLoopConnections;
};

absl::StatusOr<core::Document> RunLoadCommand(LoadFlags f) {
  absl::StatusOr<http::Url> url = http::ParseLoopbackUrl(f.url);
  if (!url.ok()) return url.status();
  http::LoadOptions& o = f.load;
  o.host = url->host;
  o.port = url->port;
  o.path = url->path;
  if (f.rate <= 0 && f.clients <= 0) {
    return absl::InvalidArgumentError(
        "give --rate R (open loop) or --clients C (closed loop); accepted: "
        "one of them, or both for a paced closed loop");
  }
  o.rate_per_s = f.rate;
  o.open_loop = f.clients <= 0;
  o.connections = o.open_loop ? f.connections : f.clients;
  absl::StatusOr<http::LoadResult> r = http::RunLoad(o);
  if (!r.ok()) return r.status();
  core::Document doc(absl::StrCat(
      "perflab load: ",
      o.open_loop ? absl::StrCat("open loop at ", f.rate,
                                 " req/s, timed from the intended send")
                  : absl::StrCat("closed loop of ", f.clients,
                                 " clients, timed from the actual send")));
  doc.Set("throughput_per_s", "throughput (req/s)", r->throughput_per_s(), 1);
  doc.Set("ok", "answers (2xx) after warm-up", r->ok);
  doc.Set("sent", "requests sent", r->sent);
  if (o.open_loop) {
    doc.Set("unsent", "due within the run, never sent", r->unsent);
  }
  doc.Set("reuses", "sent on a reused connection", r->reuses);
  doc.Set("connections_opened", "connections opened", r->connections_opened);
  // No answer recorded: no latency was measured, and 0 ms would say the
  // opposite of what happened.
  const bool measured = r->latency_ns.Count() > 0;
  auto ms = [measured](double v) {
    return measured ? core::Value(v) : core::Value();
  };
  doc.Set("mean_ms", "mean latency (ms)", ms(r->latency_ns.Mean() / 1e6), 3);
  core::Table& errors = doc.AddTable("errors", "Errors by kind",
                                     {{"kind", "kind"}, {"count", "count"}});
  errors.Add({std::string("connect"), r->errors_connect});
  errors.Add({std::string("stale_connection"), r->errors_stale});
  errors.Add({std::string("timeout"), r->errors_timeout});
  errors.Add({std::string("other"), r->errors_other});
  core::Table& p = doc.AddTable("percentiles", "Latency percentiles",
                                {{"percentile", "percentile", 1},
                                 {"latency_ms", "latency (ms)", 3},
                                 {"from_send_ms", "from actual send (ms)", 3}});
  for (double q : {50.0, 90.0, 99.0, 99.9, 100.0}) {
    p.Add(
        {q, ms(static_cast<double>(r->latency_ns.Percentile(q)) / 1e6),
         ms(static_cast<double>(r->latency_from_send_ns.Percentile(q)) / 1e6)});
  }
  if (!measured) {
    doc.Note(
        "no request completed after warm-up: the latencies are not measured "
        "(shown as -)");
  }
  if (r->unsent > 0) {
    doc.Note(absl::StrCat(
        "the connections fell behind the schedule: ", r->unsent,
        " requests due within the run were never sent, and the latencies "
        "leave them out (raise --connections or lower --rate)"));
  }
  // The whole distributions, for HdrHistogram's own tools (its plotter,
  // HdrHistogramJS, the Java/Go/Python readers) and for merging runs.
  doc.Set("latency_hdr", "latency histogram (ns, HdrHistogram V2 base64)",
          models::EncodeHdrBase64(r->latency_ns));
  doc.Set("from_send_hdr",
          "from-actual-send histogram (ns, HdrHistogram V2 base64)",
          models::EncodeHdrBase64(r->latency_from_send_ns));
  doc.Note(
      "Percentiles are nearest-rank over models::Histogram buckets (3 "
      "significant digits); latency_hdr and from_send_hdr are the same "
      "histograms in HdrHistogram's compressed V2 encoding, values in ns.");
  return doc;
}

}  // namespace

void AddRealityCommands(CLI::App& root, Registry& registry) {
  CLI::App* serve = root.add_subcommand(
      "serve", "a real HTTP/1.1 server on loopback (thread cap, freeze, ...)");
  auto sf = std::make_shared<ServeFlags>();
  serve->add_option(
      "--host", sf->server.host,
      WithDefault("loopback address to bind", DefaultText(sf->server.host)));
  serve
      ->add_option("--port", sf->port,
                   WithDefault("port, 0 = any free", DefaultText(sf->port)))
      ->check(IntIn(0, 65535));
  serve->add_option("--threads", sf->threads,
                    WithDefault(ServeThreadsHelp(), DefaultText(sf->threads)));
  serve
      ->add_option("--handler-ms", sf->server.handler_ms,
                   "blocking time per request (ms)")
      ->check(Millis());
  serve->add_option("--cpu-ms", sf->server.cpu_ms, "CPU per request (ms)")
      ->check(Millis());
  serve
      ->add_option("--inner-pool", sf->server.inner_pool,
                   "permits of an inner section, 0 = none")
      ->check(IntIn(0, 100000));
  serve
      ->add_option("--inner-ms", sf->server.inner_ms,
                   "time holding a permit (ms)")
      ->check(Millis());
  serve
      ->add_option("--freeze-at-s", sf->server.freeze_at_s,
                   "freeze the whole server at this time (s)")
      ->check(Seconds());
  serve
      ->add_option("--freeze-for-s", sf->server.freeze_for_s,
                   "freeze length (s)")
      ->check(Seconds());
  serve
      ->add_option(
          "--keepalive-timeout-s", sf->server.keepalive_timeout_s,
          absl::StrCat("close idle connections after (s, default ",
                       DefaultText(sf->server.keepalive_timeout_s), ")"))
      ->check(Seconds(true));
  AddTwoWritesFlag(*serve, sf->server.writes);
  serve->add_flag("--nodelay", sf->server.tcp_nodelay, "set TCP_NODELAY");
  serve
      ->add_option("--max-seconds", sf->max_seconds,
                   absl::StrCat("stop after this long (s, default ",
                                DefaultText(sf->max_seconds), ")"))
      ->check(Seconds(true));
  AddLimitsHelp(*serve, sf->server.limits, sf->server.max_connections);
  registry.Produces(
      serve, [sf] { return RunServe(*sf); }, false);

  CLI::App* load = root.add_subcommand(
      "load", "a load generator on real sockets (open or closed loop)");
  auto lf = std::make_shared<LoadFlags>();
  load->add_option("url", lf->url, "http://127.0.0.1:PORT/PATH")->required();
  load->add_option("--rate", lf->rate,
                   "open loop: req/s from the intended send (with --clients: "
                   "each client's pace)")
      ->check(NumberBetween(kMinRatePerS, kMaxRatePerS));
  load->add_option("--clients", lf->clients, "closed loop: connections")
      ->check(IntIn(1, 1024));
  load->add_option(
          "--connections", lf->connections,
          WithDefault("open loop: connections", DefaultText(lf->connections)))
      ->check(IntIn(1, 1024));
  load->add_option("--duration-s", lf->load.duration_s, "sending time (s)")
      ->check(Seconds(true));
  load->add_option("--warmup-s", lf->load.warmup_s, "not recorded (s)")
      ->check(Seconds());
  load->add_option("--timeout-ms", lf->load.timeout_ms,
                   absl::StrCat("per request (ms, default ",
                                DefaultText(lf->load.timeout_ms), ")"))
      ->check(Millis(true));
  load->add_option("--idle-reuse-s", lf->load.idle_reuse_s,
                   "closed loop: idle gap before reusing a connection (s)")
      ->check(Seconds());
  load->add_option("--max-requests", lf->load.max_requests,
                   WithDefault("stop after this many",
                               DefaultText(lf->load.max_requests)))
      ->check(IntIn(1, 100000000));
  registry.Produces(load, [lf] { return RunLoadCommand(*lf); });

  CLI::App* reality = root.add_subcommand(
      "reality", "the simulator against a real server, client and wrk");
  auto rf = std::make_shared<RealityOptions>();
  reality->add_flag("--quick", rf->quick, "shorter runs (about 25 s)");
  reality->add_option("--case", rf->cases,
                      "run only these: thread-cap, coordinated-omission, "
                      "inner-pool, nagle, keepalive-race");
  auto no_wrk = std::make_shared<bool>(false);
  reality->add_flag("--no-wrk", *no_wrk, "skip the wrk witness");
  registry.Produces(reality, [rf, no_wrk] {
    RealityOptions o = *rf;
    o.wrk = !*no_wrk;
    return RunReality(o);
  });
}

}  // namespace perflab::cli
