// http::LoopbackAddress and ParseLoopbackUrl: loopback hosts (127.0.0.0/8,
// ::1) are accepted, every other address is refused.
#include "bench/http/loopback.h"

#include "gtest/gtest.h"

namespace perflab::http {
namespace {

TEST(LoopbackAddress, AcceptsOnlyLoopbackHosts) {
  EXPECT_FALSE(LoopbackAddress("10.0.0.1", 80).ok());
  EXPECT_FALSE(LoopbackAddress("0.0.0.0", 80).ok());
  EXPECT_FALSE(LoopbackAddress("::", 80).ok());
  EXPECT_TRUE(LoopbackAddress("127.1.2.3", 80).ok());
  EXPECT_TRUE(LoopbackAddress("::1", 80).ok());
}

TEST(ParseLoopbackUrl, AcceptsOnlyLoopbackUrls) {
  EXPECT_FALSE(ParseLoopbackUrl("http://192.168.1.1:80/").ok());
  EXPECT_TRUE(ParseLoopbackUrl("http://[::1]:8080/x").ok());
}

}  // namespace
}  // namespace perflab::http
