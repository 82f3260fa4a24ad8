// HTTP client connections in virtual time: a client-side pool of at most
// `max_connections`, a new connection per call (TCP connect, optional TLS
// handshake) unless keep-alive reuses an idle one, and the Nagle +
// delayed-ACK stall: on a reused connection whose server writes a response
// in two small writes, the second write waits for the ACK of the first,
// which the client delays by ~40 ms, unless the server sets TCP_NODELAY.
// (A fresh connection starts in quick-ACK mode, so it does not stall.)
//
// Default costs are the case study's loopback figures (pools chapter): 2,000
// sequential GETs ran at 784 req/s with a new connection each and 1,757 with
// keep-alive (0.57 ms a call, 0.71 ms to connect); HTTPS ran at 167 and
// 1,055 req/s (a 4.3 ms handshake, 0.38 ms of TLS per call).
//
// Optionally the calls cost CPU on a Cpu (attributed to HTTP: a client and a
// server in the same process, as the case study's inventory stub), and the
// waits respect a Gc's stop-the-world pauses. Single-threaded, like the
// Simulation it belongs to.
#ifndef PERFLAB_SIM_HTTP_H_
#define PERFLAB_SIM_HTTP_H_

#include <cstdint>

#include "core/case_study.h"
#include "sim/cpu.h"
#include "sim/engine.h"
#include "sim/gc.h"
#include "sim/pooled_client.h"
#include "sim/resource.h"
#include "sim/task.h"

namespace perflab::sim {

struct HttpOptions {
  bool keep_alive = true;  // reuse idle connections (false: Connection: close)
  bool tcp_nodelay = false;  // server disables Nagle
  bool two_writes = true;    // server writes headers and body separately
  bool tls = false;          // HTTPS: a handshake per new connection
  // Round trip + request handling on a warm connection.
  Time call = case_study::kHttpCallUs * kUs;
  // TCP connect (and accept) for a new connection.
  Time connect = case_study::kHttpConnectUs * kUs;
  // TLS handshake for a new connection.
  Time tls_handshake = case_study::kTlsHandshakeUs * kUs;
  // Record encryption per call.
  Time tls_per_call = case_study::kTlsPerCallUs * kUs;
  // The client's delayed-ACK timer.
  Time delayed_ack = case_study::kDelayedAckMs * kMs;
  int64_t max_connections =
      case_study::kClientPoolConnections;       // client-side pool size
  Time acquire_timeout = Resource::kNoTimeout;  // wait for a pooled connection
  // CPU per call on the client's Cpu, if it has one (both ends' processing).
  Time call_cpu = 0;
  // Extra CPU of a new connection (socket set-up and tear-down, both ends).
  Time connect_cpu = 0;
};

struct HttpStats {
  int64_t calls = 0;
  int64_t connects = 0;  // new connections opened
  int64_t stalls = 0;    // calls that paid the delayed-ACK stall
  int64_t timeouts = 0;  // calls that got no connection in time
};

class HttpClient : public PooledClient<HttpOptions, HttpStats> {
 public:
  // `cpu` (optional) runs the calls' CPU; `gc` (optional) holds waits that
  // end during a pause until it is over.
  HttpClient(Simulation& sim, HttpOptions options, Cpu* cpu = nullptr,
             Gc* gc = nullptr)
      : PooledClient(sim, options, "http connections", options.max_connections,
                     cpu, gc) {}

  // One call whose server side takes `server_time`; false if no connection
  // could be had within the acquire timeout. Its CPU is a job of `thread`
  // (Cpu::Run).
  Task<bool> Call(Time server_time, uint64_t thread = 0);

 private:
  int64_t idle_ = 0;  // open connections not in use
};

}  // namespace perflab::sim

#endif  // PERFLAB_SIM_HTTP_H_
