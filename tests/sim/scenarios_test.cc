// Scenarios against the analytic models and the seed's exact figures.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "core/document.h"
#include "gtest/gtest.h"
#include "sim/scenarios/scenario.h"
#include "tests/sim/doc_helpers.h"

namespace perflab::sim {
namespace {

using testing_helpers::RunDoc;

double Field(const core::Document& doc, const std::string& key) {
  const core::Field* f = doc.FindField(key);
  EXPECT_NE(f, nullptr) << key;
  return f == nullptr ? NAN : core::AsDouble(f->value);
}

// The cell of `column` in every row of table `key` (tests/sim/doc_helpers.h).
std::vector<core::Value> Column(const core::Document& doc,
                                const std::string& key,
                                const std::string& column) {
  return testing_helpers::Cells(doc, key, column);
}
std::vector<double> Numbers(const core::Document& doc, const std::string& key,
                            const std::string& column) {
  std::vector<double> out;
  for (const auto& v : Column(doc, key, column))
    out.push_back(core::AsDouble(v));
  return out;
}

// A second value for a key would silently replace the first: refused, as
// sweep refuses it.
TEST(ScenarioParams, RefuseAKeyGivenTwice) {
  absl::StatusOr<core::Document> doc =
      RunScenario("mmc", {"servers=2", "servers=3"}, kDefaultSeed);
  ASSERT_FALSE(doc.ok());
  EXPECT_EQ(doc.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(doc.status().message().find("'servers' given twice"),
            std::string::npos)
      << doc.status();
  EXPECT_FALSE(RunScenario("mmc", {"servers=2", "servers=2"}, 1).ok());
}

// 81 statements of a 60 s round trip each cannot finish in a 1 s window: no
// latency was measured, so none is shown (a 0 ms p99 would claim the best).
TEST(OrderServiceScenarioTest, NoCompletedRequestShowsNoLatency) {
  core::Document doc = RunDoc("order-service", {"db_round_trip_ms=60000",
                                                "duration_s=1", "warmup_s=0"});
  EXPECT_EQ(Field(doc, "rps"), 0);
  for (const char* key : {"avg_ms", "p95_ms", "p99_ms"}) {
    const core::Field* f = doc.FindField(key);
    ASSERT_NE(f, nullptr) << key;
    EXPECT_TRUE(std::holds_alternative<std::monostate>(f->value)) << key;
  }
  EXPECT_TRUE(testing_helpers::AnyNoteHas(doc, "no request completed"));
  core::Document busy = RunDoc("order-service", {"duration_s=2"});
  EXPECT_GT(Field(busy, "p99_ms"), 0);
  EXPECT_FALSE(testing_helpers::AnyNoteHas(busy, "no request completed"));
}

TEST(MmcScenarioTest, UnstableQueueStillEndsAndSaysSo) {
  core::Document doc = RunDoc(
      "mmc", {"servers=1", "arrival_rate_per_s=1.2", "service_rate_per_s=1",
              "customers=20000", "warmup_customers=0"});
  const core::Field* f = doc.FindField("stability");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(std::get<std::string>(f->value), "unstable");
  EXPECT_EQ(doc.FindField("analytic_mean_wait_s"), nullptr);
  // Past saturation the server works flat out: throughput is its capacity.
  EXPECT_NEAR(Field(doc, "throughput_per_s"), 1.0, 0.03);
  EXPECT_NEAR(Field(doc, "utilisation"), 1.0, 0.001);
}

TEST(MmcScenarioTest, PendingBudgetStopsAnUnstableRun) {
  absl::StatusOr<core::Document> doc =
      RunScenario("mmc",
                  {"servers=1", "arrival_rate_per_s=3", "service_rate_per_s=1",
                   "customers=100000", "max_pending=1000"},
                  1);
  ASSERT_FALSE(doc.ok());
  // The keys asked for the breach: bad input, saying what is accepted.
  EXPECT_EQ(doc.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(doc.status().message().find("> max_pending 1000"),
            std::string::npos);
  // The queue is customers, not processes: they are what is counted.
  EXPECT_NE(doc.status().message().find(" waiting customers + "),
            std::string::npos)
      << doc.status().message();
  EXPECT_NE(
      doc.status().message().find("max_pending up to 100000000 (given 1000)"),
      std::string::npos)
      << doc.status().message();
}

TEST(CoordinatedOmissionTest, ExactSeedFigures) {
  core::Document doc = RunDoc("coordinated-omission", {});
  std::vector<core::Value> names = Column(doc, "clients", "name");
  ASSERT_EQ(names.size(), 3u);
  EXPECT_EQ(std::get<std::string>(names[0]), "closed-actual");
  EXPECT_EQ(std::get<std::string>(names[1]), "closed-intended");
  EXPECT_EQ(std::get<std::string>(names[2]), "open");
  EXPECT_EQ(Numbers(doc, "clients", "samples"),
            (std::vector<double>{5501, 6000, 6000}));
  const std::vector<double> p99 = Numbers(doc, "clients", "p99_ms");
  EXPECT_EQ(p99, (std::vector<double>{5.0, 4705.0, 4405.0}));
  EXPECT_EQ(Numbers(doc, "clients", "max_ms")[0], 5005.0);
  EXPECT_EQ(Field(doc, "never_issued"), 499);
  // HdrHistogram's expected-interval correction rebuilds the open model's
  // samples from the closed loop's (to the histogram's 3 digits).
  EXPECT_EQ(Field(doc, "closed_corrected_samples"), 6000);
  EXPECT_NEAR(Field(doc, "closed_corrected_p99_ms"), 4405, 4405 * 1e-3);
}

// A rate whose interval is longer than the run schedules no second request
// (1e-10/s: 1e10 s, past an int64 of ns, and the run never ended); one
// interval that fits (1/50 per s over 60 s: two requests) still runs.
TEST(CoordinatedOmissionTest, FewerThanOneRequestPerRunIsRefused) {
  for (const char* rate : {"rate_per_s=0.01", "rate_per_s=1e-10"}) {
    absl::StatusOr<core::Document> doc = RunScenario(
        "coordinated-omission",
        {rate, "duration_s=60", "freeze_start_s=0", "freeze_ms=0"}, 1);
    ASSERT_FALSE(doc.ok()) << rate;
    EXPECT_NE(doc.status().message().find("fewer than one request"),
              std::string::npos)
        << doc.status();
  }
  EXPECT_TRUE(RunScenario("coordinated-omission",
                          {"rate_per_s=0.02", "duration_s=60",
                           "freeze_start_s=0", "freeze_ms=0"},
                          1)
                  .ok());
}

// Each user is a live process with one event pending, and the budget counts
// both, and the writer's process and event and the meter's event: 999 users
// need 1,998 + 3 of a max_pending of 2,000 and are refused before any is
// spawned; 998 (1,999) run to the end within it.
TEST(LockContentionTest, UsersPastHalfTheBudgetAreRefusedAtOnce) {
  absl::StatusOr<core::Document> doc =
      RunScenario("lock-contention", {"users=999", "max_pending=2000"}, 1);
  ASSERT_FALSE(doc.ok());
  EXPECT_NE(
      doc.status().message().find("accepted 2 x users + 3 <= max_pending"),
      std::string::npos)
      << doc.status();
  doc = RunScenario("lock-contention",
                    {"users=998", "max_pending=2000", "duration_s=10"}, 1);
  EXPECT_TRUE(doc.ok()) << doc.status();
}

// A run that is not a whole number of intervals still sends its last slot:
// 4/s over 1.1 s is the slots at 0, 0.25, 0.5, 0.75 and 1.0 s, five, where
// 1.1 / 0.25 rounded down would give four.
TEST(CoordinatedOmissionTest, APartIntervalAtTheEndStillHasItsSlot) {
  core::Document doc = RunDoc(
      "coordinated-omission",
      {"rate_per_s=4", "duration_s=1.1", "freeze_start_s=0", "freeze_ms=0"});
  EXPECT_EQ(Field(doc, "target_requests"), 5);
  EXPECT_EQ(Numbers(doc, "clients", "samples"), (std::vector<double>{5, 5, 5}));
}

// The cache's warm-up lookups are bounded like its measured ones (1e9/s for
// 60 s would be 6e10 per row), and the lookups' span of virtual time must
// fit the clock: 2 x 1000 lookups at 1e-6/s span 2e9 s, past 1e9.
TEST(CacheTest, WarmUpAndSpanAreBounded) {
  absl::StatusOr<core::Document> doc =
      RunScenario("cache", {"rate_per_s=1e9", "warmup_s=60"}, 1);
  ASSERT_FALSE(doc.ok());
  EXPECT_NE(doc.status().message().find("6e+10 warm-up lookups"),
            std::string::npos)
      << doc.status();
  doc = RunScenario("cache", {"rate_per_s=1e-6", "warmup_s=0", "lookups=1000"},
                    1);
  ASSERT_FALSE(doc.ok());
  EXPECT_NE(doc.status().message().find("2e+09 s"), std::string::npos)
      << doc.status();
  // 1e9/s with a warm-up of 100 lookups runs.
  EXPECT_TRUE(
      RunScenario(
          "cache",
          {"rate_per_s=1e9", "warmup_s=1e-7", "lookups=1000", "sizes=100"}, 1)
          .ok());
}

// A time that must be above 0 is at least the clock's 1 ns: 1e-300 ms of
// work rounded to 0 ns and the users looped without time passing (no end),
// and a window of 1e-300 s divided the throughput by 0 ns (null in JSON).
TEST(ScenarioParams, PositiveTimesAreAtLeastOneNanosecond) {
  absl::StatusOr<core::Document> doc =
      RunScenario("lock-contention", {"work_ms=1e-300"}, 1);
  ASSERT_FALSE(doc.ok());
  EXPECT_NE(doc.status().message().find("accepted a number in [1e-06, "),
            std::string::npos)
      << doc.status();
  doc = RunScenario("client-pool", {"duration_s=1e-300"}, 1);
  ASSERT_FALSE(doc.ok());
  EXPECT_NE(doc.status().message().find("accepted a number in [1e-09, "),
            std::string::npos)
      << doc.status();
  // One ns exactly is accepted.
  EXPECT_TRUE(RunScenario("client-pool",
                          {"call_ms=1e-6", "duration_s=1", "rates_per_s=10"}, 1)
                  .ok());
}

TEST(CoordinatedOmissionTest, ShorterFreezeFollowsTheSameArithmetic) {
  // Latencies after a freeze F fall by (interval - service) per request for
  // the single connection, by the interval for the open model; p99 of 6,000
  // samples is the 61st largest.
  core::Document doc = RunDoc("coordinated-omission", {"freeze_ms=1500"});
  const std::vector<double> p99 = Numbers(doc, "clients", "p99_ms");
  const double top = 1500 + 5;
  EXPECT_EQ(p99[0], 5.0);
  EXPECT_EQ(p99[1], top - 60 * (10 - 5));
  EXPECT_EQ(p99[2], top - 60 * 10);
  EXPECT_EQ(Numbers(doc, "clients", "max_ms"),
            (std::vector<double>{top, top, top}));
}

struct PoolCase {
  std::string threads;
  double expected_per_s;
};

TEST(ThreadPoolTest, CappedRowsWithinThreePercentOfThreadsOverServiceTime) {
  for (const PoolCase& c :
       {PoolCase{"10", 200}, PoolCase{"50", 1000}, PoolCase{"200", 4000}}) {
    core::Document doc = RunDoc(
        "thread-pool", {"threads=" + c.threads, "warmup_s=3", "duration_s=12"});
    const double x = Field(doc, "throughput_per_s");
    EXPECT_NEAR(x, c.expected_per_s, 0.03 * c.expected_per_s) << c.threads;
    const double closed_loop_ms = 400 / x * 1e3;
    EXPECT_NEAR(Field(doc, "mean_ms"), closed_loop_ms, 0.03 * closed_loop_ms);
    EXPECT_NEAR(Field(doc, "l_sampled"), Field(doc, "l_little"),
                0.01 * Field(doc, "l_little"));
  }
}

TEST(ThreadPoolTest, VirtualThreadsAreLimitedByTheCpu) {
  core::Document doc =
      RunDoc("thread-pool", {"threads=virtual", "warmup_s=2", "duration_s=5"});
  const double ceiling = 12 / 0.002;  // cores / CPU per request
  EXPECT_NEAR(Field(doc, "throughput_per_s"), ceiling, 0.03 * ceiling);
  EXPECT_NEAR(Field(doc, "cpu_cores"), 12, 0.1);
  EXPECT_GT(Field(doc, "mean_ms"), 50);  // CPU queueing on top of the handler
}

TEST(ThreadPoolTest, DrawsExponentialThinkByDefault) {
  const Scenario* s = FindScenario("thread-pool");
  ASSERT_NE(s, nullptr);
  bool found = false;
  for (const KeySpec& k : s->keys) {
    if (k.name != "think") continue;
    found = true;
    EXPECT_EQ(k.fallback, "exp");
  }
  EXPECT_TRUE(found);
}

TEST(LittlesLawTest, EveryRowWithinOnePercent) {
  for (const char* arrivals : {"arrivals=constant", "arrivals=poisson"}) {
    core::Document doc =
        RunDoc("littles-law", {arrivals, "service=exp", "duration_s=30"});
    const std::vector<double> l = Numbers(doc, "rows", "l_sampled");
    const std::vector<double> lw = Numbers(doc, "rows", "lambda_w");
    const std::vector<double> err = Numbers(doc, "rows", "error_pct");
    ASSERT_EQ(l.size(), 12u);
    ASSERT_EQ(err.size(), 12u);
    double worst = 0;
    for (size_t i = 0; i < l.size(); ++i) {
      EXPECT_NEAR(l[i], lw[i], 0.01 * lw[i]) << arrivals << " row " << i;
      // The column is what its header says, from the row's own columns.
      EXPECT_NEAR(err[i], std::fabs(l[i] - lw[i]) / lw[i] * 100, 1e-9)
          << arrivals << " row " << i;
      worst = std::max(worst, err[i]);
    }
    EXPECT_GT(worst, 0) << arrivals << ": no row to check the scale on";
    EXPECT_EQ(Field(doc, "worst_error_pct"), worst) << arrivals;
  }
  core::Document doc =
      RunDoc("littles-law", {"rates_per_s=250", "service_ms=60"});
  EXPECT_EQ(Field(doc, "pool_minimum"), 15);
  EXPECT_EQ(Field(doc, "pool_with_headroom"), 20);
}

TEST(LockContentionTest, MovingTheUpdateOffThePathRoughlyDoublesThroughput) {
  core::Document doc = RunDoc("lock-contention", {"duration_s=60"});
  const std::vector<double> x = Numbers(doc, "rows", "throughput_per_s");
  const std::vector<double> p90 = Numbers(doc, "rows", "p90_ms");
  ASSERT_EQ(x.size(), 2u);
  EXPECT_NEAR(x[0], 1000.0 / 20, 0.05 * 50);  // capped by 1 / lock hold
  EXPECT_GT(x[1] / x[0], 1.8);
  EXPECT_LT(p90[1], p90[0]);
  const std::vector<double> l = Numbers(doc, "rows", "l_sampled");
  const std::vector<double> lw = Numbers(doc, "rows", "l_little");
  for (size_t i = 0; i < l.size(); ++i) EXPECT_NEAR(l[i], lw[i], 0.01 * lw[i]);
}

TEST(PoolStarvationTest, TimeoutsOnlyPastPoolOverHold) {
  core::Document doc = RunDoc("pool-starvation", {});
  const std::vector<double> rates = Numbers(doc, "rows", "offered_per_s");
  const std::vector<double> timeouts = Numbers(doc, "rows", "timeouts");
  const std::vector<double> pending = Numbers(doc, "rows", "max_pending");
  for (size_t i = 0; i < rates.size(); ++i) {
    if (rates[i] < 200) {
      EXPECT_EQ(timeouts[i], 0) << rates[i];
      EXPECT_LT(pending[i], 50) << rates[i];
    }
    if (rates[i] > 200) {
      EXPECT_GT(timeouts[i], 0) << rates[i];
      // First timeout only once the queue holds 30 s of work.
      const double first =
          core::AsDouble(Column(doc, "rows", "first_timeout_s")[i]);
      EXPECT_GT(first, 30);
    }
  }
}

TEST(ClientPoolTest, ThroughputCappedAtPoolOverCallTime) {
  core::Document doc =
      RunDoc("client-pool", {"rates_per_s=1000", "duration_s=30"});
  EXPECT_NEAR(Numbers(doc, "rows", "throughput_per_s")[0], 500, 5);
  EXPECT_GT(Numbers(doc, "rows", "timeouts")[0], 0);
}

TEST(UslTest, FitRecoversSigmaAndKappaAndThePeak) {
  for (const char* jitter : {"jitter_cv=0", "jitter_cv=0.05"}) {
    core::Document doc = RunDoc("usl", {jitter, "jobs=100"});
    EXPECT_LT(std::fabs(Field(doc, "sigma_error_pct")), 10) << jitter;
    EXPECT_LT(std::fabs(Field(doc, "kappa_error_pct")), 10) << jitter;
    EXPECT_NEAR(Field(doc, "simulated_peak_n"), Field(doc, "predicted_peak_n"),
                1.0);
  }
}

TEST(HockeyStickTest, SimulatedMeansFollowTheAnalyticCurve) {
  core::Document doc =
      RunDoc("hockey-stick", {"utilisations=0.3,0.5,0.7", "customers=200000"});
  const std::vector<double> err = Numbers(doc, "rows", "error_pct");
  for (double e : err) EXPECT_LT(std::fabs(e), 2);
  const std::vector<double> w = Numbers(doc, "rows", "sim_response_ms");
  EXPECT_LT(w[0], w[1]);
  EXPECT_LT(w[1], w[2]);
}

TEST(KeepaliveRaceTest, ZeroOnceTheServerOutlastsTheClient) {
  // A reuse fails only when it crosses the server's FIN on the wire, a
  // window of 2 one-way delays: 20 ms one way makes that visible at 0.2-1
  // req/s (~0.5 % of reuses after a 2 s idle gap), while a server timeout
  // past client + 2 x one-way (3,040 ms) never fails.
  core::Document doc =
      RunDoc("keepalive-race", {"duration_s=1800", "one_way_ms=20"});
  const std::vector<double> server =
      Numbers(doc, "rows", "server_keepalive_ms");
  const std::vector<double> stale = Numbers(doc, "rows", "stale_sends");
  double short_timeouts = 0;
  for (size_t i = 0; i < server.size(); ++i) {
    if (server[i] > 3040) {
      EXPECT_EQ(stale[i], 0) << server[i];
    } else if (server[i] < 3000) {
      short_timeouts += stale[i];
    }
  }
  EXPECT_GT(short_timeouts, 0);
}

TEST(LatencyMixtureTest, MeanSitsBetweenTheModesAndAveragedP99Understates) {
  core::Document doc = RunDoc("latency-mixture", {});
  EXPECT_GT(Field(doc, "mean_ms"), 1.5 * Field(doc, "p50_ms"));
  EXPECT_GT(Field(doc, "p99_ms"), 120);
  EXPECT_GT(Field(doc, "p999_ms"), 800);
  const std::vector<double> p99 = Numbers(doc, "instances", "p99_ms");
  ASSERT_EQ(p99.size(), 4u);
  EXPECT_LT(p99[2], 0.7 * p99[3]);  // average of p99s vs merged p99
}

TEST(HttpConnectionsTest, KeepAliveFasterAndNagleStallsUntilNoDelay) {
  core::Document doc = RunDoc("http-connections", {"calls=500"});
  const std::vector<double> x = Numbers(doc, "rows", "throughput_per_s");
  ASSERT_EQ(x.size(),
            6u);  // HTTP then HTTPS: new, keep-alive, keep-alive + nodelay
  for (int base : {0, 3}) {
    EXPECT_GT(x[base + 2], 2 * x[base]);  // reuse beats a connection per call
    EXPECT_LT(x[base + 1], x[base] / 5);  // the 40 ms stall is far worse
  }
  EXPECT_GT(Numbers(doc, "rows", "ms_per_request")[1], 40);
}

TEST(GcHeapTest, BiggerHeapFewerLongerPausesLessTotalPause) {
  core::Document doc = RunDoc("gc-heap", {"heaps_mib=256,768", "duration_s=5"});
  const std::vector<double> n = Numbers(doc, "rows", "collections");
  const std::vector<double> mean = Numbers(doc, "rows", "mean_pause_ms");
  const std::vector<double> total = Numbers(doc, "rows", "total_pause_ms");
  ASSERT_EQ(n.size(), 2u);
  EXPECT_GT(n[0], 8 * n[1]);
  EXPECT_LT(mean[0], mean[1]);
  EXPECT_GT(total[0], total[1]);
  const std::vector<double> l = Numbers(doc, "rows", "l_sampled");
  const std::vector<double> lw = Numbers(doc, "rows", "l_little");
  for (size_t i = 0; i < l.size(); ++i) EXPECT_NEAR(l[i], lw[i], 0.01 * lw[i]);
  EXPECT_FALSE(RunScenario("gc-heap", {"heaps_mib=200"}, 1).ok());
}

TEST(CacheScenarioTest, SkewRaisesTheHitRatio) {
  core::Document doc = RunDoc("cache", {"sizes=500", "lookups=50000"});
  const std::vector<double> hit = Numbers(doc, "rows", "hit_ratio");
  ASSERT_EQ(hit.size(), 3u);  // uniform, skewed, zipf
  EXPECT_NEAR(hit[0], 0.1, 0.01);
  EXPECT_GT(hit[1], 2 * hit[0]);
  EXPECT_GT(hit[2], hit[1]);
}

}  // namespace
}  // namespace perflab::sim
