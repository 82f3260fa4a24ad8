// `perflab models <law>`: one subcommand per law of models/, each a thin
// layer that validates flags, calls the model and lays out a Document.
#include <algorithm>
#include <cmath>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <string_view>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "core/case_study.h"
#include "core/input_file.h"
#include "core/number.h"
#include "models/amdahl.h"
#include "models/cost.h"
#include "models/little.h"
#include "models/moments.h"
#include "models/percentiles.h"
#include "models/queues.h"
#include "models/usl.h"
#include "sim/order_service/model.h"
#include "tools/perflab/commands.h"

namespace perflab::cli {
namespace {

using core::Document;
using StatusOrDoc = absl::StatusOr<Document>;

std::vector<models::Stage> SeedStages() {
  // The laws chapter's breakdown of one slow request, 800 ms in all.
  return {{"app", 30}, {"db", 650}, {"serialisation", 20}, {"other", 100}};
}

// The largest worker count N the Amdahl and USL commands take.
constexpr double kMaxWorkers = 1e9;
// The laws chapter's what-if: speed one stage up 10x.
constexpr double kSeedSpeedup = 10;
// M/G/1 with the exponential's cv of 1 is M/M/1.
constexpr double kExponentialServiceCv = 1;
// The what-if's bounds: a stage of at most about 11.6 days, sped up or slowed
// down at most 1e9 times, so every total and new total is a finite number.
constexpr double kMaxStageMs = 1e9;
constexpr double kMinSpeedup = 1e-9, kMaxSpeedup = 1e9;
// The largest service cv M/G/1 takes, as the simulator's service_cv: its
// square stays finite.
constexpr double kMaxServiceCv = 100;

void AddUslTable(Document& doc, std::string key, std::string title,
                 double sigma, double kappa, const std::vector<double>& ns) {
  auto& t = doc.AddTable(std::move(key), std::move(title),
                         {{"n", "N", 0},
                          {"capacity", "C(N) (x one worker)", 2},
                          {"efficiency", "efficiency (C/N)", 2}});
  for (double n : ns) {
    double c = models::UslCapacity(sigma, kappa, n);
    t.Add({n, c, c / n});
  }
}

void AddAmdahlTable(Document& doc, std::string key, std::string title,
                    double serial, const std::vector<double>& ns) {
  auto& t = doc.AddTable(std::move(key), std::move(title),
                         {{"n", "N", 0},
                          {"speedup", "speed-up (x)", 1},
                          {"efficiency", "efficiency (%)", 0}});
  for (double n : ns) {
    double s = models::AmdahlSpeedup(serial, n);
    t.Add({n, s, 100 * s / n});
  }
}

absl::Status AddWhatIfTable(Document& doc, std::string key,
                            const std::vector<models::Stage>& stages,
                            double k) {
  auto& t =
      doc.AddTable(std::move(key), absl::StrCat("Speed one stage up ", k, "x"),
                   {{"stage", "stage", 0},
                    {"ms", "time (ms)", 0},
                    {"share", "share of total", 3},
                    {"new_total_ms", "new total (ms)", 0},
                    {"speedup", "overall speed-up (x)", 2}});
  for (const models::Stage& s : stages) {
    absl::StatusOr<models::WhatIf> w = models::SpeedUpStage(stages, s.name, k);
    if (!w.ok()) return w.status();
    t.Add({s.name, s.ms, w->share, w->new_total_ms, w->speedup});
  }
  return absl::OkStatus();
}

void SetQueueFields(Document& doc, const models::QueueMetrics& m) {
  doc.Set("utilisation", "utilisation rho", m.utilisation, 3)
      .Set("p_wait", "P(wait)", m.p_wait, 4)
      .Set("mean_wait_s", "mean wait in queue Wq (s)", m.mean_wait_s, 6)
      .Set("mean_response_s", "mean response W (s)", m.mean_response_s, 6)
      .Set("mean_queue_length", "mean queue length Lq", m.mean_queue_length, 3)
      .Set("mean_in_system", "mean in system L", m.mean_in_system, 3)
      .Set("throughput_per_s", "throughput (req/s)", m.throughput_per_s, 3);
}

// Reads numbers one per line ('#' comments and blank lines skipped).
absl::StatusOr<std::vector<double>> ReadNumbers(const std::string& path) {
  absl::StatusOr<std::string> text = core::ReadInputFile(
      "--input", path,
      {.max_bytes = core::kMaxNumbersInputBytes, .allow_stdin = true});
  if (!text.ok()) return text.status();
  std::istringstream in(*text);
  std::vector<double> values;
  std::string line;
  for (int lineno = 1; std::getline(in, line); ++lineno) {
    absl::string_view text = absl::StripAsciiWhitespace(line);
    if (text.empty() || text[0] == '#') continue;
    const std::optional<double> v =
        core::ParseDecimal(std::string_view(text.data(), text.size()));
    if (!v) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--input: ", path, " line ", lineno, ": got '", std::string(text),
          "'; accepted: one decimal number per line"));
    }
    values.push_back(*v);
  }
  if (values.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("--input: ", path, " holds no numbers"));
  }
  return values;
}

void AddLittle(CLI::App* models, Registry& reg) {
  struct Flags {
    std::optional<double> l, rate, w_ms;
    double headroom = case_study::kLittleHeadroom;
  };
  auto f = std::make_shared<Flags>();
  CLI::App* cmd = models->add_subcommand(
      "little",
      "Little's Law L = rate x W: give two, get the third and a pool size");
  cmd->add_option("--in-flight", f->l, "mean number in flight L")
      ->check(Positive());
  cmd->add_option("--rate-per-s", f->rate, "arrival rate (req/s)")
      ->check(Positive());
  cmd->add_option("--w-ms", f->w_ms, "mean time in the system (ms)")
      ->check(Positive());
  cmd->add_option(
         "--headroom", f->headroom,
         WithDefault("pool headroom, 0.2-0.3 usual", DefaultText(f->headroom)))
      ->check(NonNegative());
  reg.Produces(cmd, [f]() -> StatusOrDoc {
    std::optional<double> w_s;
    if (f->w_ms) w_s = *f->w_ms / 1000;
    if (f->l.has_value() + f->rate.has_value() + f->w_ms.has_value() != 2) {
      return absl::InvalidArgumentError(
          "give exactly two of --in-flight, --rate-per-s, --w-ms");
    }
    absl::StatusOr<models::Little> r = models::SolveLittle(f->l, f->rate, w_s);
    if (!r.ok()) return r.status();
    absl::StatusOr<models::PoolSizing> pool =
        models::SizePool(r->rate_per_s, r->w_s, f->headroom);
    if (!pool.ok()) return pool.status();
    Document doc("Little's Law: L = rate x W");
    doc.Set("l", "in flight L", r->l, 2)
        .Set("rate_per_s", "rate (req/s)", r->rate_per_s, 2)
        .Set("w_s", "time in system W (s)", r->w_s, 4)
        .Set("pool_minimum", "pool minimum (ceil L)", pool->minimum)
        .Set("pool_with_headroom",
             absl::StrCat("pool with ", f->headroom * 100, " % headroom"),
             pool->with_headroom);
    return doc;
  });
}

void AddAmdahl(CLI::App* models, Registry& reg) {
  struct Flags {
    double serial = 0;
    std::vector<double> n = {1, 2, 4, 8, 16, 32, 64};
  };
  auto f = std::make_shared<Flags>();
  CLI::App* cmd = models->add_subcommand(
      "amdahl", "Amdahl's Law: speed-up of N workers with a serial fraction");
  cmd->add_option("--serial", f->serial, "serial fraction s in [0, 1)")
      ->required()
      ->check(Fraction());
  cmd->add_option(
         "--workers", f->n,
         WithDefault("worker counts N, comma-separated", DefaultText(f->n)))
      ->delimiter(',')
      ->check(NumberBetween(1, kMaxWorkers));
  reg.Produces(cmd, [f]() -> StatusOrDoc {
    Document doc(absl::StrCat("Amdahl: serial fraction ", f->serial));
    doc.Set("serial", "serial fraction s", f->serial, 3);
    const double limit = models::AmdahlLimit(f->serial);
    if (std::isfinite(limit)) {
      doc.Set("limit", "limit 1/s (x)", limit, 1);
    } else {
      // s = 0 (or one so small 1/s is beyond a double): no printed number.
      doc.Note(absl::StrCat("serial fraction ", f->serial,
                            ": no limit, the speed-up grows with N"));
    }
    AddAmdahlTable(doc, "points", "Speed-up with N workers", f->serial, f->n);
    return doc;
  });
}

void AddWhatIf(CLI::App* models, Registry& reg) {
  struct Flags {
    std::vector<std::string> stages;
    double k = kSeedSpeedup;
  };
  auto f = std::make_shared<Flags>();
  CLI::App* cmd = models->add_subcommand(
      "what-if", "Per-stage Amdahl: speed one stage of a request up k times");
  std::vector<std::string> seed;
  for (const models::Stage& s : SeedStages()) {
    seed.push_back(absl::StrCat(s.name, "=", DefaultText(s.ms)));
  }
  cmd->add_option("--stage", f->stages,
                  WithDefault("NAME=MS, repeatable",
                              "the seed's " + absl::StrJoin(seed, " ")));
  cmd->add_option(
         "--speedup", f->k,
         WithDefault("factor k applied to each stage", DefaultText(f->k)))
      ->check(NumberBetween(kMinSpeedup, kMaxSpeedup));
  reg.Produces(cmd, [f]() -> StatusOrDoc {
    if (absl::Status s = EachNameOnce("--stage", f->stages); !s.ok()) return s;
    std::vector<models::Stage> stages;
    for (const std::string& s : f->stages) {
      std::pair<std::string, std::string> kv = absl::StrSplit(s, '=');
      const std::optional<double> ms = core::ParseDecimal(kv.second);
      if (kv.first.empty() || !ms || *ms < 0 || *ms > kMaxStageMs) {
        return absl::InvalidArgumentError(absl::StrCat(
            "--stage: got '", s, "'; accepted: NAME=MS with MS in [0, ",
            DefaultText(kMaxStageMs), "]"));
      }
      stages.push_back({kv.first, *ms});
    }
    if (stages.empty()) stages = SeedStages();
    Document doc("What if one stage were faster? 1 / ((1 - f) + f / k)");
    double total = 0;
    for (const auto& s : stages) total += s.ms;
    doc.Set("total_ms", "total (ms)", total, 0).Set("k", "speed-up k", f->k, 1);
    if (absl::Status s = AddWhatIfTable(doc, "stages", stages, f->k); !s.ok())
      return s;
    return doc;
  });
}

void AddUsl(CLI::App* models, Registry& reg) {
  struct Flags {
    double sigma = 0, kappa = 0;
    std::vector<double> n = {1, 2, 4, 8, 12, 16, 22, 32, 48, 64};
  };
  auto f = std::make_shared<Flags>();
  CLI::App* cmd = models->add_subcommand(
      "usl", "Universal Scalability Law: C(N), its peak N* and capacity");
  cmd->add_option("--sigma", f->sigma,
                  absl::StrCat("contention in [0, 1) (seed: ",
                               DefaultText(case_study::kUslSigma), ")"))
      ->required()
      ->check(Fraction());
  cmd->add_option("--kappa", f->kappa,
                  absl::StrCat("coherency > 0 (seed: ",
                               DefaultText(case_study::kUslKappa), ")"))
      ->required()
      ->check(Positive());
  cmd->add_option(
         "--workers", f->n,
         WithDefault("worker counts N, comma-separated", DefaultText(f->n)))
      ->delimiter(',')
      ->check(NumberBetween(1, kMaxWorkers));
  reg.Produces(cmd, [f]() -> StatusOrDoc {
    absl::StatusOr<models::UslPeak> peak =
        models::UslPeakOf(f->sigma, f->kappa);
    if (!peak.ok()) return peak.status();
    Document doc(absl::StrCat("USL: sigma ", f->sigma, ", kappa ", f->kappa));
    doc.Set("sigma", "sigma", f->sigma, 4)
        .Set("kappa", "kappa", f->kappa, 5)
        .Set("peak_n_exact", "peak N* = sqrt((1 - sigma) / kappa)",
             peak->n_exact, 2)
        .Set("peak_n", "best integer N", peak->n)
        .Set("peak_capacity", "peak capacity C(N*) (x one worker)",
             peak->capacity, 2);
    AddUslTable(doc, "points", "Relative capacity C(N)", f->sigma, f->kappa,
                f->n);
    return doc;
  });
}

// The lines of a usl-fit input that hold a point: not blank, not a comment
// ('#') nor the header ("n,..."). Counted before any is parsed, so a file
// of more points than a fit takes is refused at once, not after seconds of
// parsing.
size_t PointLines(absl::string_view text) {
  size_t count = 0;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    const absl::string_view t = absl::StripLeadingAsciiWhitespace(line);
    if (!t.empty() && t[0] != '#' && t[0] != 'n') ++count;
  }
  return count;
}

void AddUslFit(CLI::App* models, Registry& reg) {
  struct Flags {
    std::vector<std::string> points;
    std::string input;
  };
  auto f = std::make_shared<Flags>();
  CLI::App* cmd = models->add_subcommand(
      "usl-fit",
      "Fit sigma, kappa and lambda to measured (N, throughput) points");
  cmd->add_option("--point", f->points,
                  "N:THROUGHPUT, repeatable or comma-separated")
      ->delimiter(',');
  cmd->add_option("--input", f->input,
                  "file of 'N,THROUGHPUT' lines ('-' = stdin)");
  reg.Produces(cmd, [f]() -> StatusOrDoc {
    std::vector<std::string> specs = f->points;
    if (!f->input.empty()) {
      absl::StatusOr<std::string> text = core::ReadInputFile(
          "--input", f->input,
          {.max_bytes = core::kMaxNumbersInputBytes, .allow_stdin = true});
      if (!text.ok()) return text.status();
      if (const size_t n = specs.size() + PointLines(*text);
          n > models::kMaxUslFitPoints) {
        return absl::InvalidArgumentError(absl::StrCat(
            "--input '", f->input, "': ", n, " points; accepted: 3..",
            models::kMaxUslFitPoints, " (N,THROUGHPUT lines and --point)"));
      }
      std::istringstream in(*text);
      for (std::string line; std::getline(in, line);) {
        absl::string_view t = absl::StripAsciiWhitespace(line);
        if (t.empty() || t[0] == '#' || t[0] == 'n') continue;  // header
        std::string spec(t);
        std::replace(spec.begin(), spec.end(), ',', ':');
        specs.push_back(spec);
      }
    }
    std::vector<models::UslPoint> pts;
    for (const std::string& s : specs) {
      const std::vector<std::string> nx = absl::StrSplit(s, ':');
      // Exactly two columns: a third is a mistake, not a comment. Spaces
      // around a column are the file's layout ("1, 100"), not the number's.
      auto column = [&nx](size_t i) -> std::optional<double> {
        if (nx.size() != 2) return std::nullopt;
        const absl::string_view t = absl::StripAsciiWhitespace(nx[i]);
        return core::ParseDecimal(std::string_view(t.data(), t.size()));
      };
      const std::optional<double> n = column(0), x = column(1);
      if (!n || !x) {
        return absl::InvalidArgumentError(absl::StrCat(
            f->input.empty() ? "--point" : "--point/--input", ": got '", s,
            "'; accepted: N:THROUGHPUT (or N,THROUGHPUT lines), "
            "two numbers"));
      }
      pts.push_back(models::UslPoint{.n = *n, .throughput = *x});
    }
    absl::StatusOr<models::UslFit> fit = models::FitUsl(pts);
    if (!fit.ok()) return fit.status();
    Document doc(
        "USL fit: X(N) = lambda N / (1 + sigma (N-1) + kappa N (N-1))");
    doc.Set("sigma", "sigma (contention)", fit->sigma, 5)
        .Set("kappa", "kappa (coherency)", fit->kappa, 6)
        .Set("lambda", "lambda (throughput of one)", fit->lambda, 3)
        .Set("rms_residual", "RMS residual", fit->rms_residual, 3)
        .Set("r_squared", "R^2", fit->r_squared, 4);
    if (absl::StatusOr<models::UslPeak> peak =
            models::UslPeakOf(fit->sigma, fit->kappa);
        peak.ok()) {
      doc.Set("peak_n", "peak N", peak->n)
          .Set("peak_throughput", "peak throughput",
               fit->lambda * peak->capacity, 3);
    } else {
      doc.Note(
          "kappa fitted as 0: throughput never peaks, it levels off at lambda "
          "/ sigma");
    }
    auto& t = doc.AddTable(
        "points", "Measured against fitted",
        {{"n", "N", 0}, {"measured", "measured", 3}, {"fitted", "fitted", 3}});
    for (const auto& p : pts) {
      t.Add({p.n, p.throughput,
             fit->lambda * models::UslCapacity(fit->sigma, fit->kappa, p.n)});
    }
    return doc;
  });
}

void AddMmc(CLI::App* models, Registry& reg) {
  struct Flags {
    int servers = 0;
    double lambda = 0, mu = 0;
  };
  auto f = std::make_shared<Flags>();
  CLI::App* cmd = models->add_subcommand(
      "mmc",
      "M/M/c queue (Erlang C): probability of waiting, mean wait and response");
  cmd->add_option("--servers", f->servers, "servers c >= 1")
      ->required()
      ->check(IntIn(1, 1000000));
  cmd->add_option("--arrival-rate-per-s", f->lambda,
                  "arrival rate lambda (req/s)")
      ->required()
      ->check(Positive());
  cmd->add_option("--service-rate-per-s", f->mu,
                  "service rate of one server mu (req/s)")
      ->required()
      ->check(Positive());
  reg.Produces(cmd, [f]() -> StatusOrDoc {
    absl::StatusOr<models::QueueMetrics> m =
        models::MMc(f->servers, f->lambda, f->mu);
    if (!m.ok()) return m.status();
    Document doc(absl::StrCat("M/M/", f->servers, ": lambda ", f->lambda,
                              "/s, mu ", f->mu, "/s"));
    SetQueueFields(doc, *m);
    return doc;
  });
}

void AddMg1(CLI::App* models, Registry& reg) {
  struct Flags {
    double lambda = 0, service_ms = 0, cv = kExponentialServiceCv;
  };
  auto f = std::make_shared<Flags>();
  CLI::App* cmd = models->add_subcommand(
      "mg1", "M/G/1 queue (Pollaczek-Khinchine); --service-cv 0 is M/D/1");
  cmd->add_option("--arrival-rate-per-s", f->lambda, "arrival rate (req/s)")
      ->required()
      ->check(Positive());
  cmd->add_option("--mean-service-ms", f->service_ms, "mean service time (ms)")
      ->required()
      ->check(Positive());
  cmd->add_option(
         "--service-cv", f->cv,
         WithDefault("coefficient of variation of service", DefaultText(f->cv)))
      ->check(NumberBetween(0, kMaxServiceCv));
  reg.Produces(cmd, [f]() -> StatusOrDoc {
    absl::StatusOr<models::QueueMetrics> m =
        models::MG1(f->lambda, f->service_ms / 1000, f->cv);
    if (!m.ok()) return m.status();
    Document doc(absl::StrCat("M/G/1: lambda ", f->lambda, "/s, service ",
                              f->service_ms, " ms, cv ", f->cv));
    SetQueueFields(doc, *m);
    return doc;
  });
}

void AddCost(CLI::App* models, Registry& reg) {
  struct Flags {
    double rps = 0, vcpu = 0, gib = 0;
    models::CostOptions options;
  };
  auto f = std::make_shared<Flags>();
  CLI::App* cmd = models->add_subcommand(
      "cost",
      "Dollars per hour and per million requests at a target utilisation");
  cmd->add_option("--rps", f->rps, "measured max throughput (req/s)")
      ->required()
      ->check(Positive());
  cmd->add_option("--vcpu", f->vcpu, "vCPUs")->required()->check(Positive());
  cmd->add_option("--mem-gib", f->gib, "memory (GiB)")
      ->required()
      ->check(NonNegative());
  cmd->add_option("--usd-per-vcpu-hour", f->options.usd_per_vcpu_hour,
                  WithDefault("EXAMPLE price",
                              DefaultText(f->options.usd_per_vcpu_hour, 3)))
      ->check(NonNegative());
  cmd->add_option(
         "--usd-per-gib-hour", f->options.usd_per_gib_hour,
         WithDefault("EXAMPLE price", DefaultText(f->options.usd_per_gib_hour)))
      ->check(NonNegative());
  cmd->add_option("--target-utilisation", f->options.target_utilisation,
                  WithDefault("share of max RPS planned for",
                              DefaultText(f->options.target_utilisation)))
      ->check(Probability());
  reg.Produces(cmd, [f]() -> StatusOrDoc {
    absl::StatusOr<models::Cost> c =
        models::CostPerMillion(f->rps, f->vcpu, f->gib, f->options);
    if (!c.ok()) return c.status();
    Document doc("Cost per million requests");
    doc.Set("usd_per_hour", "price ($/h)", c->usd_per_hour, 4)
        .Set("usd_per_million", "cost ($ per 1M requests)", c->usd_per_million,
             3)
        .Note(absl::StrCat("example prices: $", f->options.usd_per_vcpu_hour,
                           " per vCPU-hour, $", f->options.usd_per_gib_hour,
                           " per GiB-hour; check your provider's"));
    return doc;
  });
}

void AddPercentiles(CLI::App* models, Registry& reg) {
  struct Flags {
    std::string input;
    std::vector<double> p = {50, 90, 95, 99, 99.9};
  };
  auto f = std::make_shared<Flags>();
  CLI::App* cmd = models->add_subcommand(
      "percentiles",
      "Nearest-rank percentiles of a sample, and whether it is big enough");
  cmd->add_option("--input", f->input,
                  "file with one number per line ('-' = stdin)")
      ->required();
  cmd->add_option(
         "--percentiles", f->p,
         WithDefault("percentiles p, comma-separated", DefaultText(f->p)))
      ->delimiter(',')
      ->check(Percent());
  reg.Produces(cmd, [f]() -> StatusOrDoc {
    absl::StatusOr<std::vector<double>> values = ReadNumbers(f->input);
    if (!values.ok()) return values.status();
    std::sort(values->begin(), values->end());
    auto n = static_cast<int64_t>(values->size());
    Document doc("Nearest-rank percentiles");
    doc.Set("count", "samples", n)
        .Set("mean", "mean", models::MeanOf(*values), 3)
        .Set("max", "max", values->back(), 3);
    auto& t = doc.AddTable("percentiles", "",
                           {{"p", "percentile", 2},
                            {"value", "value", 3},
                            {"tail_samples", "samples above", 0},
                            {"samples_for_10", "window for 10 above", 0}});
    for (double p : f->p) {
      double tail = static_cast<double>(n) * (1 - p / 100);
      t.Add({p, *models::NearestRankSorted(*values, p), std::floor(tail + 1e-9),
             models::SamplesForTail(p, 10)});
      if (tail < 10 && p < 100) {
        doc.Note(absl::StrCat(
            "p", p, " rests on fewer than 10 samples; a window of ",
            models::SamplesForTail(p, 10), " would give ~10"));
      }
    }
    return doc;
  });
}

// The tour's USL and Amdahl: their peaks and limits, and a table each.
absl::Status AddTourLaws(Document& doc) {
  const double sigma = case_study::kUslSigma, kappa = case_study::kUslKappa,
               serial = case_study::kAmdahlSerial;
  absl::StatusOr<models::UslPeak> peak = models::UslPeakOf(sigma, kappa);
  if (!peak.ok()) return peak.status();
  doc.Set("usl_peak_n",
          absl::StrFormat("USL (sigma %g, kappa %g): peak N", sigma, kappa),
          peak->n)
      .Set("usl_peak_capacity", "USL: capacity at the peak (x one worker)",
           peak->capacity, 2)
      .Set("amdahl_limit",
           absl::StrFormat("Amdahl (s = %g): limit (x)", serial),
           models::AmdahlLimit(serial), 1);
  AddUslTable(doc, "usl",
              absl::StrFormat("USL, sigma %g, kappa %g", sigma, kappa), sigma,
              kappa, {1, 12, 22, 64});
  AddAmdahlTable(doc, "amdahl",
                 absl::StrFormat("Amdahl, serial fraction %g", serial), serial,
                 {1, 16, 64});
  return absl::OkStatus();
}

// The tour's pools: Little's Law sizing and the client pool's ceiling.
absl::Status AddTourPools(Document& doc) {
  auto& little = doc.AddTable(
      "little",
      absl::StrFormat("Little's Law and pool sizing: %g req/s held %g ms",
                      case_study::kLittleRatePerS, case_study::kLittleHoldMs),
      {{"headroom", "headroom (%)", 0},
       {"in_flight", "in flight L", 1},
       {"pool", "pool size", 0}});
  for (double h : {0.0, 0.2, case_study::kLittleHeadroom}) {
    absl::StatusOr<models::PoolSizing> p = models::SizePool(
        case_study::kLittleRatePerS, case_study::kLittleHoldMs / 1e3, h);
    if (!p.ok()) return p.status();
    little.Add({100 * h, p->in_flight, h == 0 ? p->minimum : p->with_headroom});
  }
  auto& client = doc.AddTable(
      "client_pool",
      absl::StrFormat("Client pool ceiling: %d connections, %g ms per call",
                      case_study::kClientPoolConnections,
                      case_study::kClientPoolCallMs),
      {{"offered_per_s", "offered (calls/s)", 0},
       {"ceiling_per_s", "ceiling (calls/s)", 0},
       {"share_waiting", "share that must wait", 2}});
  double ceiling = models::PoolCeilingPerS(case_study::kClientPoolConnections,
                                           case_study::kClientPoolCallMs / 1e3);
  for (double offered : {250.0, 500.0, 1000.0}) {
    client.Add({offered, ceiling, std::max(0.0, 1 - ceiling / offered)});
  }
  return absl::OkStatus();
}

// The tour's cost per million requests at each of the case study's steps.
absl::Status AddTourCost(Document& doc) {
  auto& cost = doc.AddTable(
      "cost",
      absl::StrFormat(
          "Cost per million requests at %g %% utilisation (example prices)",
          100 * models::CostOptions().target_utilisation),
      {{"rps", "RPS", 0},
       {"vcpu", "vCPU", 0},
       {"usd_per_hour", "$/h", 3},
       {"usd_per_million", "$ per 1M", 3}});
  // The case study's ten steps: 8 vCPU until the last one right-sizes.
  for (const case_study::CapstoneStepFigures& step :
       case_study::kCapstoneTable) {
    const double rps = step.rps;
    const double vcpu =
        step.id == case_study::CapstoneStep::kRightSize
            ? static_cast<double>(case_study::kRightSizedCores)
            : static_cast<double>(sim::OrderServiceConfig{}.cores);
    absl::StatusOr<models::Cost> c =
        models::CostPerMillion(rps, vcpu, case_study::kCapstoneMemGib);
    if (!c.ok()) return c.status();
    cost.Add({rps, vcpu, c->usd_per_hour, c->usd_per_million});
  }

  return absl::OkStatus();
}

// The tour's queues near saturation, and the window a tail needs.
absl::Status AddTourQueues(Document& doc) {
  auto& queues = doc.AddTable(
      "queues", "Queues: waiting grows without bound as utilisation nears 1",
      {{"model", "model", 0},
       {"utilisation", "rho", 2},
       {"p_wait", "P(wait)", 4},
       {"mean_wait_s", "Wq (s)", 3},
       {"mean_response_s", "W (s)", 3}});
  struct Q {
    const char* name;
    absl::StatusOr<models::QueueMetrics> m;
  };
  for (Q q : {Q{"M/M/8 lambda 7.2 mu 1", models::MMc(8, 7.2, 1)},
              Q{"M/M/1 lambda 5 mu 10", models::MM1(5, 10)},
              Q{"M/M/1 lambda 9 mu 10", models::MM1(9, 10)},
              Q{"M/D/1 lambda 9 S 0.1 s", models::MG1(9, 0.1, 0)}}) {
    if (!q.m.ok()) return q.m.status();
    queues.Add({q.name, q.m->utilisation, q.m->p_wait, q.m->mean_wait_s,
                q.m->mean_response_s});
  }

  auto& tail = doc.AddTable(
      "tail_window", "How many requests a window needs for ~10 tail samples",
      {{"p", "percentile", 2}, {"samples", "requests", 0}});
  for (double p : {99.0, 99.9, 99.99}) {
    tail.Add({p, models::SamplesForTail(p, 10)});
  }
  return absl::OkStatus();
}

StatusOrDoc Tour() {
  Document doc("perflab models tour: the laws with the case study's numbers");
  if (absl::Status s = AddTourLaws(doc); !s.ok()) return s;
  if (absl::Status s = AddTourPools(doc); !s.ok()) return s;
  if (absl::Status s =
          AddWhatIfTable(doc, "what_if", SeedStages(), kSeedSpeedup);
      !s.ok())
    return s;
  if (absl::Status s = AddTourCost(doc); !s.ok()) return s;
  if (absl::Status s = AddTourQueues(doc); !s.ok()) return s;
  return doc;
}

void AddTour(CLI::App* models, Registry& reg) {
  CLI::App* cmd = models->add_subcommand(
      "tour", "Every law with the case study's numbers, in one go");
  reg.Produces(cmd, Tour);
}

}  // namespace

void AddModelsCommands(CLI::App& root, Registry& registry) {
  CLI::App* models = root.add_subcommand(
      "models",
      "The analytic laws: little, amdahl, what-if, usl, usl-fit, mmc, "
      "mg1, cost, percentiles, tour");
  models->require_subcommand(1);
  AddLittle(models, registry);
  AddAmdahl(models, registry);
  AddWhatIf(models, registry);
  AddUsl(models, registry);
  AddUslFit(models, registry);
  AddMmc(models, registry);
  AddMg1(models, registry);
  AddCost(models, registry);
  AddPercentiles(models, registry);
  AddTour(models, registry);
  AddMvaCommand(models, registry);
}

}  // namespace perflab::cli
