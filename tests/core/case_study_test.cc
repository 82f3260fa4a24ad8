// The case study's figures are read by name: each step's row of the
// ten-step table, and each named figure under its constant's name. The
// expected values are the case study's printed table and chapters, typed
// here independently of core/case_study.h.
#include "core/case_study.h"

#include <iterator>
#include <set>
#include <string>
#include <string_view>

#include "gtest/gtest.h"

namespace perflab::case_study {
namespace {

TEST(CaseStudy, RowsAreReadByTheirStep) {
  struct Expected {
    CapstoneStep step;
    std::string_view name;
    double rps;
  };
  // The capstone chapter's table: median RPS of each step.
  const Expected expected[] = {
      {CapstoneStep::kBaseline, "baseline", 86},
      {CapstoneStep::kIndex, "index", 691},
      {CapstoneStep::kJoin, "join", 1224},
      {CapstoneStep::kKeepAlive, "keep-alive", 263},
      {CapstoneStep::kTcpNodelay, "tcp-nodelay", 1762},
      {CapstoneStep::kPool8, "pool-8", 1973},
      {CapstoneStep::kVirtualThreads, "virtual-threads", 2469},
      {CapstoneStep::kCache, "cache", 5293},
      {CapstoneStep::kHeap768, "heap-768", 5214},
      {CapstoneStep::kRightSize, "right-size", 6066},
  };
  for (const Expected& e : expected) {
    EXPECT_EQ(CapstoneRow(e.step).id, e.step) << e.name;
    EXPECT_EQ(CapstoneRow(e.step).step, e.name);
    EXPECT_EQ(CapstoneRow(e.step).rps, e.rps) << e.name;
  }
  EXPECT_EQ(std::size(kCapstoneTable), std::size(expected));
}

TEST(CaseStudy, NamedFiguresCarryTheirConstantsNames) {
  std::set<std::string> names;
  for (const NamedFigure& f : kNamedFigures) names.insert(f.name);
  EXPECT_EQ(names.size(), std::size(kNamedFigures)) << "a name repeats";
  // The pools chapter's warm loopback call (569 us), the baseline's heap
  // (256 MiB) and its live set (206 MiB), the load generator's 4 cores.
  const struct {
    FigureId id;
    std::string_view name;
    double value;
  } expected[] = {{FigureId::kHttpCallUs, "kHttpCallUs", 569},
                  {FigureId::kHeapMib, "kHeapMib", 256},
                  {FigureId::kLiveSetMib, "kLiveSetMib", 206},
                  {FigureId::kGeneratorCores, "kGeneratorCores", 4}};
  for (const auto& e : expected) {
    int found = 0;
    for (const NamedFigure& f : kNamedFigures) {
      if (f.id != e.id) continue;
      ++found;
      EXPECT_EQ(f.name, e.name);
      EXPECT_EQ(f.value, e.value) << e.name;
    }
    EXPECT_EQ(found, 1) << e.name;
  }
}

}  // namespace
}  // namespace perflab::case_study
