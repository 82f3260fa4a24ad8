// libFuzzer target: the sweep partial reader (perflab sweep-merge's input)
// on arbitrary bytes, and the merge and aggregation of what it accepts. Any
// input must give a partial or a clean one-line InvalidArgument: no crash,
// hang, leak, huge allocation or undefined behaviour; what parses must write
// back and parse again.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "tools/sweep/aggregate.h"
#include "tools/sweep/partial.h"

namespace {

void OneLine(const absl::Status& s) {
  if (s.message().find('\n') != std::string_view::npos) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  auto part = perflab::sweep::ParsePartial(text, "part.json");
  if (!part.ok()) {
    OneLine(part.status());
    return 0;
  }
  auto again = perflab::sweep::ParsePartial(
      perflab::sweep::PartialToJson(*part), "again.json");
  if (!again.ok()) std::abort();
  // A one-shard sweep merges and aggregates on its own; others name the
  // missing shards.
  auto merged = perflab::sweep::MergeParts({*part}, {"part.json"});
  if (!merged.ok()) {
    OneLine(merged.status());
    return 0;
  }
  auto doc = perflab::sweep::Aggregate(merged->experiment, merged->runs);
  if (!doc.ok()) OneLine(doc.status());
  return 0;
}
