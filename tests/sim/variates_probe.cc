// variates_probe: prints simulated figures in hexadecimal floating point, so
// that builds with other flags, or runs under another libm, can be compared
// byte for byte (tests/sim/libm_independence_test). `variates_probe` prints
// M/M/1, M/M/8 and a lognormal M/G/1 run plus raw draws of every sampler;
// `variates_probe --scenario NAME` prints that scenario's default JSON, as
// its golden file holds it; `variates_probe --libm` prints libm's own log
// and exp of fixed inputs (to show that a preloaded libm took effect).
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>

#include "core/document.h"
#include "sim/mmc.h"
#include "sim/random.h"
#include "sim/scenarios/scenario.h"

namespace {

using perflab::sim::Dist;
using perflab::sim::MmcOptions;

void PrintMmc(const char* name, const MmcOptions& o) {
  const auto r = perflab::sim::RunMmc(o);
  if (!r.ok()) {
    std::printf("%s: %s\n", name, std::string(r.status().message()).c_str());
    return;
  }
  std::printf("%s: W %a Wq %a Pw %a U %a Lq %a X %a p99 %a ci %a events %lld\n",
              name, r->mean_response_s, r->mean_wait_s, r->p_wait,
              r->utilisation, r->mean_queue_length, r->throughput_per_s,
              r->p99_response_s, r->mean_wait_ci95_s,
              static_cast<long long>(r->events));
}

int Draws() {
  MmcOptions o;
  o.customers = 200'000;
  PrintMmc("mm1", o);
  o.servers = 8;
  o.arrival_rate_per_s = 7.2;
  PrintMmc("mm8", o);
  o.servers = 1;
  o.arrival_rate_per_s = 0.8;
  o.service = MmcOptions::Service::kLognormal;
  o.service_cv = 1.5;
  PrintMmc("mg1-lognormal", o);
  perflab::sim::Rng rng(7, "probe");
  perflab::sim::LognormalDraws lognormal(0.7);
  perflab::sim::Mixture mix;
  mix.Add(0.9, Dist::Exp(2e6));
  mix.Add(0.1, Dist::Lognormal(5e7, 2));
  const auto zipf = perflab::sim::Zipf::Create(1000, 1.1);
  for (int i = 0; i < 2000; ++i) {
    std::printf("%a %a %lld %lld %a %lld\n",
                perflab::sim::StandardExponential(rng),
                perflab::sim::StandardNormal(rng),
                static_cast<long long>(lognormal.SampleNs(3e6 + i, rng)),
                static_cast<long long>(
                    perflab::sim::SampleNs(Dist::Lognormal(1e6, 0.3), rng)),
                mix.Sample(rng), static_cast<long long>(zipf->Sample(rng)));
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 3 && std::strcmp(argv[1], "--scenario") == 0) {
    const auto doc =
        perflab::sim::RunScenario(argv[2], {}, perflab::sim::kDefaultSeed);
    if (!doc.ok()) {
      std::fprintf(stderr, "%s\n", std::string(doc.status().message()).c_str());
      return 1;
    }
    std::printf("%s\n", perflab::core::ToJson(*doc).c_str());
    return 0;
  }
  if (argc == 2 && std::strcmp(argv[1], "--libm") == 0) {
    volatile double x = 0.7;  // not folded at compile time
    std::printf("%a %a\n", std::log(x), std::exp(x));
    return 0;
  }
  return Draws();
}
