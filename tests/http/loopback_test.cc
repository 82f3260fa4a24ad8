// http::LoopbackAddress and ParseLoopbackUrl: loopback hosts (127.0.0.0/8,
// ::1) are accepted, every other address is refused.
#include "bench/http/loopback.h"

#include <string>

#include "absl/strings/str_cat.h"
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

// The path goes into the request line as written: CR LF would inject a
// header, a space would split the line.
TEST(ParseLoopbackUrl, RefusesControlBytesSpacesAndJunk) {
  for (const char* url :
       {"http://127.0.0.1:80/a\r\nX-Injected: 1", "http://127.0.0.1:80/a b",
        "http://127.0.0.1:80/a\tb", "http://127.0.0.1:80/\x7f",
        "http://127.0.0.1:80/\xc3\xa9", "http://[::1]x/", "http://[::1]:/",
        "http://127.0.0.1:/", "http://127.0.0.1:+80/",
        "http://127.0.0.1:0080a/", "http://127.0.0.1:000080/"}) {
    absl::StatusOr<Url> u = ParseLoopbackUrl(url);
    EXPECT_FALSE(u.ok()) << url << " gave path " << (u.ok() ? u->path : "");
  }
  absl::StatusOr<Url> ok = ParseLoopbackUrl("http://127.0.0.1:8080/a?b=c%20d");
  ASSERT_TRUE(ok.ok()) << ok.status();
  EXPECT_EQ(ok->port, 8080);
  EXPECT_EQ(ok->path, "/a?b=c%20d");
  absl::StatusOr<Url> bare = ParseLoopbackUrl("http://[::1]");
  ASSERT_TRUE(bare.ok()) << bare.status();
  EXPECT_EQ(bare->port, 80);
  EXPECT_EQ(bare->path, "/");
}

// The port is decimal digits in [1, 65535]: SimpleAtoi would read "+80" as
// 80, strtol "0x50" as 80.
TEST(ParseLoopbackUrl, APortIsDecimalDigitsOnly) {
  for (const char* port : {"+80", "0x50", "1e3", "-1", "-0", "0", "65536",
                           "99999999999999999999"}) {
    const std::string url = absl::StrCat("http://127.0.0.1:", port, "/");
    absl::StatusOr<Url> u = ParseLoopbackUrl(url);
    ASSERT_FALSE(u.ok()) << url;
    EXPECT_EQ(u.status().message(),
              absl::StrCat("URL '", url,
                           "': port must be in [1, 65535]; accepted: "
                           "http://127.0.0.1:PORT/PATH (or [::1])"));
  }
  EXPECT_EQ(ParseLoopbackUrl("http://127.0.0.1:65535/")->port, 65535);
}

}  // namespace
}  // namespace perflab::http
