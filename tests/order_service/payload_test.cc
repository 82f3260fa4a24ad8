#include "bench/order_service/payload.h"

#include <rapidjson/document.h>

#include <set>
#include <string>

#include "gtest/gtest.h"

namespace perflab::orders {
namespace {

std::set<std::string> Keys(const rapidjson::Value& obj) {
  std::set<std::string> keys;
  for (const auto& m : obj.GetObject()) keys.insert(m.name.GetString());
  return keys;
}

TEST(PayloadTest, DtoCarriesExactlyWhatTheClientUses) {
  auto graph = MakeFullOrders(100);
  std::string body = SerializeOrders(ToDto(graph));
  rapidjson::Document doc;
  doc.Parse(body.c_str());
  ASSERT_TRUE(doc.IsArray());
  ASSERT_EQ(doc.Size(), 100u);
  const std::set<std::string> order_keys = {"id", "status", "total",
                                            "created_at", "items"};
  const std::set<std::string> item_keys = {"product_id", "product", "qty",
                                           "price"};
  for (const auto& o : doc.GetArray()) {
    EXPECT_EQ(Keys(o), order_keys);
    for (const auto& it : o["items"].GetArray()) EXPECT_EQ(Keys(it), item_keys);
  }
}

TEST(PayloadTest, ClientSeesTheSameOrdersInBothBodiesWithBothParsers) {
  auto graph = MakeFullOrders(100);
  std::vector<Order> dto = ToDto(graph);
  std::string graph_body = PadForSimdjson(SerializeGraph(graph));
  std::string dto_body = PadForSimdjson(SerializeOrders(dto));
  for (const std::string* body : {&graph_body, &dto_body}) {
    auto on_demand = ParseOrdersOnDemand(*body);
    auto dom = ParseOrdersDom(*body);
    ASSERT_TRUE(on_demand.ok()) << on_demand.status();
    ASSERT_TRUE(dom.ok()) << dom.status();
    EXPECT_EQ(*on_demand, dto);
    EXPECT_EQ(*dom, dto);
  }
  // An unpadded body is copied, not misread.
  auto unpadded = ParseOrdersOnDemand(std::string(SerializeOrders(dto)));
  ASSERT_TRUE(unpadded.ok());
  EXPECT_EQ(*unpadded, dto);
}

TEST(PayloadTest, GraphIsMuchLargerThanDtoAndHoldsTheInternalFields) {
  auto graph = MakeFullOrders(100);
  std::string g = SerializeGraph(graph), d = SerializeOrders(ToDto(graph));
  EXPECT_GT(g.size(), 4 * d.size());
  EXPECT_NE(g.find("internal_notes"), std::string::npos);
  EXPECT_EQ(d.find("internal_notes"), std::string::npos);
  EXPECT_EQ(d.find("billing_address"), std::string::npos);
}

TEST(PayloadTest, SameSeedSameOrders) {
  EXPECT_EQ(SerializeGraph(MakeFullOrders(10, 5)),
            SerializeGraph(MakeFullOrders(10, 5)));
  EXPECT_NE(SerializeGraph(MakeFullOrders(10, 5)),
            SerializeGraph(MakeFullOrders(10, 6)));
}

TEST(PayloadTest, EveryGzipBodyRoundTrips) {
  auto graph = MakeFullOrders(100);
  for (const std::string& body :
       {SerializeGraph(graph), SerializeOrders(ToDto(graph)), std::string()}) {
    for (int level : {1, 6, 9}) {
      auto z = Gzip(body, level);
      ASSERT_TRUE(z.ok()) << z.status();
      ASSERT_GE(z->size(), 18u);  // gzip header + trailer
      EXPECT_EQ(static_cast<unsigned char>((*z)[0]), 0x1f);
      EXPECT_EQ(static_cast<unsigned char>((*z)[1]), 0x8b);
      if (!body.empty()) {
        EXPECT_LT(z->size(), body.size());
      }
      auto back = Gunzip(*z);
      ASSERT_TRUE(back.ok()) << back.status();
      EXPECT_EQ(*back, body);
    }
  }
}

TEST(PayloadTest, GzipRejectsBadLevelAndGunzipCorruptData) {
  EXPECT_EQ(Gzip("x", 0).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(Gzip("x", 10).status().code(), absl::StatusCode::kInvalidArgument);
  auto z = Gzip(std::string(1000, 'a'), 6);
  ASSERT_TRUE(z.ok());
  EXPECT_FALSE(Gunzip(z->substr(0, z->size() / 2)).ok());
  EXPECT_FALSE(Gunzip("not gzip").ok());
}

TEST(PayloadTest, MalformedBodiesAreErrors) {
  EXPECT_FALSE(ParseOrdersDom("{\"id\":1}").ok());
  EXPECT_FALSE(ParseOrdersDom("[{\"id\":\"x\"}]").ok());
  EXPECT_FALSE(ParseOrdersOnDemand(PadForSimdjson("[{\"id\":\"x\"}]")).ok());
  EXPECT_FALSE(ParseOrdersOnDemand(PadForSimdjson("[1,")).ok());
}

}  // namespace
}  // namespace perflab::orders
