// libFuzzer target: the HdrHistogram V2 decoder on arbitrary bytes. The
// first byte chooses what the rest is: 0, the inflated payload (cookie,
// header fields, counts), which is compressed and wrapped here so that
// mutations reach the header and the counts past zlib's checksum; anything
// else, the whole encoding (wrapper cookie, length, zlib stream). Either is
// base64-encoded, as partial files carry it. Any input must give a
// histogram or a clean one-line InvalidArgument: no crash, hang, leak or
// undefined behaviour; what decodes must encode and decode again to the same
// counts.
#include <zlib.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "absl/strings/escaping.h"
#include "models/hdr_codec.h"

namespace {

std::string Wrapped(std::string_view payload) {
  uLongf len = compressBound(payload.size());
  std::string packed(len, '\0');
  if (compress(reinterpret_cast<Bytef*>(packed.data()), &len,
               reinterpret_cast<const Bytef*>(payload.data()),
               payload.size()) != Z_OK) {
    std::abort();
  }
  packed.resize(len);
  std::string out = {'\x1c', '\x84', '\x93', '\x14'};
  for (int i = 3; i >= 0; --i) out.push_back(char((len >> (8 * i)) & 255));
  return out + packed;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  std::string_view rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  const std::string bytes = data[0] == 0 ? Wrapped(rest) : std::string(rest);
  auto h = perflab::models::DecodeHdrBase64(absl::Base64Escape(bytes));
  if (!h.ok()) {
    if (h.status().message().find('\n') != std::string_view::npos) {
      std::abort();  // errors are one line
    }
    return 0;
  }
  auto again =
      perflab::models::DecodeHdrBase64(perflab::models::EncodeHdrBase64(*h));
  if (!again.ok() || again->Count() != h->Count() ||
      again->CountsLength() != h->CountsLength()) {
    std::abort();
  }
  for (size_t i = 0; i < h->CountsLength(); ++i) {
    if (again->CountAtIndex(i) != h->CountAtIndex(i)) std::abort();
  }
  (void)h->Percentile(99.9);
  (void)h->Mean();
  return 0;
}
