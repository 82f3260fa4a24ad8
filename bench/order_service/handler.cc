#include "bench/order_service/handler.h"

#include <chrono>
#include <cmath>
#include <iostream>
#include <memory>
#include <memory_resource>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "bench/order_service/alloc.h"
#include "bench/order_service/payload.h"

namespace perflab::orders {
namespace {

constexpr std::string_view kPrefix = "/customers/";
constexpr std::string_view kSuffix = "/orders";
// Large enough for a 20-order graph, so the arena never goes upstream in the
// common case (it still may, for a bigger page: monotonic falls back).
constexpr size_t kArenaBytes = size_t{256} * 1024;

HandlerResponse Error(int status, std::string_view message) {
  return {status, absl::StrCat("{\"error\":\"", std::string(message), "\"}")};
}

// The embedded database behind the PageStore seam.
class SqliteStore : public PageStore {
 public:
  explicit SqliteStore(std::unique_ptr<OrderRepository> repo)
      : repo_(std::move(repo)) {}
  absl::StatusOr<Page> LoadPageNPlusOne(int64_t customer_id) override {
    return repo_->LoadPageNPlusOne(customer_id);
  }
  absl::StatusOr<Page> LoadPageJoin(int64_t customer_id) override {
    return repo_->LoadPageJoin(customer_id);
  }
  const QueryStats& stats() const override { return repo_->stats(); }
  void ResetStats() override { repo_->ResetStats(); }

 private:
  std::unique_ptr<OrderRepository> repo_;
};

}  // namespace

absl::StatusOr<int64_t> ParseOrdersTarget(std::string_view target) {
  auto bad = [&] {
    return absl::InvalidArgumentError(
        absl::StrCat("'", std::string(target.substr(0, 64)),
                     "': accepted /customers/{id}/orders with id 1..10^18"));
  };
  if (!target.starts_with(kPrefix) || !target.ends_with(kSuffix)) return bad();
  std::string_view id = target.substr(
      kPrefix.size(), target.size() - kPrefix.size() - kSuffix.size());
  if (target.size() < kPrefix.size() + kSuffix.size() || id.empty() ||
      id.size() > 18 || id[0] == '0') {
    return bad();
  }
  int64_t value = 0;
  for (char c : id) {
    if (c < '0' || c > '9') return bad();
    value = value * 10 + (c - '0');
  }
  return value;
}

OrdersHandler::OrdersHandler(HandlerOptions options)
    : options_(std::move(options)) {}
OrdersHandler::~OrdersHandler() = default;

absl::StatusOr<std::unique_ptr<OrdersHandler>> OrdersHandler::Create(
    const HandlerOptions& options) {
  if (options.db_pool < 1 || options.db_pool > 64) {
    return absl::InvalidArgumentError(absl::StrCat(
        "db_pool = ", options.db_pool, ": accepted an integer in [1, 64]"));
  }
  for (auto [name, v] :
       {std::pair{"db_acquire_timeout_ms", options.db_acquire_timeout_ms},
        {"inventory_timeout_ms", options.inventory_timeout_ms}}) {
    if (!std::isfinite(v) || v <= 0) {
      return absl::InvalidArgumentError(
          absl::StrCat(name, " = ", v, ": accepted a finite number > 0"));
    }
  }
  std::unique_ptr<OrdersHandler> h(new OrdersHandler(options));
  RepositoryOptions ro;
  ro.access = options.index ? OrdersAccess::kIndex : OrdersAccess::kScan;
  auto open = [&]() -> absl::StatusOr<std::unique_ptr<PageStore>> {
    if (options.open_store) return options.open_store();
    auto repo = OrderRepository::Open(options.dataset_path, ro);
    if (!repo.ok()) return repo.status();
    return std::make_unique<SqliteStore>(*std::move(repo));
  };
  for (int i = 0; i < options.db_pool; ++i) {
    absl::StatusOr<std::unique_ptr<PageStore>> repo = open();
    if (!repo.ok()) return repo.status();
    h->pool_.Add(repo->get());
    h->repos_.push_back(std::move(*repo));
  }
  if (options.cache) h->cache_ = std::make_unique<TtlLruCache<Page>>();
  return h;
}

PageStore* OrdersHandler::Acquire() {
  return pool_.Acquire(options_.db_acquire_timeout_ms);
}

void OrdersHandler::Release(PageStore* repo) { pool_.Release(repo); }

absl::Status OrdersHandler::CallInventory(int64_t customer_id) {
  std::unique_ptr<http::HttpClient> client;
  if (options_.keep_alive) {
    core::MutexLock lock(&clients_mu_);
    if (!clients_.empty()) {
      client = std::move(clients_.back());
      clients_.pop_back();
    }
  }
  if (client == nullptr) {
    http::ClientOptions co;
    co.keep_alive = options_.keep_alive;
    co.timeout_ms = options_.inventory_timeout_ms;
    client = std::make_unique<http::HttpClient>(options_.inventory_port, co);
  }
  ++counters_.inventory_calls;
  absl::StatusOr<http::HttpResponse> r =
      client->Get(absl::StrCat("/inventory?customer=", customer_id));
  if (!r.ok()) return r.status();
  if (r->status != 200) {
    return absl::UnavailableError(absl::StrCat("inventory ", r->status));
  }
  if (options_.keep_alive && !r->connection_close) {
    core::MutexLock lock(&clients_mu_);
    clients_.push_back(std::move(client));
  }
  return absl::OkStatus();
}

HandlerResponse OrdersHandler::Orders(int64_t customer_id) {
  if (cache_ != nullptr) {
    if (std::shared_ptr<const Page> hit = cache_->Get(customer_id)) {
      ++counters_.hits;
      ++counters_.pages;
      return {200, SerializePage(*hit)};
    }
    ++counters_.misses;
  }
  PageStore* repo = Acquire();
  if (repo == nullptr) {
    ++counters_.db_timeouts;
    ++counters_.errors;
    return Error(503, "database pool: no connection within the timeout");
  }
  if (repo->connection_lost()) {
    Release(repo);
    return Lost(absl::UnavailableError("the connection was lost earlier"));
  }
  repo->ResetStats();
  absl::StatusOr<Page> page = options_.join
                                  ? repo->LoadPageJoin(customer_id)
                                  : repo->LoadPageNPlusOne(customer_id);
  counters_.queries += repo->stats().statements;
  const bool lost = repo->connection_lost();
  Release(repo);
  if (!page.ok()) {
    if (lost) return Lost(page.status());
    ++counters_.errors;
    return Error(500, "database error");
  }
  if (page->orders.empty()) {
    ++counters_.not_found;
    return Error(404, "unknown customer");
  }
  if (absl::Status s = CallInventory(customer_id); !s.ok()) {
    ++counters_.errors;
    return Error(502, "inventory call failed");
  }
  if (options_.arena) {
    // One arena per request on this thread's buffer: thousands of small
    // allocations become pointer bumps and one release. The buffer is on
    // the heap, made by the thread's first such request: an array in the
    // thread_local itself would sit in the executable's static TLS block,
    // which the loader zeroes at start-up in every perflab process and for
    // every thread (256 KiB each), whether it serves orders or not.
    thread_local const std::unique_ptr<std::byte[]> buffer =
        std::make_unique_for_overwrite<std::byte[]>(kArenaBytes);
    std::pmr::monotonic_buffer_resource arena(buffer.get(), kArenaBytes);
    CountingResource counting(&arena);
    MaterialisePage(*page, &counting);
    counters_.arena_bytes += counting.bytes();
  } else {
    MaterialisePage(*page, std::pmr::new_delete_resource());
  }
  std::string body = SerializePage(*page);
  if (cache_ != nullptr) {
    cache_->Put(customer_id, std::make_shared<const Page>(*std::move(page)));
  }
  ++counters_.pages;
  return {200, std::move(body)};
}

HandlerResponse OrdersHandler::Lost(const absl::Status& why) {
  ++counters_.errors;
  // One line for the event, not one per refused page: a pool of N loses N
  // connections and a load generator sends thousands of requests after.
  if (counters_.db_lost.fetch_add(1) == 0) {
    const std::string line =
        absl::StrCat("order service: lost the database connection (",
                     why.message(), "); answering 503 from now on");
    if (options_.log) {
      options_.log(line);
    } else {
      std::cerr << line << std::endl;
    }
  }
  return Error(503, "database unavailable");
}

HandlerResponse OrdersHandler::Handle(std::string_view target,
                                      int64_t inventory_connections) {
  if (target == "/stats") return {200, StatsJson(inventory_connections)};
  ++counters_.requests;
  absl::StatusOr<int64_t> id = ParseOrdersTarget(target);
  if (!id.ok()) {
    ++counters_.bad_requests;
    return Error(400, "malformed path; accepted /customers/{id}/orders");
  }
  return Orders(*id);
}

HandlerStats OrdersHandler::stats() const {
  HandlerStats s;
  s.requests = counters_.requests;
  s.pages = counters_.pages;
  s.queries = counters_.queries;
  s.cache_hits = counters_.hits;
  s.cache_misses = counters_.misses;
  s.inventory_calls = counters_.inventory_calls;
  s.db_timeouts = counters_.db_timeouts;
  s.not_found = counters_.not_found;
  s.bad_requests = counters_.bad_requests;
  s.errors = counters_.errors;
  s.arena_bytes = counters_.arena_bytes;
  s.db_lost = counters_.db_lost;
  return s;
}

std::string OrdersHandler::StatsJson(int64_t inventory_connections) const {
  const HandlerStats s = stats();
  return absl::StrCat(
      "{\"requests\":", s.requests, ",\"pages\":", s.pages,
      ",\"queries\":", s.queries, ",\"cache_hits\":", s.cache_hits,
      ",\"cache_misses\":", s.cache_misses,
      ",\"inventory_calls\":", s.inventory_calls,
      ",\"inventory_connections\":", inventory_connections,
      ",\"db_timeouts\":", s.db_timeouts, ",\"not_found\":", s.not_found,
      ",\"bad_requests\":", s.bad_requests, ",\"errors\":", s.errors,
      ",\"arena_bytes\":", s.arena_bytes, ",\"db_lost\":", s.db_lost, "}");
}

}  // namespace perflab::orders
