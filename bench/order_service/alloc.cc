#include "bench/order_service/alloc.h"

#include "absl/strings/str_cat.h"

namespace perflab::orders {
namespace {

std::pmr::string Copy(const std::string& s, std::pmr::memory_resource* mr) {
  return std::pmr::string(s.data(), s.size(), mr);
}

std::pmr::string Format(const Address& a, std::pmr::memory_resource* mr) {
  std::pmr::string out(mr);
  for (const std::string* part : {&a.name, &a.line1, &a.line2, &a.city,
                                  &a.region, &a.postcode, &a.country}) {
    out.append(*part);
    out.push_back('\n');
  }
  return out;
}

}  // namespace

PmrPage* BuildPage(const std::vector<FullOrder>& source,
                   std::pmr::memory_resource* mr) {
  std::pmr::polymorphic_allocator<> alloc(mr);
  auto* page = alloc.new_object<PmrPage>();
  for (const FullOrder& f : source) {
    auto* o = alloc.new_object<PmrOrder>();
    o->id = f.id;
    o->status = Copy(f.status, mr);
    o->customer_name = Copy(f.customer.name, mr);
    o->customer_email = Copy(f.customer.email, mr);
    o->billing = Format(f.billing, mr);
    o->shipping = Format(f.shipping, mr);
    o->internal_notes = Copy(f.internal_notes, mr);
    o->total = f.total;
    // No reserve: growing vectors is part of what the ORM-shaped code costs.
    for (const FullItem& it : f.items) {
      PmrItem item{it.product_id,
                   Copy(it.product, mr),
                   Copy(it.detail.sku, mr),
                   Copy(it.detail.description, mr),
                   Copy(it.detail.category, mr),
                   it.qty,
                   it.price};
      o->items.push_back(std::move(item));
    }
    for (const AuditEntry& a : f.audit) {
      o->audit.push_back(PmrAudit{a.at, Copy(a.actor, mr), Copy(a.action, mr)});
    }
    page->push_back(o);
  }
  return page;
}

void DestroyPage(PmrPage* page, std::pmr::memory_resource* mr) {
  std::pmr::polymorphic_allocator<> alloc(mr);
  for (PmrOrder* o : *page) alloc.delete_object(o);
  alloc.delete_object(page);
}

uint64_t Checksum(const PmrPage& page) {
  uint64_t h = 1469598103934665603ULL;
  auto mix = [&h](std::string_view s) {
    for (char c : s) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ULL;
    h = (h ^ 0xff) * 1099511628211ULL;
  };
  for (const PmrOrder* o : page) {
    mix(o->status);
    mix(o->customer_name);
    mix(o->billing);
    mix(o->shipping);
    mix(o->internal_notes);
    for (const PmrItem& it : o->items) {
      mix(it.product);
      mix(it.description);
      h += static_cast<uint64_t>(it.product_id) + static_cast<uint64_t>(it.qty);
    }
    for (const PmrAudit& a : o->audit) mix(a.action);
  }
  return h;
}

uint64_t MaterialisePage(const Page& page, std::pmr::memory_resource* mr) {
  std::vector<FullOrder> source;
  source.reserve(page.orders.size());
  for (const Order& o : page.orders) {
    FullOrder f;
    f.id = o.id;
    f.status = o.status;
    f.total = o.total;
    f.created_at = o.created_at;
    for (const Item& i : o.items) {
      FullItem fi;
      fi.product_id = i.product_id;
      fi.product = i.product;
      fi.qty = i.qty;
      fi.price = i.price;
      f.items.push_back(std::move(fi));
    }
    source.push_back(std::move(f));
  }
  PmrPage* graph = BuildPage(source, mr);
  const uint64_t sum = Checksum(*graph);
  DestroyPage(graph, mr);
  return sum;
}

}  // namespace perflab::orders
