#include "tools/capstone/real_run.h"

#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <fstream>
#include <mutex>
#include <sstream>
#include <thread>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "bench/http/load_client.h"
#include "bench/http/net.h"
#include "bench/http/order_service/server.h"
#include "bench/http/wrk.h"
#include "bench/lab/customer_picker.h"
#include "bench/lab/dataset.h"
#include "core/cpu_time.h"
#include "models/cost.h"

namespace perflab::capstone {
namespace {

constexpr double kMemGib = 1;  // the case study's price basis

double Median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double UsdPerMillion(double rps, int64_t vcpu) {
  if (rps <= 0) return 0;
  auto c = models::CostPerMillion(rps, static_cast<double>(vcpu), kMemGib);
  return c.ok() ? c->usd_per_million : 0;
}

// One step's repeats, a sample per figure; the row is their medians.
struct Repeats {
  std::vector<double> rps, avg, p95, p99, open_p99, cpu, qpr, hit;

  // Fills `f`'s figures, priced at the case study's `vcpu` for the step.
  void MediansInto(RealFigures& f, int64_t vcpu) const {
    f.rps = Median(rps);
    f.rps_min = rps.empty() ? 0 : *std::min_element(rps.begin(), rps.end());
    f.rps_max = rps.empty() ? 0 : *std::max_element(rps.begin(), rps.end());
    f.avg_ms = Median(avg);
    f.p95_ms = Median(p95);
    f.p99_ms = Median(p99);
    f.open_p99_ms = Median(open_p99);
    f.cpu_cores = Median(cpu);
    f.queries_per_request = Median(qpr);
    f.cache_hit_ratio = Median(hit);
    f.usd_per_million = UsdPerMillion(f.rps, vcpu);
  }
};

std::vector<std::string> ServiceFlags(const sim::OrderServiceConfig& c) {
  std::vector<std::string> f;
  if (c.index) f.emplace_back("--index");
  if (c.join) f.emplace_back("--join");
  if (c.keep_alive) f.emplace_back("--keep-alive");
  if (c.tcp_nodelay) f.emplace_back("--nodelay");
  f.insert(f.end(), {"--db-pool", absl::StrCat(c.db_pool), "--threads",
                     c.virtual_threads ? std::string("virtual")
                                       : absl::StrCat(c.request_threads)});
  if (c.cache) f.emplace_back("--cache");
  if (c.heap_mib > case_study::kHeapMib) f.emplace_back("--arena");
  return f;
}

// The child `perflab orders-service`, stopped and reaped on destruction.
class Child {
 public:
  ~Child() { Stop(); }
  absl::Status Spawn(const std::string& binary,
                     const std::vector<std::string>& flags) {
    int err[2];
    if (::pipe2(err, O_CLOEXEC) != 0) return absl::InternalError("pipe");
    std::vector<std::string> args = {binary, "orders-service", "--port",
                                     "0",    "--max-seconds",  "3600"};
    args.insert(args.end(), flags.begin(), flags.end());
    std::vector<char*> argv;
    argv.reserve(args.size() + 1);
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_adddup2(&actions, err[1], 2);
    const int rc = ::posix_spawn(&pid_, binary.c_str(), &actions, nullptr,
                                 argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    ::close(err[1]);
    if (rc != 0) {
      ::close(err[0]);
      pid_ = -1;
      return absl::InvalidArgumentError(
          absl::StrCat("cannot start '", binary, "': ", std::strerror(rc)));
    }
    // Its first line says where it listens (60 s covers a cold start).
    std::string text;
    char buf[512];
    const auto deadline =
        std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (text.find('\n') == std::string::npos ||
           text.find("listening on") == std::string::npos) {
      pollfd p{err[0], POLLIN, 0};
      if (std::chrono::steady_clock::now() > deadline ||
          ::poll(&p, 1, 1000) < 0) {
        break;
      }
      if (p.revents == 0) continue;
      const ssize_t n = ::read(err[0], buf, sizeof buf);
      if (n <= 0) break;
      text.append(buf, static_cast<size_t>(n));
    }
    ::close(err[0]);
    const size_t at = text.find("http://127.0.0.1:");
    int port = 0;
    if (at == std::string::npos ||
        !absl::SimpleAtoi(
            text.substr(at + 17, text.find('/', at + 17) - at - 17), &port)) {
      return absl::InternalError(
          absl::StrCat("orders-service did not start: ", text));
    }
    port_ = static_cast<uint16_t>(port);
    return absl::OkStatus();
  }
  void Stop() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGTERM);
    for (int i = 0; i < 100; ++i) {  // up to 10 s, then SIGKILL
      if (::waitpid(pid_, nullptr, WNOHANG) == pid_) {
        pid_ = -1;
        return;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
    pid_ = -1;
  }
  uint16_t port() const { return port_; }
  // user + system CPU seconds of the child so far.
  double CpuSeconds() const {
    std::ifstream in(absl::StrCat("/proc/", pid_, "/stat"));
    std::string s((std::istreambuf_iterator<char>(in)), {});
    std::istringstream rest(s.substr(s.rfind(')') + 2));
    std::string field;
    double utime = 0, stime = 0;
    for (int i = 3; i <= 15 && rest >> field; ++i) {
      if (i == 14) utime = std::stod(field);
      if (i == 15) stime = std::stod(field);
    }
    return (utime + stime) / static_cast<double>(::sysconf(_SC_CLK_TCK));
  }

 private:
  pid_t pid_ = -1;
  uint16_t port_ = 0;
};

struct Counters {
  int64_t requests = 0, queries = 0, hits = 0, misses = 0;
};

int64_t Field(const std::string& body, const std::string& name) {
  const size_t at = body.find(absl::StrCat("\"", name, "\":"));
  if (at == std::string::npos) return 0;
  const size_t from = at + name.size() + 3;
  int64_t v = 0;
  (void)absl::SimpleAtoi(
      body.substr(from, body.find_first_of(",}", from) - from), &v);
  return v;
}

Counters ReadStats(uint16_t port) {
  http::HttpClient client(port, http::ClientOptions{.timeout_ms = 10'000});
  absl::StatusOr<http::HttpResponse> r = client.Get("/stats");
  if (!r.ok()) return {};
  return {Field(r->body, "requests"), Field(r->body, "queries"),
          Field(r->body, "cache_hits"), Field(r->body, "cache_misses")};
}

// Thread-safe customer paths: 1 + n*u^3, seeded.
struct Paths {
  std::mutex mu;
  lab::CustomerPicker picker;
  std::string Next() {
    std::unique_lock<std::mutex> lock(mu);
    return absl::StrCat("/customers/", picker.Next(), "/orders");
  }
};

std::string WrkScript(int64_t customers, uint64_t seed) {
  std::string path = absl::StrCat("/tmp/perflab_real_", ::getpid(), ".lua");
  std::ofstream out(path);
  out << "math.randomseed(" << seed << ")\n"
      << "request = function()\n"
      << "  local id = 1 + math.floor(" << customers
      << " * math.random() ^ 3)\n"
      << "  return wrk.format(\"GET\", \"/customers/\" .. id .. "
         "\"/orders\")\nend\n";
  return path;
}

}  // namespace

RealOptions QuickRealOptions(RealOptions o) {
  o.repeats = 1;
  o.warmup_s = 1;
  o.closed_s = 3;
  o.open_s = 3;
  o.wrk_s = 2;
  return o;
}

sim::Calibration CppService(sim::Calibration c,
                            const sim::OrderServiceConfig& config) {
  // The real service is C++: no garbage collector, so nothing allocated is
  // ever collected.
  c.alloc_per_request_mib = 0;
  const bool per_connection = config.virtual_threads;
  const double hit =
      per_connection ? c.cpp_hit_per_connection_us : c.cpp_hit_pooled_us;
  const double miss =
      per_connection ? c.cpp_miss_per_connection_us : c.cpp_miss_pooled_us;
  if (hit <= 0 || miss <= 0) {
    // Not measured (a calibration without bench_net's BM_OrdersService):
    // the front end is taken as the server's half of a kept-alive loopback
    // request, which bench_net times with both ends in one process.
    c.other_cpu_us = c.inventory_cpu_us / 2;
    return c;
  }
  // A hit is the front end, the lookup and the serialisation; a miss is the
  // front end, the inventory call, the join and the serialisation, plus
  // what no piece's benchmark sees (the object graph, thread hand-offs),
  // billed with the inventory call, which every miss makes once.
  const double response = c.serialize_us + c.gzip_us;
  c.other_cpu_us = std::max(0.0, hit - response - c.cache_hit_us);
  const double modelled =
      c.other_cpu_us + c.inventory_cpu_us + c.join_index_us + response;
  c.inventory_cpu_us += std::max(0.0, miss - modelled);
  return c;
}

absl::StatusOr<std::vector<RealFigures>> ComposeScaled(const RealOptions& o) {
  std::vector<RealFigures> out;
  // Like for like: the generator has one core here, as the service does.
  const int64_t customers = static_cast<int64_t>(std::llround(5000 * o.scale));
  for (sim::OrderServiceConfig config : CumulativeConfigs(o.steps)) {
    const int64_t priced_vcpu = config.cores;
    config.cores = 1;  // scaled: the service gets one core here
    sim::Calibration calibration = CppService(o.calibration, config);
    calibration.generator_cores = 1;
    Repeats rep;
    for (int r = 0; r < o.repeats; ++r) {
      sim::OrderServiceLoad closed{.clients = o.clients,
                                   .warmup_s = o.warmup_s,
                                   .duration_s = o.closed_s,
                                   .customers = customers};
      auto c = sim::RunOrderService(calibration, config, closed,
                                    o.seed + static_cast<uint64_t>(r));
      if (!c.ok()) return c.status();
      sim::OrderServiceLoad open = closed;
      open.open = true;
      open.rate_per_s = o.open_rate_per_s;
      open.duration_s = o.open_s;
      // As for real: the open loop follows the closed one in the same
      // service, so it starts on the cache the closed loop left.
      sim::StartOnClosedLoopsCache(closed, c->rps, open);
      auto p = sim::RunOrderService(calibration, config, open,
                                    o.seed + static_cast<uint64_t>(r));
      if (!p.ok()) return p.status();
      rep.rps.push_back(c->rps);
      rep.avg.push_back(c->avg_ms);
      rep.p95.push_back(c->p95_ms);
      rep.p99.push_back(c->p99_ms);
      rep.open_p99.push_back(p->p99_ms);
      rep.cpu.push_back(c->cpu_cores);
      rep.qpr.push_back(c->queries_per_request);
      rep.hit.push_back(c->cache_hit_ratio);
    }
    RealFigures f;
    rep.MediansInto(f, priced_vcpu);
    out.push_back(f);
  }
  return out;
}

absl::StatusOr<RealComparison> RunReal(const RealOptions& o) {
  if (o.steps.empty() || o.repeats < 1 || o.clients < 1 || !(o.closed_s > 0) ||
      !(o.open_s > 0) || !(o.warmup_s >= 0) || !(o.open_rate_per_s > 0)) {
    return absl::InvalidArgumentError(
        "capstone --real: accepted steps, repeats >= 1, clients >= 1 and "
        "positive durations and rate");
  }
  RealComparison out;
  out.steps = o.steps;
  const std::string dataset =
      o.dataset.empty() ? lab::DefaultDatasetPath(o.scale) : o.dataset;
  absl::StatusOr<lab::BuildReport> built =
      lab::EnsureDataset(dataset, {.scale = o.scale});
  if (!built.ok()) return built.status();
  const int64_t customers = built->shape.customers;

  cpu_set_t original;
  CPU_ZERO(&original);
  ::sched_getaffinity(0, sizeof original, &original);
  const bool split = CPU_COUNT(&original) >= 2;
  std::vector<std::string> common = {"--dataset", dataset, "--scale",
                                     absl::StrCat(o.scale)};
  if (split) common.insert(common.end(), {"--cores", "1"});
  const std::string script = WrkScript(customers, o.seed);
  const auto started = std::chrono::steady_clock::now();
  std::vector<double> generator_us;  // this process's CPU per request sent
  absl::Status failure = absl::OkStatus();
  for (const sim::OrderServiceConfig& config : CumulativeConfigs(o.steps)) {
    std::vector<std::string> flags = ServiceFlags(config);
    flags.insert(flags.end(), common.begin(), common.end());
    Repeats rep;
    RealFigures f;
    for (int r = 0; r < o.repeats && failure.ok(); ++r) {
      ::sched_setaffinity(0, sizeof original, &original);  // child: any CPU
      Child child;
      if (absl::Status s = child.Spawn(o.service_binary, flags); !s.ok()) {
        failure = s;
        break;
      }
      if (split) (void)http::PinToFirstCpus(1);  // the generator's core
      Paths paths{
          .mu = {},
          .picker = {customers, true, o.seed + static_cast<uint64_t>(r)}};
      http::LoadOptions load;
      load.port = child.port();
      load.connections = o.clients;
      load.timeout_ms = 30'000;
      load.next_path = [&paths] { return paths.Next(); };
      load.duration_s = o.warmup_s > 0 ? o.warmup_s : 0.1;
      (void)http::RunLoad(load);  // warm-up, discarded
      const Counters before = ReadStats(child.port());
      const double cpu_before = child.CpuSeconds();
      // This process's CPU is the load generator's: the service is a child
      // and wrk is not waited for here.
      const double self_before = core::ProcessCpuSeconds();
      load.duration_s = o.closed_s;
      absl::StatusOr<http::LoadResult> closed = http::RunLoad(load);
      const double self_after = core::ProcessCpuSeconds();
      const double cpu_after = child.CpuSeconds();
      const Counters after = ReadStats(child.port());
      http::LoadOptions open = load;
      open.open_loop = true;
      open.rate_per_s = o.open_rate_per_s;
      open.duration_s = o.open_s;
      absl::StatusOr<http::LoadResult> opened = http::RunLoad(open);
      if (!closed.ok() || !opened.ok()) {
        failure = closed.ok() ? opened.status() : closed.status();
        break;
      }
      rep.rps.push_back(closed->throughput_per_s());
      rep.avg.push_back(closed->latency_ns.Mean() / 1e6);
      rep.p95.push_back(static_cast<double>(closed->latency_ns.Percentile(95)) /
                        1e6);
      rep.p99.push_back(static_cast<double>(closed->latency_ns.Percentile(99)) /
                        1e6);
      rep.open_p99.push_back(
          static_cast<double>(opened->latency_ns.Percentile(99)) / 1e6);
      rep.cpu.push_back((cpu_after - cpu_before) / o.closed_s);
      const double pages =
          static_cast<double>(after.requests - before.requests);
      const double misses = static_cast<double>(after.misses - before.misses);
      const double hits = static_cast<double>(after.hits - before.hits);
      rep.qpr.push_back(
          pages > 0
              ? static_cast<double>(after.queries - before.queries) / pages
              : 0);
      rep.hit.push_back(hits + misses > 0 ? hits / (hits + misses) : 0);
      f.errors += closed->errors() + opened->errors();
      if (closed->sent > 0) {
        generator_us.push_back((self_after - self_before) * 1e6 /
                               static_cast<double>(closed->sent));
      }
      if (r == 0 && o.wrk) {
        absl::StatusOr<http::WrkResult> w = http::RunWrk(
            {.url = absl::StrCat("http://127.0.0.1:", child.port(), "/"),
             .script = script,
             .threads = 1,
             .connections = o.clients,
             .duration_s = std::max(1.0, std::round(o.wrk_s))});
        if (w.ok()) {
          f.wrk_rps = w->requests_per_s;
          f.wrk_p99_ms = w->p99_ms;
        }
      }
      ::sched_setaffinity(0, sizeof original, &original);
    }
    if (!failure.ok()) break;
    rep.MediansInto(f, config.cores);
    out.real.push_back(f);
    if (o.progress) {
      const size_t i = out.real.size() - 1;
      o.progress(absl::StrCat(
          "perflab capstone --real: step ", i + 1, "/", o.steps.size(), " (",
          std::string(o.steps[i]->name), ") ", std::llround(f.rps), " req/s, ",
          std::llround(std::chrono::duration<double>(
                           std::chrono::steady_clock::now() - started)
                           .count()),
          " s elapsed"));
    }
  }
  ::sched_setaffinity(0, sizeof original, &original);
  ::unlink(script.c_str());
  if (!failure.ok()) return failure;
  out.service_cores = 1;
  // The model's generator is this process: its CPU per request, measured in
  // the closed loops above (median over every step and repeat), replaces the
  // seed's figure for the JVM client (659 us), which would cap one core at
  // ~1,500 req/s.
  RealOptions scaled = o;
  if (!generator_us.empty()) {
    out.generator_cpu_per_request_us = Median(generator_us);
    scaled.calibration.generator_cpu_per_request_us =
        out.generator_cpu_per_request_us;
  }
  absl::StatusOr<std::vector<RealFigures>> composed = ComposeScaled(scaled);
  if (!composed.ok()) return composed.status();
  out.composed = std::move(*composed);
  out.generator_cores = split ? 1 : 0;
  return out;
}

}  // namespace perflab::capstone
