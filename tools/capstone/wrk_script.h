// The Lua script through which wrk, the witness of `capstone --real`, asks
// for the same skewed customer pages as perflab's own client (ids 1 + n*u^3,
// seeded). The script lives in a private directory made for it with mkdtemp
// ($TMPDIR or /tmp, perflab-real-XXXXXX, mode 0700), so no other user can
// predict, replace or read it, and the directory goes with the WrkScript that
// owns it. A WrkScript is not safe to share between threads while it is
// being moved or destroyed; the functions are thread-safe.
#ifndef PERFLAB_TOOLS_CAPSTONE_WRK_SCRIPT_H_
#define PERFLAB_TOOLS_CAPSTONE_WRK_SCRIPT_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "core/env.h"

namespace perflab::capstone {

// The script's text: a `request` function returning GET
// /customers/<id>/orders with id = 1 + floor(customers * u^3), u drawn from
// Lua's generator seeded with `seed`.
std::string WrkScriptText(int64_t customers, uint64_t seed);

class WrkScript {
 public:
  // Makes the private directory under env's TMPDIR (else /tmp) and writes
  // the script into it atomically. Errors name the directory or file.
  static absl::StatusOr<WrkScript> Create(
      int64_t customers, uint64_t seed,
      const core::Env& env = core::Env::Default());

  WrkScript(WrkScript&& other) noexcept;
  WrkScript& operator=(WrkScript&& other) noexcept;
  WrkScript(const WrkScript&) = delete;
  WrkScript& operator=(const WrkScript&) = delete;
  // Removes the script and its directory.
  ~WrkScript();

  const std::string& path() const { return path_; }  // for wrk -s
  const std::string& dir() const { return dir_; }

 private:
  WrkScript(std::string dir, std::string path);
  void Remove();

  std::string dir_, path_;
};

}  // namespace perflab::capstone

#endif  // PERFLAB_TOOLS_CAPSTONE_WRK_SCRIPT_H_
