// The /stats reader on hand-written bodies: the service's own shape, extra
// members, and each way a body can fail (not JSON, not an object, a counter
// missing, a counter that is not a whole number >= 0), each one line.
#include "tools/capstone/service_stats.h"

#include <string>

#include "absl/strings/match.h"
#include "gtest/gtest.h"

namespace perflab::capstone {
namespace {

// One line naming /stats, with what is accepted.
void ExpectOneLineError(const absl::StatusOr<ServiceCounters>& c,
                        const std::string& says) {
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), absl::StatusCode::kInvalidArgument);
  const std::string message(c.status().message());
  EXPECT_TRUE(absl::StartsWith(message, "orders-service /stats: ")) << message;
  EXPECT_TRUE(absl::StrContains(message, says)) << message;
  EXPECT_TRUE(absl::StrContains(message, "accepted: ")) << message;
  EXPECT_EQ(message.find('\n'), std::string::npos) << message;
}

TEST(ServiceStats, ReadsTheFourCountersAndIgnoresTheRest) {
  // The shape `perflab orders-service` serves, written out by hand.
  auto c = ParseServiceStats(
      "{\"requests\":1200,\"pages\":1190,\"queries\":96390,"
      "\"cache_hits\":700,\"cache_misses\":490,\"inventory_calls\":490,"
      "\"inventory_connections\":4,\"db_timeouts\":0,\"not_found\":0,"
      "\"bad_requests\":0,\"errors\":0,\"arena_bytes\":0}");
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->requests, 1200);
  EXPECT_EQ(c->queries, 96390);
  EXPECT_EQ(c->cache_hits, 700);
  EXPECT_EQ(c->cache_misses, 490);
}

TEST(ServiceStats, MemberOrderAndWhitespaceDoNotMatter) {
  auto c = ParseServiceStats(
      "{ \"cache_misses\": 3,\n \"cache_hits\": 0, \"queries\": "
      "9007199254740993,"
      " \"requests\": 2 }");
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->requests, 2);
  // 2^53 + 1: read as an integer, not through a double.
  EXPECT_EQ(c->queries, 9007199254740993);
  EXPECT_EQ(c->cache_hits, 0);
  EXPECT_EQ(c->cache_misses, 3);
}

TEST(ServiceStats, AMissingCounterIsAnErrorNotZero) {
  ExpectOneLineError(ParseServiceStats("{\"requests\":10,\"queries\":810,"
                                       "\"cache_hits\":0}"),
                     "no \"cache_misses\"");
  ExpectOneLineError(ParseServiceStats("{}"), "no \"requests\"");
}

TEST(ServiceStats, ACounterThatIsNotAWholeNumberIsAnError) {
  ExpectOneLineError(ParseServiceStats("{\"requests\":\"10\",\"queries\":0,"
                                       "\"cache_hits\":0,\"cache_misses\":0}"),
                     "\"requests\" is a string");
  ExpectOneLineError(ParseServiceStats("{\"requests\":10,\"queries\":null,"
                                       "\"cache_hits\":0,\"cache_misses\":0}"),
                     "\"queries\" is null");
  ExpectOneLineError(ParseServiceStats("{\"requests\":10,\"queries\":1.5,"
                                       "\"cache_hits\":0,\"cache_misses\":0}"),
                     "\"queries\" is a number that is not a whole number >= 0");
  ExpectOneLineError(
      ParseServiceStats("{\"requests\":10,\"queries\":0,"
                        "\"cache_hits\":-1,\"cache_misses\":0}"),
      "\"cache_hits\" is a number that is not a whole number >= 0");
}

TEST(ServiceStats, TextThatIsNotJsonIsAnError) {
  ExpectOneLineError(ParseServiceStats("requests=10"), "not JSON (");
  ExpectOneLineError(ParseServiceStats(""), "not JSON (");
  // Cut short, as a truncated response would be.
  ExpectOneLineError(ParseServiceStats("{\"requests\":10,\"quer"),
                     "not JSON (");
  // A number past the largest double is refused, not asserted on.
  ExpectOneLineError(ParseServiceStats("{\"requests\":1e999}"), "not JSON (");
  ExpectOneLineError(ParseServiceStats("[1, 2, 3, 4]"), "not a JSON object");
}

}  // namespace
}  // namespace perflab::capstone
