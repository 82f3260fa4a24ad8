// How a server writes an answer: headers and body in one write, or as two
// small writes. The second shape is the case study's inventory stub, and
// without TCP_NODELAY it stalls on Nagle's algorithm and the delayed ACK: the
// body waits in Nagle's buffer until the client ACKs the headers, and the
// client delays that ACK (40 ms on Linux). Both servers take it: the
// benchmarks' LoopbackServer (net.h) and the front end of HttpServer and
// OrdersService (http_front.h). A plain value; thread-safe.
#ifndef PERFLAB_BENCH_HTTP_RESPONSE_WRITES_H_
#define PERFLAB_BENCH_HTTP_RESPONSE_WRITES_H_

namespace perflab::http {

enum class ResponseWrites {
  kGathered,         // headers and body in one write (one segment)
  kHeadersThenBody,  // two small writes, as the seed's stub server did
};

}  // namespace perflab::http

#endif  // PERFLAB_BENCH_HTTP_RESPONSE_WRITES_H_
