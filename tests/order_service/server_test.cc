// The real order service (bench/order_service): every step flag changes
// what it claims, seen through /stats and socket counts; bad requests get
// 4xx and never crash it; it leaves no thread or socket behind.
#include "bench/order_service/server.h"

#include <dirent.h>

#include <chrono>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "bench/http/net.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/http/only_get_allowed.h"
#include "tests/order_service/test_db.h"

namespace perflab::orders {
namespace {

using ::testing::HasSubstr;
using testing::SmallDatabase;

int CountEntries(const char* dir) {
  int n = 0;
  DIR* d = ::opendir(dir);
  while (dirent* e = ::readdir(d)) n += e->d_name[0] != '.';
  ::closedir(d);
  return n;
}

std::unique_ptr<OrdersService> StartService(OrdersServiceOptions o) {
  o.handler.dataset_path = SmallDatabase();
  auto s = OrdersService::Start(o);
  EXPECT_TRUE(s.ok()) << s.status();
  return s.ok() ? std::move(*s) : nullptr;
}

// GETs `paths` in order on one kept-alive connection; returns the statuses.
std::vector<int> GetAll(const OrdersService& s,
                        const std::vector<std::string>& paths) {
  http::HttpClient client(s.port(), http::ClientOptions{.timeout_ms = 10'000});
  std::vector<int> statuses;
  for (const std::string& p : paths) {
    auto r = client.Get(p);
    statuses.push_back(r.ok() ? r->status : -1);
  }
  return statuses;
}

std::vector<std::string> Pages(std::initializer_list<int> ids) {
  std::vector<std::string> out;
  for (int id : ids) out.push_back(absl::StrCat("/customers/", id, "/orders"));
  return out;
}

// 20 newest orders of 3 lines each: 1 head + 20 item queries + 60 product
// lookups = 81 statements by N+1; one by the join.
TEST(OrdersService, JoinIssuesOneStatementWhereNPlusOneIssues81) {
  for (bool join : {false, true}) {
    auto s = StartService(
        {.inventory_ms = 0, .handler = {.dataset_path = "", .join = join}});
    ASSERT_NE(s, nullptr);
    EXPECT_THAT(GetAll(*s, Pages({3, 7, 3})), ::testing::Each(200));
    const HandlerStats h = s->stats().handler;
    EXPECT_EQ(h.pages, 3);
    EXPECT_EQ(h.queries, join ? 3 : 3 * 81) << "join=" << join;
    EXPECT_EQ(h.inventory_calls, 3);
  }
}

TEST(OrdersService, ScanAndIndexServeTheSamePage) {
  std::string bodies[2];
  for (bool index : {false, true}) {
    auto s = StartService(
        {.inventory_ms = 0, .handler = {.dataset_path = "", .index = index}});
    ASSERT_NE(s, nullptr);
    http::HttpClient client(s->port(),
                            http::ClientOptions{.timeout_ms = 10'000});
    auto r = client.Get("/customers/42/orders");
    ASSERT_TRUE(r.ok()) << r.status();
    bodies[index] = r->body;
  }
  EXPECT_EQ(bodies[0], bodies[1]);
  EXPECT_THAT(bodies[0], HasSubstr("\"customer_id\":42"));
}

TEST(OrdersService, CacheHitSkipsDatabaseAndInventory) {
  auto s = StartService(
      {.inventory_ms = 0,
       .handler = {.dataset_path = "", .join = true, .cache = true}});
  ASSERT_NE(s, nullptr);
  EXPECT_THAT(GetAll(*s, Pages({5, 5, 5, 6})), ::testing::Each(200));
  const HandlerStats h = s->stats().handler;
  EXPECT_EQ(h.cache_misses, 2);  // 5 once, 6 once
  EXPECT_EQ(h.cache_hits, 2);
  EXPECT_EQ(h.queries, 2);  // one join per miss, none per hit
  EXPECT_EQ(h.inventory_calls, 2);
}

// The cache keeps the page, not its bytes (the case study caches its Page
// record and serialises it per response): a hit's body is the miss's body.
TEST(OrdersService, CacheHitServesTheSamePageAsTheMiss) {
  auto s = StartService(
      {.inventory_ms = 0,
       .handler = {.dataset_path = "", .join = true, .cache = true}});
  ASSERT_NE(s, nullptr);
  http::HttpClient client(s->port(), http::ClientOptions{.timeout_ms = 10'000});
  auto miss = client.Get("/customers/11/orders");
  auto hit = client.Get("/customers/11/orders");
  ASSERT_TRUE(miss.ok() && hit.ok());
  EXPECT_EQ(s->stats().handler.cache_hits, 1);
  EXPECT_FALSE(miss->body.empty());
  EXPECT_EQ(hit->body, miss->body);
}

TEST(OrdersService, KeepAliveReusesOneInventoryConnection) {
  for (bool keep_alive : {false, true}) {
    auto s = StartService(
        {.inventory_ms = 0,
         .handler = {
             .dataset_path = "", .join = true, .keep_alive = keep_alive}});
    ASSERT_NE(s, nullptr);
    EXPECT_THAT(GetAll(*s, Pages({1, 2, 3, 4, 5})), ::testing::Each(200));
    EXPECT_EQ(s->stats().inventory_connections, keep_alive ? 1 : 5);
  }
}

// Kept alive and without TCP_NODELAY, the stub's second small write waits
// for the client's delayed ACK (tens of ms on Linux, whose minimum delayed
// ACK is 40 ms); a lower bound only, never an upper one.
TEST(OrdersService, NagleStallsKeptAliveCallsWithoutNodelay) {
  auto s = StartService(
      {.nodelay = false,
       .inventory_ms = 0,
       .handler = {.dataset_path = "", .join = true, .keep_alive = true}});
  ASSERT_NE(s, nullptr);
  http::HttpClient client(s->port(), http::ClientOptions{.timeout_ms = 10'000});
  ASSERT_TRUE(client.Get("/customers/1/orders").ok());  // opens the stub link
  const auto start = std::chrono::steady_clock::now();
  for (int id = 2; id <= 6; ++id) {
    ASSERT_TRUE(client.Get(absl::StrCat("/customers/", id, "/orders")).ok());
  }
  const double ms = std::chrono::duration<double, std::milli>(
                        std::chrono::steady_clock::now() - start)
                        .count();
  EXPECT_GE(ms, 5 * 20.0);
}

TEST(OrdersService, ArenaServesTheSameBody) {
  std::string bodies[2];
  int64_t arena_bytes[2] = {0, 0};
  for (bool arena : {false, true}) {
    auto s = StartService(
        {.inventory_ms = 0,
         .handler = {.dataset_path = "", .join = true, .arena = arena}});
    ASSERT_NE(s, nullptr);
    http::HttpClient client(s->port(),
                            http::ClientOptions{.timeout_ms = 10'000});
    auto r = client.Get("/customers/9/orders");
    ASSERT_TRUE(r.ok()) << r.status();
    bodies[arena] = r->body;
    arena_bytes[arena] = s->stats().handler.arena_bytes;
  }
  EXPECT_EQ(bodies[0], bodies[1]);
  EXPECT_EQ(arena_bytes[0], 0);
  EXPECT_GT(arena_bytes[1], 0);
}

TEST(OrdersService, BadRequestsGet4xxAndTheServiceKeepsServing) {
  auto s = StartService(
      {.inventory_ms = 0, .handler = {.dataset_path = "", .join = true}});
  ASSERT_NE(s, nullptr);
  // The small database has 100 customers: 101 is unknown.
  EXPECT_THAT(GetAll(*s, {"/customers/101/orders", "/customers/abc/orders",
                          "/nothing", "/customers/1/orders"}),
              ::testing::ElementsAre(404, 400, 400, 200));
  // A malformed request line ("GET /two words HTTP/1.1"): the front end
  // answers 400 itself; the handler never sees it.
  {
    http::HttpClient raw(s->port(), http::ClientOptions{.timeout_ms = 10'000});
    auto r = raw.Get("/two words");
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_EQ(r->status, 400);
  }
  EXPECT_EQ(s->stats().refused_requests, 1);
  EXPECT_THAT(GetAll(*s, Pages({2})), ::testing::ElementsAre(200));
  const HandlerStats h = s->stats().handler;
  EXPECT_EQ(h.not_found, 1);
  EXPECT_GE(h.bad_requests, 2);
  auto stats = GetAll(*s, {"/stats"});
  EXPECT_THAT(stats, ::testing::ElementsAre(200));
}

TEST(OrdersService, StatsReportsCounters) {
  auto s = StartService(
      {.inventory_ms = 0, .handler = {.dataset_path = "", .join = true}});
  ASSERT_NE(s, nullptr);
  http::HttpClient client(s->port(), http::ClientOptions{.timeout_ms = 10'000});
  ASSERT_TRUE(client.Get("/customers/1/orders").ok());
  auto r = client.Get("/stats");
  ASSERT_TRUE(r.ok());
  EXPECT_THAT(r->body, HasSubstr("\"queries\":1,"));
  EXPECT_THAT(r->body, HasSubstr("\"cache_hits\":0,"));
  EXPECT_THAT(r->body, HasSubstr("\"inventory_connections\":1,"));
}

TEST(OrdersService, RefusesNonLoopbackAndPortInUse) {
  auto far = OrdersService::Start(
      {.host = "10.0.0.1", .handler = {.dataset_path = SmallDatabase()}});
  ASSERT_FALSE(far.ok());
  EXPECT_EQ(far.status().code(), absl::StatusCode::kInvalidArgument);
  auto s = StartService({});
  ASSERT_NE(s, nullptr);
  auto twice = OrdersService::Start(
      {.port = s->port(), .handler = {.dataset_path = SmallDatabase()}});
  ASSERT_FALSE(twice.ok());
  EXPECT_THAT(twice.status().message(), HasSubstr("in use"));
  auto pool = OrdersService::Start(
      {.handler = {.dataset_path = SmallDatabase(), .db_pool = 0}});
  EXPECT_FALSE(pool.ok());
}

// The baseline is taken after one service has come and gone: ThreadSanitizer's
// runtime starts a thread of its own at the first pthread_create, and it
// stays. A leak per run still shows, since each later run would add to it.
TEST(OrdersService, LeavesNoSocketOrThreadBehind) {
  SmallDatabase();  // built before counting
  ASSERT_NE(StartService({.threads = 1, .handler = {.dataset_path = ""}}),
            nullptr);  // and stopped at once
  const int fds = CountEntries("/proc/self/fd");
  const int threads = CountEntries("/proc/self/task");
  for (int t : {0, 3}) {
    auto s =
        StartService({.threads = t,
                      .inventory_ms = 1,
                      .handler = {.dataset_path = "", .keep_alive = true}});
    ASSERT_NE(s, nullptr);
    http::HttpClient a(s->port(), http::ClientOptions{.timeout_ms = 10'000});
    http::HttpClient b(s->port(), http::ClientOptions{.timeout_ms = 10'000});
    EXPECT_TRUE(a.Get("/customers/1/orders").ok());
    EXPECT_TRUE(b.Get("/customers/2/orders").ok());
    // b stays open: Stop() must close the server's side itself.
    a.Close();
    s->Stop();
  }
  EXPECT_EQ(CountEntries("/proc/self/fd"), fds);
  EXPECT_EQ(CountEntries("/proc/self/task"), threads);
}

// Every method but GET is answered 405 with "Allow: GET" (a HEAD without a
// body), and the connection keeps serving: POST with a body, a method
// nobody defined, "get" (methods are case-sensitive), then HEAD.
TEST(OrdersService, OtherMethodsGet405WithAllowAndTheConnectionStays) {
  auto s = StartService(
      {.inventory_ms = 0, .handler = {.dataset_path = "", .join = true}});
  ASSERT_NE(s, nullptr);
  http::ExpectOnlyGetAllowed(s->port(), "/customers/1/orders");
}

}  // namespace
}  // namespace perflab::orders
