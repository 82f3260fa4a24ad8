// libFuzzer target: perflab compare's reader of perflab results (--format
// json output): core::ParseJson, then DiffResults of the document against
// itself and against an empty object. Any input must parse or be refused,
// and any document must diff: no crash, stack overflow, hang, leak or
// undefined behaviour.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "core/json.h"
#include "tools/compare/doc_diff.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  // The flags of perflab compare's reader.
  constexpr unsigned kFlags =
      rapidjson::kParseFullPrecisionFlag | rapidjson::kParseNanAndInfFlag;
  rapidjson::Document doc;
  if (perflab::core::ParseJson<kFlags>(doc, text).IsError()) return 0;
  if (!doc.IsObject()) return 0;
  rapidjson::Document empty;
  empty.SetObject();
  (void)perflab::compare::DiffResults(doc, empty);
  (void)perflab::compare::DiffResults(empty, doc);
  (void)perflab::compare::DiffResults(doc, doc);
  return 0;
}
