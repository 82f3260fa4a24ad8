// coordinated-omission (laws chapter): one target schedule, one frozen server,
// three ways to measure it. Each client gets its own server (a separate
// Simulation), so the clients cannot disturb each other.
#include <algorithm>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "models/histogram.h"
#include "sim/cpu.h"
#include "sim/scenarios/internal/common.h"
#include "sim/scenarios/internal/plot_tables.h"

namespace perflab::sim {
namespace {

struct Setup {
  Time interval, duration, service;
  Freezes freezes;
  int64_t target;  // requests the schedule intends to send
};

// The server answers after `service` ns of unfrozen time.
Simulation::DelayAwaiter Serve(Simulation& sim, const Setup& s) {
  return sim.Until(s.freezes.Finish(sim.now(), s.service));
}

// (1) and (2): one connection that waits for each response. It sends on the
// schedule when it can; late, it sends at once and then resumes the schedule
// from that send. `intended` picks where latency is measured from.
Process ClosedClient(Simulation& sim, const Setup& s, bool intended,
                     LatencyRecorder& out) {
  if (!intended) {
    Time send = 0;
    while (send < s.duration) {
      co_await sim.Until(send);
      co_await Serve(sim, s);
      out.Record(sim.now() - send);
      send = std::max(send + s.interval, sim.now());
    }
  } else {
    // Every scheduled request is sent (late if the previous one is still
    // outstanding) and timed from its slot on the schedule.
    for (int64_t i = 0; i < s.target; ++i) {
      const Time slot = i * s.interval;
      co_await sim.Until(std::max(slot, sim.now()));
      co_await Serve(sim, s);
      out.Record(sim.now() - slot);
    }
  }
}

Process OpenRequest(Simulation& sim, const Setup& s, Time slot,
                    LatencyRecorder& out) {
  co_await Serve(sim, s);
  out.Record(sim.now() - slot);
}

// (3): arrivals on the schedule whatever is outstanding (ground truth).
Process OpenClient(Simulation& sim, const Setup& s, LatencyRecorder& out) {
  for (int64_t i = 0; i < s.target; ++i) {
    co_await sim.Until(i * s.interval);
    sim.Spawn(OpenRequest(sim, s, i * s.interval, out));
  }
}

absl::StatusOr<Setup> SetupFrom(const Params& p) {
  Setup s;
  const double rate = p.Number("rate_per_s");
  // One interval longer than the run would schedule no second request, and
  // past 292 years it is no longer a count of ns (the run never ended).
  if (1.0 / rate > p.Number("duration_s")) {
    return absl::InvalidArgumentError(absl::StrCat(
        "key 'rate_per_s' = '", p.Text("rate_per_s"),
        "' with duration_s = ", p.Text("duration_s"),
        ": fewer than one request in the run; accepted rate_per_s >= 1 / "
        "duration_s"));
  }
  s.interval = SecToNs(1.0 / rate);
  s.duration = SecToNs(p.Number("duration_s"));
  s.service = MsToNs(p.Number("service_ms"));
  const Time freeze_start = SecToNs(p.Number("freeze_start_s"));
  const Time freeze_end = freeze_start + MsToNs(p.Number("freeze_ms"));
  if (freeze_end > s.duration) {
    return absl::InvalidArgumentError(absl::StrCat(
        "key 'freeze_ms' = '", p.Text("freeze_ms"),
        "' with freeze_start_s = ", p.Text("freeze_start_s"),
        ": the freeze must end within the run (duration_s = ",
        p.Text("duration_s"),
        "); accepted freeze_start_s + freeze_ms / 1000 <= duration_s"));
  }
  s.freezes.Add(freeze_start, freeze_end);
  s.target = (s.duration + s.interval - 1) / s.interval;
  return s;
}

struct Client {
  const char* name;
  LatencyRecorder rec;
};

// The closed-actual samples corrected after the fact, from a histogram and
// exactly.
absl::Status AddCorrected(core::Document& doc, const Setup& s,
                          const LatencyRecorder& closed) {
  // HdrHistogram's after-the-fact fix: re-create the samples a client that
  // kept its schedule would have recorded (3 significant digits).
  absl::StatusOr<models::Histogram> corrected =
      models::Histogram::Create({1, int64_t{24} * 3600 * kSec, 3});
  if (!corrected.ok()) return corrected.status();
  for (Time v : closed.samples()) corrected->RecordCorrected(v, s.interval);
  doc.Set("closed_corrected_samples",
          "closed-actual with expected-interval correction: samples",
          corrected->Count());
  doc.Set("closed_corrected_p99_ms",
          "closed-actual with expected-interval correction: p99 (ms, "
          "histogram)",
          ToMs(corrected->Percentile(99)), 1);
  // The same corrected samples kept exactly: the histogram's 3 significant
  // digits are what HdrHistogram would print, this is the true nearest rank.
  LatencyRecorder exact(size_t{1} << 40);
  for (Time v : closed.samples()) {
    exact.Record(v);
    for (Time missing = v - s.interval; missing >= s.interval;
         missing -= s.interval) {
      exact.Record(missing);
    }
  }
  doc.Set("closed_corrected_exact_p99_ms",
          "closed-actual with expected-interval correction: p99 (ms, exact)",
          exact.PercentileMs(99), 1);
  return absl::OkStatus();
}

// A closed loop whose server needs longer than the schedule's interval
// falls behind without any freeze: it can send at most one request per
// service time. That shortfall is not the freeze's doing. Returns it.
int64_t AddSaturation(core::Document& doc, const Setup& s, double rate,
                      SteadyVerdict& verdict) {
  const double capacity_per_s = 1e9 / static_cast<double>(s.service);
  SteadyInputs steady;
  steady.offered_per_s = rate;
  steady.capacity_per_s = capacity_per_s;
  steady.load_knob = "rate_per_s (or service_ms)";
  verdict = CheckSteady(steady);
  AddSteadyFields(doc, verdict);
  const int64_t saturation_shortfall =
      verdict.steady
          ? 0
          : s.target - static_cast<int64_t>(static_cast<double>(s.duration) /
                                            static_cast<double>(s.service));
  doc.Set("never_issued_saturation",
          "never sent because the loop was saturated, not the freeze",
          std::max<int64_t>(0, saturation_shortfall));
  return saturation_shortfall;
}

void AddClientsTables(core::Document& doc, const Client (&clients)[3]) {
  core::Table& t = doc.AddTable("clients", "Clients",
                                {{"name", "client"},
                                 {"samples", "samples"},
                                 {"p50_ms", "p50 (ms)", 1},
                                 {"p99_ms", "p99 (ms)", 1},
                                 {"p999_ms", "p99.9 (ms)", 1},
                                 {"max_ms", "max (ms)", 1}});
  for (const Client& c : clients) {
    t.Add({std::string(c.name), c.rec.Count(), c.rec.PercentileMs(50),
           c.rec.PercentileMs(99), c.rec.PercentileMs(99.9), c.rec.MaxMs()});
  }
  // The three percentile curves on one chart (tools/plots).
  AddSpectrumTable(doc, {{"closed_actual", &clients[0].rec},
                         {"closed_intended", &clients[1].rec},
                         {"open", &clients[2].rec}});
  doc.Note(
      "closed-actual waits for each response and times from its actual send: "
      "the freeze costs one slow sample and the requests it would have sent "
      "are never issued.");
  doc.Note(
      "closed-intended times the same single connection from the schedule; "
      "open sends on the schedule regardless (ground truth).");
  doc.Note(
      "Client percentiles are exact nearest-rank over all samples; the "
      "corrected p99 is shown from a 3-significant-digit histogram (as "
      "HdrHistogram reports it) and exact.");
}

// The case study's figures, when this run is its setup.
void AddCaseStudyRows(core::Document& doc, const Params& p,
                      const Client (&clients)[3]) {
  namespace cs = case_study;
  if (p.Number("rate_per_s") == 100 && p.Number("duration_s") == 60 &&
      p.Number("service_ms") == 5 && p.Number("freeze_start_s") == 20 &&
      p.Number("freeze_ms") == 5000) {
    AddCaseStudyTable(
        doc,
        {{"closed-actual samples", static_cast<double>(cs::kCoClosedSamples),
          static_cast<double>(clients[0].rec.Count())},
         {"closed-actual max (ms)", cs::kCoClosedMaxMs, clients[0].rec.MaxMs()},
         {"closed-intended p99 (ms)", cs::kCoIntendedP99Ms,
          clients[1].rec.PercentileMs(99)},
         {"open p99 (ms)", cs::kCoOpenP99Ms, clients[2].rec.PercentileMs(99)}});
  }
}

absl::StatusOr<core::Document> Run(const Params& p, uint64_t) {
  absl::StatusOr<Setup> setup = SetupFrom(p);
  if (!setup.ok()) return setup.status();
  const Setup& s = *setup;
  const double rate = p.Number("rate_per_s");
  const Budget budget = BudgetFrom(p);
  Client clients[] = {{"closed-actual", LatencyRecorder()},
                      {"closed-intended", LatencyRecorder()},
                      {"open", LatencyRecorder()}};
  for (int c = 0; c < 3; ++c) {
    Simulation sim(budget);
    if (c == 2) {
      sim.Spawn(OpenClient(sim, s, clients[c].rec));
    } else {
      sim.Spawn(ClosedClient(sim, s, c == 1, clients[c].rec));
    }
    if (absl::Status st = sim.Run(kForever); !st.ok()) return st;
  }

  core::Document doc(
      "Coordinated omission: one freeze, three ways to measure it");
  doc.Set("target_requests", "requests on the schedule", s.target);
  doc.Set("never_issued", "requests the closed loop never sent",
          s.target - clients[0].rec.Count());
  if (absl::Status st = AddCorrected(doc, s, clients[0].rec); !st.ok()) {
    return st;
  }
  SteadyVerdict verdict;
  const int64_t saturation_shortfall = AddSaturation(doc, s, rate, verdict);
  AddClientsTables(doc, clients);
  if (!verdict.steady) {
    doc.Note(absl::StrCat(
        "The closed loop is saturated (service ", p.Text("service_ms"),
        " ms against one request every ", absl::StrFormat("%g", 1e3 / rate),
        " ms): of the ", s.target - clients[0].rec.Count(),
        " requests never sent, about ",
        std::max<int64_t>(0, saturation_shortfall),
        " are the saturation's, not the freeze's."));
  }
  AddCaseStudyRows(doc, p, clients);
  return doc;
}

// The schedule's requests, sent by each of the three clients and corrected
// after the fact: about 3e6 a second here. The requests the open client
// sends into the freeze wait there all at once, their memory new, and cost
// about 20 times a served one (measured: 1e5/s over 100 s took 3.7 s of
// CPU; over 12 s with an 11 s freeze, 9.5 s).
double ScheduledRequests(const Params& p) {
  return p.Number("rate_per_s") *
         (p.Number("duration_s") + 20 * p.Number("freeze_ms") / 1000);
}

}  // namespace

Scenario CoordinatedOmissionScenario() {
  return {
      "coordinated-omission",
      "a 5 s freeze measured by a closed loop, the same loop timed from the "
      "schedule, and an open loop",
      {NumKey("rate_per_s", "100", 0, 100000, "target request rate (req/s)",
              LowerBound::kOpen),
       NumKey("duration_s", "60", 0, 86400, "length of the test (s)",
              LowerBound::kOpen),
       NumKey("service_ms", "5", 0, 60000, "server time per request (ms)",
              LowerBound::kOpen),
       NumKey("freeze_start_s", "20", 0, 86400, "when the server freezes (s)"),
       NumKey("freeze_ms", "5000", 0, 86400000,
              "how long it stays frozen (ms)"),
       MaxPendingKey()},
      Run,
      {"rate_per_s x (duration_s + 20 x freeze_ms / 1000)", 1e7, "requests",
       ScheduledRequests,
       "20 x freeze_ms / 1000: the requests held by the freeze wait all at "
       "once and cost about 20 times a served one"}};
}

const ScenarioRegistration kCoordinatedOmission(CoordinatedOmissionScenario);

}  // namespace perflab::sim
