// The MVA estimate of the capstone's steps on hand-made figures: the demands
// by the utilisation law worked by hand, the MVA RPS of the same network
// solved by hand (N = 1, where nothing queues; N = 2 through single-server
// stations; N <= c, where a c-server station queues nobody), the bound and
// knee, which gap each kind of full cap names, the pure waits of a miss, and
// the table and JSON the composer renders from them.
#include "tools/capstone/mva_estimate.h"

#include <cmath>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "rapidjson/document.h"

namespace perflab::capstone {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// 500 req/s through: a generator 25 % busy on 4 cores (1 core of work), 3 of
// 4 application cores busy (40 % of it, 1.2 cores, on statements), 3.2 of 4
// connections held, and a 75 % cache hit ratio in front of an 8 ms wait per
// miss. By hand, D = busy / X:
//   generator 0.25 x 4 / 500 = 2 ms, cores 3 / 500 = 6 ms,
//   pool (3.2 - 1.2) / 500 = 4 ms (the hold less the statements' CPU),
//   waits (1 - 0.75) x 8 = 2 ms; D = 14 ms.
StepFigures HandMade() {
  StepFigures f;
  f.rps = 500;
  f.generator_utilisation = 0.25;
  f.generator_cores = 4;
  f.cpu_cores = 3;
  f.cpu_share.database = 40;
  f.app_cores = 4;
  f.pool_busy = 3.2;
  f.pool = 4;
  f.cache_hit_ratio = 0.75;
  f.miss_wait_ms = 8;
  f.threads = 16;
  f.threads_busy = 9;
  f.thread_wait_ms = 0;
  return f;
}

TEST(MvaEstimate, DemandsByTheUtilisationLaw) {
  absl::StatusOr<models::SingleClassNetwork> net = StepNetwork(HandMade());
  ASSERT_TRUE(net.ok()) << net.status();
  EXPECT_DOUBLE_EQ(net->think_s, 0);
  ASSERT_EQ(net->stations.size(), 4u);
  const std::vector<models::Station>& s = net->stations;
  EXPECT_EQ(s[0].name, "generator");
  EXPECT_EQ(s[1].name, "cores");
  EXPECT_EQ(s[2].name, "pool");
  EXPECT_EQ(s[3].name, "waits");
  EXPECT_NEAR(s[0].demand_s, 0.002, 1e-15);
  EXPECT_NEAR(s[1].demand_s, 0.006, 1e-15);
  EXPECT_NEAR(s[2].demand_s, 0.004, 1e-15);
  EXPECT_NEAR(s[3].demand_s, 0.002, 1e-15);
  EXPECT_EQ(s[0].servers, 4);
  EXPECT_EQ(s[1].servers, 4);
  EXPECT_EQ(s[2].servers, 4);
  for (int k = 0; k < 3; ++k) {
    EXPECT_EQ(s[k].kind, models::StationKind::kQueue) << k;
  }
  EXPECT_EQ(s[3].kind, models::StationKind::kDelay);
}

TEST(MvaEstimate, OneClientQueuesNowhere) {
  // N = 1, Z = 0: X = 1 / D = 1 / 14 ms = 71.43 req/s.
  const StepMva m = EstimateStep(HandMade(), 1);
  ASSERT_TRUE(m.solved);
  EXPECT_NEAR(m.mva_rps, 1000.0 / 14, 1e-9);
  // Against the step's 500 req/s: 100 (71.43 / 500 - 1) = -85.71 %.
  EXPECT_NEAR(m.difference_pct, 100 * (1000.0 / 14 / 500 - 1), 1e-9);
}

TEST(MvaEstimate, BoundAndKnee) {
  // D / c: generator 0.5, cores 1.5, pool 1 ms: the cores are the
  // bottleneck, 1 / D_max = 666.67 req/s, N* = D / D_max = 14 / 1.5.
  const StepMva m = EstimateStep(HandMade(), 32);
  ASSERT_TRUE(m.solved);
  EXPECT_EQ(m.bottleneck, "cores");
  EXPECT_NEAR(m.bound_rps, 1000 / 1.5, 1e-9);
  EXPECT_NEAR(m.knee_clients, 14 / 1.5, 1e-12);
  EXPECT_LE(m.mva_rps, m.bound_rps);
  EXPECT_LE(m.mva_rps, 32 * 1000.0 / 14);
}

TEST(MvaEstimate, FewerClientsThanServersQueueNowhere) {
  // Every queueing station has 4 servers: up to 4 clients each find a free
  // one, so X(N) = N / D exactly (N = 3: 3 / 14 ms = 214.29 req/s).
  const StepMva m = EstimateStep(HandMade(), 3);
  ASSERT_TRUE(m.solved);
  EXPECT_NEAR(m.mva_rps, 3000.0 / 14, 1e-9);
}

TEST(MvaEstimate, TwoClientsThroughSingleServersByHand) {
  StepFigures f = HandMade();
  // One server each, the same demands: the generator's one core, fully
  // busy, is still 1 x 1 / 500 = 2 ms a request.
  f.generator_cores = 1;
  f.generator_utilisation = 1;
  f.app_cores = 1;
  f.pool = 1;
  // N = 1: R = D_k, X = 1 / 14 per ms, Q_k = D_k / 14: generator 2/14,
  // cores 6/14, pool 4/14. N = 2: R_k = D_k (1 + Q_k): 32/14, 120/14,
  // 72/14, waits 2 = 28/14; sum 252/14 = 18 ms, X = 2 / 18 ms = 111.11/s.
  const StepMva m = EstimateStep(f, 2);
  ASSERT_TRUE(m.solved);
  EXPECT_NEAR(m.network.stations[0].demand_s, 0.002, 1e-15);
  EXPECT_NEAR(m.mva_rps, 1000.0 / 9, 1e-9);
}

TEST(MvaEstimate, NoNetworkWithoutThroughputOrServers) {
  StepFigures f = HandMade();
  f.rps = 0;
  EXPECT_EQ(StepNetwork(f).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_FALSE(EstimateStep(f, 32).solved);
  f = HandMade();
  f.app_cores = 0;
  EXPECT_EQ(StepNetwork(f).status().code(), absl::StatusCode::kInvalidArgument);
  f = HandMade();
  f.generator_cores = 0;
  EXPECT_FALSE(EstimateStep(f, 32).solved);
}

TEST(MvaEstimate, GapsNameTheFullCap) {
  // 16 of 16 threads busy with a wait, nothing above 80 %: the thread cap.
  StepFigures f = HandMade();
  f.threads_busy = 16;
  f.thread_wait_ms = 4.5;
  EXPECT_EQ(GapOf(f), MvaGap::kThreadCap);
  EXPECT_THAT(Reason(f, MvaGap::kThreadCap),
              HasSubstr("16.0 of 16 threads busy, 4.50 ms of waiting"));
  EXPECT_THAT(Reason(f, MvaGap::kThreadCap), HasSubstr("pool, is 80 % busy"));
  // A full thread cap behind a saturated station is not what binds.
  f.cpu_cores = 3.9;
  EXPECT_EQ(GapOf(f), MvaGap::kStations);
  // Virtual threads (no cap), a full pool with a wait: the pool.
  f = HandMade();
  f.threads = 0;
  f.pool_busy = 3.9;
  f.pool_wait_ms = 2;
  EXPECT_EQ(GapOf(f), MvaGap::kPool);
  EXPECT_THAT(Reason(f, MvaGap::kPool), HasSubstr("3.90 of 4 connections"));
  // Nothing full: the stations' own.
  EXPECT_EQ(GapOf(HandMade()), MvaGap::kStations);
  EXPECT_EQ(Reason(HandMade(), MvaGap::kNone), "");
}

TEST(MvaEstimate, AgreementNeedsNoReason) {
  // Demands worked back from a throughput MVA itself gives: at N = 3 the
  // hand-made network runs 214.29 req/s; a step that measured that agrees.
  StepFigures f = HandMade();
  const double x = 3000.0 / 14;
  f.generator_utilisation = 0.002 * x / 4;
  f.cpu_cores = 0.006 * x;
  f.pool_busy = 0.004 * x + 0.4 * f.cpu_cores;  // 4 ms off a core
  f.rps = x;
  const StepMva m = EstimateStep(f, 3);
  ASSERT_TRUE(m.solved);
  EXPECT_NEAR(m.difference_pct, 0, 1e-9);
  EXPECT_EQ(m.gap, MvaGap::kNone);
  EXPECT_EQ(m.reason, "");
  // The same figures at N = 1 are 3 x too fast for MVA: a gap, named.
  const StepMva one = EstimateStep(f, 1);
  EXPECT_NEAR(one.difference_pct, 100 * (1.0 / 3 - 1), 1e-9);
  EXPECT_EQ(one.gap, MvaGap::kStations);
  EXPECT_NE(one.reason, "");
}

TEST(MvaEstimate, MissWaitIsTheStubPlusTheStallWhereItApplies) {
  sim::Calibration cal;
  cal.inventory_service_ms = 5;
  cal.nagle_stall_ms = 40;
  sim::OrderServiceConfig config;
  EXPECT_DOUBLE_EQ(MissWaitMs(cal, config), 5);  // Connection: close
  config.keep_alive = true;
  EXPECT_DOUBLE_EQ(MissWaitMs(cal, config), 45);  // reused, Nagle on
  config.tcp_nodelay = true;
  EXPECT_DOUBLE_EQ(MissWaitMs(cal, config), 5);
}

// Two steps: one whose cores are 99 % busy (D = 3.96 / 500 = 7.92 ms on 4,
// 1 / D_max = 505 req/s; the pool's (3.2 - 0.4 x 3.96) / 500 = 3.232 ms; 32
// clients are four times the knee D / D_max = 15.152 / 1.98 = 7.65, so MVA
// sits near the bound, within 15 % of 500), and one whose 16 threads are
// full with no station full (MVA over-estimates).
struct Rendered {
  std::vector<const Step*> steps;
  std::vector<StepFigures> figures;
};

Rendered TwoSteps() {
  Rendered r;
  r.steps = {&AllSteps()[0], &AllSteps()[1]};
  StepFigures agrees = HandMade();
  agrees.cpu_cores = 3.96;
  StepFigures capped = HandMade();
  capped.threads_busy = 16;
  capped.thread_wait_ms = 4.5;
  capped.rps = 100;  // far below the network's 32-client throughput
  capped.generator_utilisation = 0.002 * 100 / 4;
  capped.cpu_cores = 0.006 * 100;
  capped.pool_busy = 0.004 * 100 + 0.4 * capped.cpu_cores;
  r.figures = {agrees, capped};
  return r;
}

TEST(MvaEstimate, TableRowsAndTheNoteNamingTheGap) {
  const Rendered r = TwoSteps();
  core::Document doc("t");
  AddMvaTable(doc, r.steps, r.figures);
  const core::Table* t = doc.FindTable("mva");
  ASSERT_NE(t, nullptr);
  ASSERT_EQ(t->rows.size(), 2u);
  const std::vector<core::Value>& capped = t->rows[1];
  EXPECT_EQ(std::get<std::string>(capped[0]), "index");
  const StepMva m = EstimateStep(r.figures[1], 32);
  EXPECT_DOUBLE_EQ(core::AsDouble(capped[1]), m.mva_rps);
  EXPECT_DOUBLE_EQ(core::AsDouble(capped[2]), 100);
  EXPECT_EQ(std::get<std::string>(capped[4]), "cores");
  EXPECT_NEAR(core::AsDouble(capped[5]), 1000 / 1.5, 1e-9);
  // The demands as worked in HandMade (ms) and the servers.
  EXPECT_NEAR(core::AsDouble(capped[6]), 2, 1e-12);
  EXPECT_EQ(core::AsDouble(capped[7]), 4);
  EXPECT_NEAR(core::AsDouble(capped[8]), 6, 1e-12);
  EXPECT_NEAR(core::AsDouble(capped[10]), 4, 1e-12);
  EXPECT_NEAR(core::AsDouble(capped[12]), 2, 1e-12);
  // 32 clients through 14 ms of demand with 4-server stations run far
  // above 100 req/s (at least 3 / 14 ms, MVA being monotone in N).
  EXPECT_GT(m.mva_rps, 3000.0 / 14);
  EXPECT_LE(std::abs(core::AsDouble(t->rows[0][3])), kMvaAgreementPct);
  ASSERT_EQ(doc.notes().size(), 2u);
  EXPECT_THAT(doc.notes()[0], HasSubstr("not product-form"));
  EXPECT_THAT(doc.notes()[1],
              HasSubstr("differ by more than 15 % at: index ("));
  EXPECT_THAT(doc.notes()[1], Not(HasSubstr("baseline")));
  EXPECT_THAT(doc.notes()[1], HasSubstr("thread cap binds"));
}

TEST(MvaEstimate, JsonKeys) {
  const Rendered r = TwoSteps();
  core::Document doc("mva");
  doc.SetNested("mva", MvaRecords(r.steps, r.figures));
  const std::string json = core::ToJson(doc);
  rapidjson::Document d;
  d.Parse(json.c_str());
  ASSERT_FALSE(d.HasParseError());
  ASSERT_TRUE(d["mva"].IsArray());
  ASSERT_EQ(d["mva"].Size(), 2u);
  const rapidjson::Value& e = d["mva"][1];
  EXPECT_STREQ(e["name"].GetString(), "index");
  EXPECT_DOUBLE_EQ(e["rps"].GetDouble(), 100);
  EXPECT_STREQ(e["bottleneck"].GetString(), "cores");
  EXPECT_NEAR(e["total_demand_ms"].GetDouble(), 14, 1e-12);
  EXPECT_NEAR(e["knee_clients"].GetDouble(), 14 / 1.5, 1e-12);
  EXPECT_FALSE(e["agrees"].GetBool());
  EXPECT_THAT(e["reason"].GetString(), HasSubstr("thread cap"));
  for (const char* key : {"mva_rps", "difference_pct", "bound_rps"}) {
    EXPECT_TRUE(e[key].IsNumber()) << key;
  }
  ASSERT_EQ(e["stations"].Size(), 4u);
  const rapidjson::Value& waits = e["stations"][3];
  EXPECT_STREQ(waits["name"].GetString(), "waits");
  EXPECT_STREQ(waits["kind"].GetString(), "delay");
  EXPECT_EQ(waits["servers"].GetInt64(), 0);
  EXPECT_NEAR(waits["demand_ms"].GetDouble(), 2, 1e-12);
  EXPECT_EQ(e["stations"][1]["servers"].GetInt64(), 4);
}

TEST(MvaEstimate, ComposeRecordsTheGeneratorCoresAndTheMissWait) {
  ComposeOptions o;
  o.steps = *ParseSteps("keep-alive,tcp-nodelay");
  o.calibration.generator_cores = 3.6;  // the model runs llround: 4
  o.calibration.inventory_service_ms = 5;
  o.calibration.nagle_stall_ms = 40;
  o.repeats = 1;
  o.jobs = 1;
  StepRunner runner = [](const sim::Calibration&,
                         const sim::OrderServiceConfig&,
                         const sim::OrderServiceLoad&,
                         uint64_t) -> absl::StatusOr<sim::OrderServiceResult> {
    sim::OrderServiceResult r;
    r.rps = 100;
    r.app_cores = 4;
    return r;
  };
  absl::StatusOr<Composition> c = Compose(o, runner);
  ASSERT_TRUE(c.ok()) << c.status();
  ASSERT_EQ(c->figures.size(), 3u);
  for (const StepFigures& f : c->figures) EXPECT_EQ(f.generator_cores, 4);
  EXPECT_DOUBLE_EQ(c->figures[0].miss_wait_ms, 5);   // baseline: close
  EXPECT_DOUBLE_EQ(c->figures[1].miss_wait_ms, 45);  // keep-alive, Nagle
  EXPECT_DOUBLE_EQ(c->figures[2].miss_wait_ms, 5);   // TCP_NODELAY
}

}  // namespace
}  // namespace perflab::capstone
