// The --sensitivity part of a composition's document: what to fix next,
// every elasticity, each step's JSON elasticities and the note on how the
// runs were made. Pure functions of the Composition, as the rest of
// composer_output.cc.
#include "tools/capstone/internal/sensitivity_output.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/case_study.h"
#include "sim/order_service/calibration.h"

namespace perflab::capstone {
namespace internal {
namespace {

// "first, third": the ranks of TopThree that ApartFromNeighbours marks, or
// "none".
std::string ApartRanks(const std::vector<bool>& apart) {
  static constexpr const char* kRank[] = {"first", "second", "third"};
  std::vector<std::string> ranks;
  for (size_t k = 0; k < apart.size() && k < 3; ++k) {
    if (apart[k]) ranks.emplace_back(kRank[k]);
  }
  return ranks.empty() ? std::string("none") : absl::StrJoin(ranks, ", ");
}

}  // namespace

// What to fix next (each step's three most negative elasticities) and every
// elasticity measured; nothing when the run had no --sensitivity. With
// several sensitivity seeds, also each elasticity's range over them and
// which ranks it leaves apart.
void AddSensitivityTables(core::Document& doc, const Composition& c) {
  if (c.sensitivity.empty()) return;
  const bool ranges = c.sensitivity_seeds > 1;
  const std::vector<sim::CalibrationField>& fields = sim::CalibrationFields();
  std::vector<core::Column> next_columns = {
      {"name", "step"},
      {"first", "first"},
      {"first_elasticity", "elasticity", 3},
      {"second", "second"},
      {"second_elasticity", "elasticity", 3},
      {"third", "third"},
      {"third_elasticity", "elasticity", 3}};
  std::vector<core::Column> all_columns = {{"name", "step"},
                                           {"field", "cost"},
                                           {"minus_rps", "RPS at -delta", 0},
                                           {"plus_rps", "RPS at +delta", 0},
                                           {"elasticity", "elasticity", 3}};
  if (ranges) {
    next_columns.push_back({"apart", "ranks apart over the seeds"});
    all_columns.push_back({"lowest", "lowest", 3});
    all_columns.push_back({"highest", "highest", 3});
  }
  core::Table& next = doc.AddTable(
      "what_to_fix_next",
      absl::StrCat("What to fix next: elasticity of RPS to each cost (+-",
                   c.sensitivity_delta * 100, " %), most negative first"),
      std::move(next_columns));
  core::Table& all = doc.AddTable(
      "sensitivity",
      ranges ? absl::StrCat("Elasticity of RPS to every cost the step reads "
                            "(common random numbers: one run per variant "
                            "and seed, mean of the first ",
                            c.sensitivity_seeds, " seeds)")
             : std::string("Elasticity of RPS to every cost the step reads "
                           "(common random numbers: one run per variant, "
                           "first seed)"),
      std::move(all_columns));
  for (size_t i = 0; i < c.steps.size(); ++i) {
    std::vector<core::Value> row = {std::string(c.steps[i]->name)};
    std::vector<size_t> top = TopThree(c.sensitivity[i]);
    for (size_t k = 0; k < 3; ++k) {
      if (k < top.size()) {
        row.emplace_back(std::string(fields[top[k]].name));
        row.emplace_back(c.sensitivity[i][top[k]].elasticity);
      } else {
        row.emplace_back(std::string("-"));
        row.emplace_back(std::monostate{});
      }
    }
    if (ranges)
      row.emplace_back(ApartRanks(ApartFromNeighbours(c.sensitivity[i])));
    next.Add(std::move(row));
    for (size_t k = 0; k < fields.size(); ++k) {
      const Elasticity& e = c.sensitivity[i][k];
      if (e.minus_rps == 0 && e.plus_rps == 0) continue;
      std::vector<core::Value> cells = {std::string(c.steps[i]->name),
                                        std::string(fields[k].name),
                                        e.minus_rps, e.plus_rps, e.elasticity};
      if (ranges) {
        cells.emplace_back(e.lowest);
        cells.emplace_back(e.highest);
      }
      all.Add(std::move(cells));
    }
  }
}

// A step's elasticity to every cost and its three to fix first; with
// several seeds (`ranges`), also each one's lowest and highest and whether
// each of the three is apart from its neighbours.
void SetElasticity(core::Node& step, const std::vector<Elasticity>& row,
                   bool ranges) {
  const std::vector<sim::CalibrationField>& fields = sim::CalibrationFields();
  core::Node each = core::Node::Record();
  for (size_t k = 0; k < fields.size(); ++k) {
    each.Set(std::string(fields[k].name), row[k].elasticity);
  }
  step.Set("elasticity", std::move(each));
  if (ranges) {
    core::Node lowest = core::Node::Record();
    core::Node highest = core::Node::Record();
    for (size_t k = 0; k < fields.size(); ++k) {
      lowest.Set(std::string(fields[k].name), row[k].lowest);
      highest.Set(std::string(fields[k].name), row[k].highest);
    }
    step.Set("elasticity_lowest", std::move(lowest));
    step.Set("elasticity_highest", std::move(highest));
  }
  core::Node next = core::Node::List();
  for (size_t k : TopThree(row)) next.Add(std::string(fields[k].name));
  step.Set("what_to_fix_next", std::move(next));
  if (ranges) {
    core::Node apart = core::Node::List();
    for (bool a : ApartFromNeighbours(row)) apart.Add(a);
    step.Set("what_to_fix_next_apart", std::move(apart));
  }
}

// How the sensitivity runs were made: deltas, window, warm-up and seeds.
void AddSensitivityNote(core::Document& doc, const Composition& c) {
  if (c.sensitivity.empty()) return;
  const bool several = c.sensitivity_seeds > 1;
  doc.Note(absl::StrCat(
      "Sensitivity: common random numbers. Each cost at -",
      c.sensitivity_delta * 100, " % and +", c.sensitivity_delta * 100,
      " % runs once", several ? " per seed" : "", ", closed loop (",
      c.sensitivity_window_s, " s window after ",
      c.sensitivity_warmup_s == case_study::kRigWarmupS
          ? absl::StrCat("the rig's ", case_study::kRigWarmupS, " s warm-up")
          : absl::StrCat("a ", c.sensitivity_warmup_s,
                         " s warm-up, or the rig's ", case_study::kRigWarmupS,
                         " s where the cache is on"),
      "), with the first ",
      several ? absl::StrCat(
                    c.sensitivity_seeds, " seeds (",
                    absl::StrJoin(c.seeds.begin(),
                                  c.seeds.begin() + c.sensitivity_seeds, ", "),
                    ")")
              : absl::StrCat("seed (", c.seeds.front(), ")"),
      several ? "; each pair's difference is scaled by the step's own run with "
                "its seed, the elasticity is their mean and lowest and highest "
                "their extremes. A rank is apart when its range overlaps "
                "neither the one ranked before nor the one after it; one that "
                "is not may trade places with a neighbour on other seeds."
              : "; their difference is scaled by the step's own run with that "
                "seed.",
      " Costs that are zero, that a step never reads, or whose +-delta "
      "rounds to the same whole cores are not run (elasticity 0)."));
}

}  // namespace internal

namespace {

// Every field of `row`, most negative elasticity first, ties in field order.
std::vector<size_t> MostNegativeFirst(const std::vector<Elasticity>& row) {
  std::vector<size_t> order(row.size());
  for (size_t k = 0; k < row.size(); ++k) order[k] = k;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return row[a].elasticity < row[b].elasticity;
  });
  return order;
}

// How many of `order`'s first three are negative: TopThree's length.
size_t NegativeOfFirstThree(const std::vector<Elasticity>& row,
                            const std::vector<size_t>& order) {
  size_t n = 0;
  while (n < 3 && n < order.size() && row[order[n]].elasticity < 0) ++n;
  return n;
}

}  // namespace

std::vector<size_t> TopThree(const std::vector<Elasticity>& row) {
  std::vector<size_t> order = MostNegativeFirst(row);
  order.resize(NegativeOfFirstThree(row, order));
  return order;
}

std::vector<bool> ApartFromNeighbours(const std::vector<Elasticity>& row) {
  const std::vector<size_t> order = MostNegativeFirst(row);
  const size_t top = NegativeOfFirstThree(row, order);
  std::vector<bool> apart(top);
  for (size_t i = 0; i < top; ++i) {
    const Elasticity& e = row[order[i]];
    const bool below_next =
        i + 1 == order.size() || e.highest < row[order[i + 1]].lowest;
    const bool above_previous = i == 0 || row[order[i - 1]].highest < e.lowest;
    apart[i] = below_next && above_previous;
  }
  return apart;
}

}  // namespace perflab::capstone
