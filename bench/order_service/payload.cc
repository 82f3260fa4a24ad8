#include "bench/order_service/payload.h"

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>
#include <zlib.h>

#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/random.h"
#include "simdjson.h"

namespace perflab::orders {
namespace {

using Writer = rapidjson::Writer<rapidjson::StringBuffer>;

constexpr const char* kCities[] = {"Springfield", "Riverside", "Fairview",
                                   "Greenville",  "Bristol",   "Salem"};
constexpr const char* kCategories[] = {"kitchen", "garden",  "office",
                                       "toys",    "outdoor", "electronics"};
constexpr const char* kActions[] = {"created", "payment_authorised", "picked",
                                    "shipped", "delivered"};

Address MakeAddress(core::SplitMix64& rng, const std::string& name) {
  return {name,
          absl::StrCat(1 + rng.Below(999), " Market Street"),
          absl::StrCat("Apartment ", 1 + rng.Below(80)),
          kCities[rng.Below(6)],
          "IL",
          absl::StrFormat("%05d", static_cast<int>(rng.Below(99999))),
          "US"};
}

void Key(Writer& w, const char* k) { w.Key(k); }
void Str(Writer& w, const char* k, const std::string& v) {
  w.Key(k);
  w.String(v.data(), static_cast<rapidjson::SizeType>(v.size()));
}

void WriteAddress(Writer& w, const char* key, const Address& a) {
  Key(w, key);
  w.StartObject();
  Str(w, "name", a.name);
  Str(w, "line1", a.line1);
  Str(w, "line2", a.line2);
  Str(w, "city", a.city);
  Str(w, "region", a.region);
  Str(w, "postcode", a.postcode);
  Str(w, "country", a.country);
  w.EndObject();
}

// The client's fields first, in the same order in both shapes.
void WriteOrderHead(Writer& w, int64_t id, const std::string& status,
                    double total, int64_t created_at) {
  Key(w, "id");
  w.Int64(id);
  Str(w, "status", status);
  Key(w, "total");
  w.Double(total);
  Key(w, "created_at");
  w.Int64(created_at);
}

void WriteItemHead(Writer& w, int64_t product_id, const std::string& product,
                   int qty, double price) {
  Key(w, "product_id");
  w.Int64(product_id);
  Str(w, "product", product);
  Key(w, "qty");
  w.Int(qty);
  Key(w, "price");
  w.Double(price);
}

void WriteOrders(Writer& w, const std::vector<Order>& orders) {
  w.StartArray();
  for (const Order& o : orders) {
    w.StartObject();
    WriteOrderHead(w, o.id, o.status, o.total, o.created_at);
    Key(w, "items");
    w.StartArray();
    for (const Item& it : o.items) {
      w.StartObject();
      WriteItemHead(w, it.product_id, it.product, it.qty, it.price);
      w.EndObject();
    }
    w.EndArray();
    w.EndObject();
  }
  w.EndArray();
}

std::string Take(rapidjson::StringBuffer& buf) {
  return std::string(buf.GetString(), buf.GetSize());
}

}  // namespace

std::vector<FullOrder> MakeFullOrders(int count, uint64_t seed) {
  core::SplitMix64 rng(seed);
  std::vector<FullOrder> out;
  out.reserve(static_cast<size_t>(count));
  for (int n = 0; n < count; ++n) {
    FullOrder o;
    o.id = 100000 + n;
    int64_t c = 1 + static_cast<int64_t>(rng.Below(5000));
    o.customer = {c, absl::StrCat("customer-", c),
                  absl::StrCat("customer-", c, "@example.com"),
                  absl::StrFormat("+1-555-%04d", static_cast<int>(c % 10000)),
                  rng.Below(4) == 0 ? "business" : "retail"};
    o.status = kOrderStatuses[rng.Below(4)];
    o.currency = "USD";
    o.created_at = 1'700'000'000 + static_cast<int64_t>(rng.Below(10'000'000));
    o.updated_at = o.created_at + static_cast<int64_t>(rng.Below(500'000));
    o.billing = MakeAddress(rng, o.customer.name);
    o.shipping = MakeAddress(rng, o.customer.name);
    double total = 0;
    for (int j = 0; j < 3; ++j) {
      FullItem it;
      it.id = o.id * 3 + j;
      it.product_id = 1 + static_cast<int64_t>(rng.Below(2000));
      it.product = absl::StrCat("product-", it.product_id);
      it.detail = {absl::StrFormat("SKU-%06d", static_cast<int>(it.product_id)),
                   absl::StrCat("Durable everyday ", kCategories[rng.Below(6)],
                                " item, model ", it.product_id,
                                ", ships in recyclable packaging"),
                   kCategories[rng.Below(6)],
                   static_cast<double>(1 + rng.Below(500)) / 100.0};
      it.qty = 1 + static_cast<int>(rng.Below(5));
      it.price = 5.0 + static_cast<double>(rng.Below(10000)) / 100.0;
      it.discount = static_cast<double>(rng.Below(500)) / 100.0;
      it.tax = static_cast<double>(rng.Below(900)) / 100.0;
      total += it.price * it.qty;
      o.items.push_back(std::move(it));
    }
    o.total = static_cast<double>(static_cast<int64_t>(total * 100)) / 100.0;
    o.internal_notes = absl::StrCat(
        "Customer called about delivery window; warehouse ", 1 + rng.Below(9),
        " to double-check packaging. Ticket #", 10000 + rng.Below(90000),
        ". Do not expose to the customer.");
    int64_t at = o.created_at;
    for (int a = 0; a < 4; ++a) {
      at += static_cast<int64_t>(rng.Below(100'000));
      o.audit.push_back({at, a == 0 ? "system" : "ops-user-17", kActions[a],
                         a == 0 ? "NEW" : kOrderStatuses[a - 1],
                         kOrderStatuses[a]});
    }
    out.push_back(std::move(o));
  }
  return out;
}

std::vector<Order> ToDto(const std::vector<FullOrder>& orders) {
  std::vector<Order> out;
  out.reserve(orders.size());
  for (const FullOrder& f : orders) {
    Order o{f.id, f.status, f.total, f.created_at, {}};
    o.items.reserve(f.items.size());
    for (const FullItem& it : f.items) {
      o.items.push_back({it.product_id, it.product, it.qty, it.price});
    }
    out.push_back(std::move(o));
  }
  return out;
}

std::string SerializeGraph(const std::vector<FullOrder>& orders) {
  rapidjson::StringBuffer buf;
  Writer w(buf);
  w.StartArray();
  for (const FullOrder& o : orders) {
    w.StartObject();
    WriteOrderHead(w, o.id, o.status, o.total, o.created_at);
    Key(w, "items");
    w.StartArray();
    for (const FullItem& it : o.items) {
      w.StartObject();
      WriteItemHead(w, it.product_id, it.product, it.qty, it.price);
      Key(w, "id");
      w.Int64(it.id);
      Key(w, "product_detail");
      w.StartObject();
      Str(w, "sku", it.detail.sku);
      Str(w, "description", it.detail.description);
      Str(w, "category", it.detail.category);
      Key(w, "weight_kg");
      w.Double(it.detail.weight_kg);
      w.EndObject();
      Key(w, "discount");
      w.Double(it.discount);
      Key(w, "tax");
      w.Double(it.tax);
      w.EndObject();
    }
    w.EndArray();
    Key(w, "customer");
    w.StartObject();
    Key(w, "id");
    w.Int64(o.customer.id);
    Str(w, "name", o.customer.name);
    Str(w, "email", o.customer.email);
    Str(w, "phone", o.customer.phone);
    Str(w, "segment", o.customer.segment);
    w.EndObject();
    Str(w, "currency", o.currency);
    Key(w, "updated_at");
    w.Int64(o.updated_at);
    WriteAddress(w, "billing_address", o.billing);
    WriteAddress(w, "shipping_address", o.shipping);
    Str(w, "internal_notes", o.internal_notes);
    Key(w, "audit");
    w.StartArray();
    for (const AuditEntry& a : o.audit) {
      w.StartObject();
      Key(w, "at");
      w.Int64(a.at);
      Str(w, "actor", a.actor);
      Str(w, "action", a.action);
      Str(w, "from", a.from_status);
      Str(w, "to", a.to_status);
      w.EndObject();
    }
    w.EndArray();
    w.EndObject();
  }
  w.EndArray();
  return Take(buf);
}

std::string SerializeOrders(const std::vector<Order>& orders) {
  rapidjson::StringBuffer buf;
  Writer w(buf);
  WriteOrders(w, orders);
  return Take(buf);
}

std::string SerializePage(const Page& page) {
  rapidjson::StringBuffer buf;
  Writer w(buf);
  w.StartObject();
  Key(w, "customer_id");
  w.Int64(page.customer_id);
  Key(w, "orders");
  WriteOrders(w, page.orders);
  w.EndObject();
  return Take(buf);
}

std::string PadForSimdjson(std::string body) {
  body.reserve(body.size() + simdjson::SIMDJSON_PADDING);
  return body;
}

absl::StatusOr<std::vector<Order>> ParseOrdersOnDemand(
    const std::string& body) {
  // One parser per thread: its buffers are reused across calls.
  thread_local simdjson::ondemand::parser parser;
  std::vector<Order> out;
  try {
    simdjson::padded_string copy;
    simdjson::padded_string_view view;
    if (body.capacity() >= body.size() + simdjson::SIMDJSON_PADDING) {
      view = simdjson::padded_string_view(body.data(), body.size(),
                                          body.capacity());
    } else {
      copy = simdjson::padded_string(body);
      view = copy;
    }
    simdjson::ondemand::document doc = parser.iterate(view);
    for (simdjson::ondemand::object obj : doc.get_array()) {
      Order o;
      // Fields the client does not use are skipped without being materialised.
      for (auto field : obj) {
        std::string_view key = field.unescaped_key();
        if (key == "id") {
          o.id = field.value().get_int64();
        } else if (key == "status") {
          o.status = std::string(std::string_view(field.value().get_string()));
        } else if (key == "total") {
          o.total = field.value().get_double();
        } else if (key == "created_at") {
          o.created_at = field.value().get_int64();
        } else if (key == "items") {
          for (simdjson::ondemand::object io : field.value().get_array()) {
            Item it;
            for (auto f : io) {
              std::string_view k = f.unescaped_key();
              if (k == "product_id") {
                it.product_id = f.value().get_int64();
              } else if (k == "product") {
                it.product =
                    std::string(std::string_view(f.value().get_string()));
              } else if (k == "qty") {
                it.qty = static_cast<int>(int64_t(f.value().get_int64()));
              } else if (k == "price") {
                it.price = f.value().get_double();
              }
            }
            o.items.push_back(std::move(it));
          }
        }
      }
      out.push_back(std::move(o));
    }
  } catch (const simdjson::simdjson_error& e) {
    return absl::DataLossError(absl::StrCat("on-demand parse: ", e.what()));
  }
  return out;
}

absl::StatusOr<std::vector<Order>> ParseOrdersDom(std::string_view body) {
  rapidjson::Document doc;
  // Full precision: the default fast path may be off by an ulp.
  doc.Parse<rapidjson::kParseFullPrecisionFlag>(body.data(), body.size());
  if (doc.HasParseError() || !doc.IsArray()) {
    return absl::DataLossError("DOM parse: not a JSON array of orders");
  }
  std::vector<Order> out;
  out.reserve(doc.Size());
  auto bad = [] {
    return absl::DataLossError("DOM parse: missing or mistyped field");
  };
  for (const auto& v : doc.GetArray()) {
    if (!v.IsObject()) return bad();
    auto id = v.FindMember("id"), status = v.FindMember("status"),
         total = v.FindMember("total"), created = v.FindMember("created_at"),
         items = v.FindMember("items");
    if (id == v.MemberEnd() || !id->value.IsInt64() ||
        status == v.MemberEnd() || !status->value.IsString() ||
        total == v.MemberEnd() || !total->value.IsNumber() ||
        created == v.MemberEnd() || !created->value.IsInt64() ||
        items == v.MemberEnd() || !items->value.IsArray()) {
      return bad();
    }
    Order o{id->value.GetInt64(),
            status->value.GetString(),
            total->value.GetDouble(),
            created->value.GetInt64(),
            {}};
    for (const auto& iv : items->value.GetArray()) {
      auto pid = iv.FindMember("product_id"), name = iv.FindMember("product"),
           qty = iv.FindMember("qty"), price = iv.FindMember("price");
      if (pid == iv.MemberEnd() || !pid->value.IsInt64() ||
          name == iv.MemberEnd() || !name->value.IsString() ||
          qty == iv.MemberEnd() || !qty->value.IsInt() ||
          price == iv.MemberEnd() || !price->value.IsNumber()) {
        return bad();
      }
      o.items.push_back({pid->value.GetInt64(), name->value.GetString(),
                         qty->value.GetInt(), price->value.GetDouble()});
    }
    out.push_back(std::move(o));
  }
  return out;
}

absl::StatusOr<std::string> Gzip(std::string_view data, int level) {
  if (level < 1 || level > 9) {
    return absl::InvalidArgumentError(
        absl::StrCat("gzip level: got ", level, "; accepted: 1..9"));
  }
  z_stream zs;
  std::memset(&zs, 0, sizeof zs);
  // windowBits 15 + 16: a gzip header and trailer instead of zlib's.
  if (deflateInit2(&zs, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) !=
      Z_OK) {
    return absl::InternalError("deflateInit2 failed");
  }
  std::string out(deflateBound(&zs, static_cast<uLong>(data.size())) + 32,
                  '\0');
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  zs.avail_in = static_cast<uInt>(data.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  int rc = deflate(&zs, Z_FINISH);
  out.resize(zs.total_out);
  deflateEnd(&zs);
  if (rc != Z_STREAM_END) return absl::InternalError("deflate did not finish");
  return out;
}

absl::StatusOr<std::string> Gunzip(std::string_view data) {
  z_stream zs;
  std::memset(&zs, 0, sizeof zs);
  if (inflateInit2(&zs, 15 + 16) != Z_OK) {
    return absl::InternalError("inflateInit2 failed");
  }
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  zs.avail_in = static_cast<uInt>(data.size());
  std::string out;
  char chunk[16384];
  int rc;
  do {
    zs.next_out = reinterpret_cast<Bytef*>(chunk);
    zs.avail_out = sizeof chunk;
    rc = inflate(&zs, Z_NO_FLUSH);
    if (rc != Z_OK && rc != Z_STREAM_END) break;
    out.append(chunk, sizeof chunk - zs.avail_out);
  } while (rc != Z_STREAM_END);
  inflateEnd(&zs);
  if (rc != Z_STREAM_END) {
    return absl::DataLossError("gunzip: corrupt or truncated gzip data");
  }
  return out;
}

}  // namespace perflab::orders
