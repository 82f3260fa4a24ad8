// perflab serve / load / reality through the CLI: bad input is one line and
// exit 2; serve stops by itself; a short reality run agrees with the
// simulation on the cases it runs.
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <string>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "bench/http/http_server.h"
#include "gtest/gtest.h"
#include "models/hdr_codec.h"
#include "rapidjson/document.h"
#include "tests/tools/cli_runner.h"

namespace perflab {
namespace {

using perflab::testing::ExpectOneLineExit2;

using testing::RunCli;

TEST(RealityCli, BadInputIsOneLineAndExit2) {
  ExpectOneLineExit2({"load", "http://10.0.0.1:80/", "--clients", "1"},
                     "not loopback");
  ExpectOneLineExit2({"serve", "--host", "192.168.0.1", "--max-seconds", "1"},
                     "not loopback");
  ExpectOneLineExit2(
      {"load", "http://127.0.0.1:9/", "--clients", "1", "--duration-s", "-1"},
      "-1");
  ExpectOneLineExit2(
      {"load", "http://127.0.0.1:9/", "--clients", "1", "--duration-s", "nan"},
      "nan");
  ExpectOneLineExit2({"serve", "--freeze-for-s", "inf"}, "inf");
  ExpectOneLineExit2({"load", "http://127.0.0.1:9/"}, "--rate");
  ExpectOneLineExit2({"reality", "--case", "nope"}, "accepted");
  // Refused before any case runs: nagle alone takes seconds.
  ExpectOneLineExit2(
      {"reality", "--case", "nagle", "--case", "inner-pool", "--case", "nagle"},
      "--case: 'nagle' given twice");
}

TEST(RealityCli, PortInUseIsExit2) {
  const testing::HeldPort held;
  ASSERT_NE(held.port(), 0);
  ExpectOneLineExit2(
      {"serve", "--port", std::to_string(held.port()), "--max-seconds", "1"},
      "in use");
}

TEST(RealityCli, ServeStopsByItself) {
  testing::CliResult r =
      RunCli({"serve", "--max-seconds", "0.2", "--format", "json"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(absl::StrContains(r.out, "\"stopped_by\":\"--max-seconds\""))
      << r.out;
}

// The sub-second case of `perflab reality --quick`, end to end (the timing
// cases are asserted in tests/http/ with load-tolerant bounds).
TEST(RealityCli, QuickKeepAliveRaceAgreesWithTheSimulation) {
  testing::CliResult r = RunCli({"reality", "--quick", "--no-wrk", "--case",
                                 "keepalive-race", "--format", "json"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(absl::StrContains(r.out, "\"rows\":2")) << r.out;
  EXPECT_TRUE(absl::StrContains(r.out, "\"within_goal\":2")) << r.out;
}

// `perflab load --format json` carries both latency histograms in
// HdrHistogram's V2 encoding: decoded, each holds one value per answer
// counted, and its percentiles are the ones printed beside it.
TEST(RealityCli, LoadJsonCarriesHdrHistograms) {
  auto server = http::HttpServer::Start({.threads = 2, .handler_ms = 1});
  ASSERT_TRUE(server.ok()) << server.status();
  testing::CliResult r =
      RunCli({"load", absl::StrCat("http://127.0.0.1:", (*server)->port(), "/"),
              "--clients", "2", "--duration-s", "0.2", "--format", "json"});
  (*server)->Stop();
  ASSERT_EQ(r.code, 0) << r.err;
  rapidjson::Document json;
  json.Parse(r.out.c_str());
  ASSERT_FALSE(json.HasParseError()) << r.out;
  const int64_t ok = json["ok"].GetInt64();
  ASSERT_GT(ok, 0);
  const rapidjson::Value& rows = json["percentiles"];
  ASSERT_TRUE(rows.IsArray());
  for (auto [key, column] : {std::pair{"latency_hdr", "latency_ms"},
                             std::pair{"from_send_hdr", "from_send_ms"}}) {
    ASSERT_TRUE(json[key].IsString()) << key;
    auto h = models::DecodeHdrBase64(json[key].GetString());
    ASSERT_TRUE(h.ok()) << key << ": " << h.status();
    EXPECT_EQ(h->Count(), ok) << key;
    for (const rapidjson::Value& row : rows.GetArray()) {
      const double q = row["percentile"].GetDouble();
      const double printed_ms = row[column].GetDouble();
      // Decoding keeps bucket counts, so percentiles agree to a bucket:
      // three significant digits, 0.1 % of the value.
      EXPECT_NEAR(static_cast<double>(h->Percentile(q)) / 1e6, printed_ms,
                  printed_ms * 1e-3 + 1e-6)
          << key << " p" << q;
    }
  }
}

// A listener that never answers: every request times out, no latency is
// measured, and the output says so instead of printing 0 ms.
TEST(RealityCli, LoadWithNoAnswerShowsNoLatency) {
  const testing::HeldPort silent;
  ASSERT_NE(silent.port(), 0);
  testing::CliResult r =
      RunCli({"load", absl::StrCat("http://127.0.0.1:", silent.port(), "/"),
              "--clients", "1", "--duration-s", "0.1", "--timeout-ms", "50",
              "--format", "json"});
  ASSERT_EQ(r.code, 0) << r.err;
  rapidjson::Document json;
  json.Parse(r.out.c_str());
  ASSERT_FALSE(json.HasParseError()) << r.out;
  EXPECT_EQ(json["ok"].GetInt64(), 0);
  EXPECT_FALSE(json.HasMember("mean_ms")) << r.out;
  for (const rapidjson::Value& row : json["percentiles"].GetArray()) {
    EXPECT_FALSE(row.HasMember("latency_ms")) << r.out;
    EXPECT_FALSE(row.HasMember("from_send_ms")) << r.out;
  }
  EXPECT_TRUE(absl::StrContains(r.out, "no request completed")) << r.out;
}

}  // namespace
}  // namespace perflab
