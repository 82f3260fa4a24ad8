// The shape table: http-connections, usl, pool-starvation and client-pool print
// the case study's figure beside their own. The case-study column must hold the
// published figures (typed here from figures.md, so a wrong constant fails
// too), and perflab's column the scenario's own field.
#include <cmath>
#include <vector>

#include "gtest/gtest.h"
#include "tests/sim/doc_helpers.h"

namespace perflab::sim {
namespace {

using testing_helpers::Num;
using testing_helpers::Nums;
using testing_helpers::RunDoc;

TEST(ShapeTablesTest, HttpConnections) {
  core::Document doc = RunDoc("http-connections", {"calls=500"});
  // figures.md: HTTP 784 -> 1,757 req/s with keep-alive, HTTPS 167 -> 1,055,
  // ~43.7 ms per request for the Nagle + delayed-ACK stall.
  EXPECT_EQ(Nums(doc, "case_study", "case_study"),
            (std::vector<double>{784, 1757, 167, 1055, 43.7}));
  // Rows: HTTP new, keep-alive, keep-alive + TCP_NODELAY, then HTTPS.
  const std::vector<double> x = Nums(doc, "rows", "throughput_per_s");
  const std::vector<double> ms = Nums(doc, "rows", "ms_per_request");
  ASSERT_EQ(x.size(), 6u);
  EXPECT_EQ(Nums(doc, "case_study", "perflab"),
            (std::vector<double>{x[0], x[2], x[3], x[5], ms[1]}));
  // One write per response has no stall to compare.
  core::Document one =
      RunDoc("http-connections", {"calls=100", "response_writes=1"});
  EXPECT_EQ(Nums(one, "case_study", "case_study").size(), 4u);
}

TEST(ShapeTablesTest, Usl) {
  core::Document doc = RunDoc("usl", {"jobs=20"});
  // Peak at N = 22 with C(22) = 7.40; C(12) = 6.62; C(64) = 5.24.
  EXPECT_EQ(Nums(doc, "case_study", "case_study"),
            (std::vector<double>{22, 6.62, 7.40, 5.24}));
  const std::vector<double> n = Nums(doc, "rows", "n");
  const std::vector<double> c = Nums(doc, "rows", "capacity");
  std::vector<double> expected = {Num(doc, "simulated_peak_n")};
  for (double want : {12.0, 22.0, 64.0}) {
    for (size_t i = 0; i < n.size(); ++i) {
      if (n[i] == want) expected.push_back(c[i]);
    }
  }
  EXPECT_EQ(Nums(doc, "case_study", "perflab"), expected);
  // Another sigma is not the case study's example: no table.
  EXPECT_EQ(RunDoc("usl", {"jobs=5", "sigma=0.1"}).FindTable("case_study"),
            nullptr);
}

TEST(ShapeTablesTest, PoolStarvation) {
  core::Document doc =
      RunDoc("pool-starvation", {"rates_per_s=100,250", "duration_s=60"});
  // Fine at 100 req/s: L = 100 x 0.05 = 5 connections busy, no timeouts;
  // at 200 req/s and past it the pool serves 10 / 0.05 = 200 req/s.
  EXPECT_EQ(Nums(doc, "case_study", "case_study"),
            (std::vector<double>{5, 0, 200}));
  const std::vector<double> busy = Nums(doc, "rows", "utilisation");
  const std::vector<double> timeouts = Nums(doc, "rows", "timeouts");
  const std::vector<double> served = Nums(doc, "rows", "throughput_per_s");
  ASSERT_EQ(busy.size(), 2u);
  const std::vector<double> pl = Nums(doc, "case_study", "perflab");
  ASSERT_EQ(pl.size(), 3u);
  EXPECT_NEAR(pl[0], busy[0] * 10, 1e-9);
  EXPECT_EQ(pl[1], timeouts[0]);
  EXPECT_EQ(pl[2], served[1]);
  EXPECT_EQ(RunDoc("pool-starvation", {"pool=20", "rates_per_s=100"})
                .FindTable("case_study"),
            nullptr);
}

TEST(ShapeTablesTest, ClientPool) {
  core::Document doc = RunDoc("client-pool", {"rates_per_s=250,1000"});
  // 20 / 0.040 = 500 calls/s of 1,000 offered: half.
  EXPECT_EQ(Nums(doc, "case_study", "case_study"),
            (std::vector<double>{500, 0.5}));
  const std::vector<double> served = Nums(doc, "rows", "throughput_per_s");
  ASSERT_EQ(served.size(), 2u);
  EXPECT_EQ(Nums(doc, "case_study", "perflab"),
            (std::vector<double>{served[1], served[1] / 1000}));
  const std::vector<double> diff = Nums(doc, "case_study", "difference_pct");
  EXPECT_NEAR(diff[0], (served[1] - 500) / 500 * 100, 1e-9);
}

TEST(ShapeTablesTest, OrderServiceBaseline) {
  // figures.md, the capstone's baseline row: 86 RPS, p95 663.9 ms, p99
  // 922.8 ms, 4.3 cores, 81 queries per request; open-loop p99 133.1 ms.
  core::Document doc = RunDoc("order-service", {"duration_s=3"});
  EXPECT_EQ(Nums(doc, "case_study", "case_study"),
            (std::vector<double>{86, 663.9, 922.8, 4.3, 81}));
  EXPECT_EQ(Nums(doc, "case_study", "perflab"),
            (std::vector<double>{Num(doc, "rps"), Num(doc, "p95_ms"),
                                 Num(doc, "p99_ms"), Num(doc, "cpu_cores"),
                                 Num(doc, "queries_per_request")}));
  core::Document open = RunDoc("order-service", {"loop=open", "duration_s=3"});
  EXPECT_EQ(Nums(open, "case_study", "case_study"),
            (std::vector<double>{133.1}));
  EXPECT_EQ(Nums(open, "case_study", "perflab"),
            (std::vector<double>{Num(open, "p99_ms")}));
  // Another step's configuration is not the baseline: no row to compare.
  core::Document index = RunDoc("order-service", {"index=1", "duration_s=3"});
  EXPECT_EQ(index.FindTable("case_study"), nullptr);
}

}  // namespace
}  // namespace perflab::sim
