// The capstone composer: runs the order-service model once per step, loop
// and repeat (closed loop of 32 clients for 15 s and open loop at 40 req/s
// for 20 s, each after 8 s of discarded warm-up; 3 repeats with seeds
// seed, seed+1, seed+2; like the rig, which ran the open loop right after
// the closed one in the same JVM, an open run starts on the cache its closed
// run's 23 s of requests left), reports each metric's median over the repeats,
// the factor of each step against the previous one, the outcomes baseline
// against final, $/1M at example prices, how full each cap in series is
// (threads, pool, cores), each step's RPS as exact MVA estimates it from the
// step's own demands (mva_estimate.h), and optionally the elasticity of RPS
// to every calibrated cost (--sensitivity). Renders the result as one
// Document: its tables for readers (table, csv, and Markdown through
// compare::ToMarkdown), its nested fields the JSON record (core::ToJson).
// Compose is thread-compatible; it is safe to call from several threads with
// different options if the StepRunner is thread-safe.
#ifndef PERFLAB_TOOLS_CAPSTONE_COMPOSER_H_
#define PERFLAB_TOOLS_CAPSTONE_COMPOSER_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "core/case_study.h"
#include "core/document.h"
#include "models/cost.h"
#include "tools/capstone/runs.h"
#include "tools/capstone/steps.h"

namespace perflab::capstone {

struct ComposeOptions {
  std::vector<const Step*> steps;  // from ParseSteps; baseline first
  sim::Calibration calibration;    // costs the model reads
  int repeats = 3;                 // per step and loop; the median is reported
  uint64_t seed = 42;              // repeat r runs with seed + r
  models::CostOptions cost;        // example prices and target utilisation
  int jobs = 0;  // workers (0: every core); never changes the output
  bool sensitivity = false;        // also the elasticity of RPS to each cost
  double sensitivity_delta = 0.1;  // +-10 % of each calibrated cost
  // Closed-loop window of each +-delta run (s), after its warm-up: the two
  // runs share their seed, so their difference needs less than 15 s.
  double sensitivity_window_s = 5;
  // Warm-up of the +-delta runs of a step without the cache (s); a step with
  // the cache always keeps the rig's, as its 30 s entries are still being
  // filled then. The rig's by default, as every closed run has: a shorter
  // one simulates less but is another method (sim/README.md, "The
  // sensitivity runs' warm-up", has what 2 s changes).
  double sensitivity_warmup_s = case_study::kRigWarmupS;
  // +-delta pairs per cost, one with each of the first this many repeats'
  // seeds (1..repeats): with more than one, each elasticity is their mean
  // and its lowest and highest show how much of it is noise.
  int sensitivity_seeds = 1;
};

// Application CPU by category, in percent of its cores used.
struct CpuPercent {
  double database = 0, http = 0, serialisation = 0, gc = 0, other = 0;
};

struct StepFigures {
  double rps = 0, avg_ms = 0, p95_ms = 0, p99_ms = 0;  // closed loop
  double open_p99_ms = 0;                              // open loop
  // The open loop's median RPS: 0 when no request completed there, so
  // open_p99_ms measures nothing (likewise rps for the closed loop's).
  double open_rps = 0;
  double cpu_cores = 0, queries_per_request = 0, cache_hit_ratio = 0;
  double usd_per_million = 0;  // 0 when rps is 0
  CpuPercent cpu_share;
  double generator_utilisation = 0;  // closed loop, 0..1
  // The caps in series, closed loop (sim::OrderServiceResult): capacities,
  // median mean-busy and median wait per request. threads 0: virtual.
  int64_t threads = 0, pool = 0, app_cores = 0;
  double threads_busy = 0, thread_wait_ms = 0;
  double pool_busy = 0, pool_wait_ms = 0;
  // What the MVA estimate (mva_estimate.h) reads besides the figures above:
  // the load generator's whole cores and the pure waits of a cache miss.
  int64_t generator_cores = 0;
  double miss_wait_ms = 0;
  double factor = 0;  // rps / previous step's rps (0: first)
  // Closed-loop RPS of each repeat, in seed order, and each over the
  // previous step's RPS with the same seed (common random numbers: the
  // spread is the model's, not the draws'); empty factors for the first.
  std::vector<double> rps_repeats, factor_repeats;
  // The shared steady-state check (sim/steady_state.h) over every repeat of
  // both loops; each failing run's reasons, prefixed with loop and seed.
  bool steady = true;
  std::vector<std::string> steady_reasons;
};

// One run each at cost x (1 - delta) and x (1 + delta), both with the first
// repeat's seed (common random numbers), against the step's run with that
// seed; with several sensitivity seeds, one such pair per seed, averaged.
// All 0 when the cost is 0 or the step never reads it.
struct Elasticity {
  double minus_rps = 0, plus_rps = 0;  // RPS at cost x (1 -+ delta)
  double elasticity = 0;               // (plus - minus) / (2 delta base rps)
  // The least and the most of the seeds' elasticities (with one seed, the
  // elasticity itself).
  double lowest = 0, highest = 0;
};

struct Composition {
  std::vector<const Step*> steps;
  sim::Calibration calibration;      // the costs every step read
  std::vector<StepFigures> figures;  // one per step
  std::vector<uint64_t> seeds;       // one per repeat
  // Outcomes, baseline against the last step: "x lower" for p99, open p99
  // and cost, "x higher" for RPS. 0 when a divisor is 0.
  double p99_x = 0, open_p99_x = 0, rps_x = 0, cost_x = 0;
  // With --sensitivity: [step][field of sim::CalibrationFields()].
  std::vector<std::vector<Elasticity>> sensitivity;
  double sensitivity_delta = 0;
  double sensitivity_window_s = 0;  // closed window of the +-delta runs (s)
  // Their warm-up (s) at a step without the cache; with it, the rig's.
  double sensitivity_warmup_s = 0;
  int sensitivity_seeds = 0;  // seeds each +-delta pair ran with
};

// Runs and composes; errors are the model's (InvalidArgument for bad
// options: no steps, repeats < 1, jobs < 0, delta outside (0, 1), a
// sensitivity window or warm-up not > 0, sensitivity seeds outside
// 1..repeats).
absl::StatusOr<Composition> Compose(const ComposeOptions& options,
                                    const StepRunner& runner,
                                    const Progress& progress = nullptr);

// One composition of several that share the workers (ComposeAll): its
// options (their `jobs` not read) and the runner of its runs.
struct Composing {
  ComposeOptions options;
  StepRunner runner;
};

// Composes each as Compose(options, runner) would, their runs balanced
// together on `jobs` workers (0: every core): the result is the same for any
// number of workers. The first composition (in order) with a failed run or
// bad options is the error; jobs < 0 is InvalidArgument.
absl::StatusOr<std::vector<Composition>> ComposeAll(
    const std::vector<Composing>& compositions, int jobs,
    const Progress& progress = nullptr);

// The three fields whose cost most lowers RPS when it grows (most negative
// elasticity first; ties in field order), fewer if fewer are negative.
std::vector<size_t> TopThree(const std::vector<Elasticity>& row);

// Per field of TopThree(row): whether its range over the seeds (lowest to
// highest) lies apart from those of the fields ranked next to it, all of
// row's fields in the same order (one never run is 0 to 0). A field whose
// range overlaps a neighbour's may trade places with it on other seeds.
std::vector<bool> ApartFromNeighbours(const std::vector<Elasticity>& row);

// A field the command line set in place of the file's value
// (--db-round-trip-ms): part of the calibration a run used, so of its
// identity.
struct CalibrationOverride {
  std::string field;  // a sim::CalibrationFields() name
  double value = 0;
};

// Where the calibration came from, printed with every table.
struct CalibrationIdentity {
  std::string name;  // the file's "name"
  std::string path;  // as given on the command line
  std::string hash;  // IdentityHash of the file's bytes and the overrides
  // One per sim::CalibrationFields() entry (or empty: reads no table row).
  // A step whose case-study row any field reads is scored as an input, the
  // others as held out: predictions.
  std::vector<sim::Provenance> provenance = {};
  std::vector<CalibrationOverride> overrides = {};  // in the order applied
};

// "db_round_trip_ms=0.5,..." (numbers as absl::StrCat prints them); "" for
// none.
std::string OverridesText(const std::vector<CalibrationOverride>& overrides);
// ContentHash of the file's bytes alone without overrides (the file's own
// identity); with them, of the bytes followed by a line naming them, so a
// run with an override never shares the file's identity.
std::string IdentityHash(std::string_view bytes,
                         const std::vector<CalibrationOverride>& overrides);

// The rig (closed-loop clients, open-loop rate) among the fields, the steps
// table beside the case study's figures (each step marked "input" or
// "held out" from id.provenance, and whether its RPS is the load generator's
// ceiling), the CPU by category (the framework column named for where its
// cost comes from), the caps with the full ones, outcomes (saying whether
// both ends are steady), the MVA estimate, notes (which cores each CPU
// column counts, the cache step's hit ratio against the published one); in
// the case study's order the agreement with its step factors and directions
// and, for a calibration with no measured field (seed-h2), its RPS (absolute
// figures from another machine and stack do not compare), held-out rows
// apart from input rows; for a measured one, the steps a copied field sets
// and a flat join's reason; the tail (p99 over mean against the case
// study's, the mechanisms the model has and lacks); with sensitivity, one
// more table of elasticities and the top three per step.
//
// Its JSON (core::ToJson, the record layout): {calibration: {name, path, hash,
// overrides: {field: value}}, seeds, prices, closed_loop_clients,
// open_loop_rate_per_s, steps: [{..., mark, generator_ceiling, caps: {...,
// full}, cpu_share: {...}}], fidelity?: {scored_on, input_rows, held_out_rows,
// held_out: {...}, input: {...}} (within_30_pct and within_15_pct only when
// scored_on is rps_and_factors; factor_within_30_pct always), outcomes: {...,
// from_steady_runs, unsteady_steps}, mva: [{name, mva_rps, rps, difference_pct,
// bottleneck, bound_rps, knee_clients, total_demand_ms, stations: [{name, kind,
// servers, demand_ms}], agrees, reason}], and with sensitivity
// sensitivity_delta, sensitivity_window_s, sensitivity_warmup_s (and each
// step's elasticity and what_to_fix_next)}. Deterministic: the same
// Composition gives the same bytes.
core::Document ToDocument(const Composition& c, const CalibrationIdentity& id,
                          const models::CostOptions& cost);

}  // namespace perflab::capstone

#endif  // PERFLAB_TOOLS_CAPSTONE_COMPOSER_H_
