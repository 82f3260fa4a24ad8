// HTTP client connections: connect cost, keep-alive, the Nagle +
// delayed-ACK stall, and statistics resets.
#include "sim/http.h"

#include "gtest/gtest.h"
#include "sim/engine.h"

namespace perflab::sim {
namespace {

Process Caller(Simulation& sim, HttpClient& http, int calls, Time& end) {
  for (int i = 0; i < calls; ++i) co_await http.Call(0);
  end = sim.now();
}

Time SequentialCalls(HttpOptions o, HttpStats* stats) {
  Simulation sim;
  HttpClient http(sim, o);
  Time end = 0;
  sim.Spawn(Caller(sim, http, 2000, end));
  EXPECT_TRUE(sim.Run(kForever).ok());
  *stats = http.stats();
  return end;
}

TEST(HttpTest, KeepAliveSavesTheConnectAndNagleStallsUntilNoDelay) {
  HttpOptions close;
  close.keep_alive = false;
  HttpOptions keep = close;
  keep.keep_alive = true;
  keep.tcp_nodelay = true;
  HttpOptions nagle = keep;
  nagle.tcp_nodelay = false;
  HttpStats s_close, s_keep, s_nagle;
  const Time t_close = SequentialCalls(close, &s_close);
  const Time t_keep = SequentialCalls(keep, &s_keep);
  const Time t_nagle = SequentialCalls(nagle, &s_nagle);
  EXPECT_EQ(s_close.connects, 2000);
  EXPECT_EQ(s_keep.connects, 1);
  EXPECT_EQ(s_nagle.stalls, 1999);
  // 2,000 calls: 784 req/s with a connection each, 1,757 with keep-alive.
  EXPECT_NEAR(2000 / ToSec(t_close), 784, 2);
  EXPECT_NEAR(2000 / ToSec(t_keep), 1757, 3);
  EXPECT_GT(ToMs(t_nagle) / 2000, 40);
}

Process Call(HttpClient& http, Time server) { co_await http.Call(server); }

TEST(HttpTest, ResetStatsStartsCountingAgain) {
  Simulation sim;
  HttpClient http(sim, HttpOptions{});
  sim.Spawn(Call(http, kMs));
  ASSERT_TRUE(sim.Run(kSec).ok());
  EXPECT_EQ(http.stats().calls, 1);
  http.ResetStats();
  EXPECT_EQ(http.stats().calls, 0);
  EXPECT_EQ(http.stats().connects, 0);
}

}  // namespace
}  // namespace perflab::sim
