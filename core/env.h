// Env: the seam between perflab and its surroundings (a monotonic clock and
// environment variables), in the manner of LevelDB's Env, so that code which
// times itself or reads a setting can be tested with a FakeEnv instead of the
// real process. Env::Default() is the real one; both are thread-safe.
#ifndef PERFLAB_CORE_ENV_H_
#define PERFLAB_CORE_ENV_H_

#include <atomic>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "absl/base/thread_annotations.h"
#include "core/mutex.h"

namespace perflab::core {

class Env {
 public:
  virtual ~Env() = default;
  // Nanoseconds on a monotonic clock with an arbitrary origin.
  virtual int64_t NowNanos() const = 0;
  // The variable's value, or nullopt when it is unset or empty.
  virtual std::optional<std::string> GetVar(std::string_view name) const = 0;

  // The process's own clock (steady_clock) and environment.
  static const Env& Default();
};

// A hand-driven clock and a private set of variables, for tests.
class FakeEnv : public Env {
 public:
  int64_t NowNanos() const override { return now_.load(); }
  std::optional<std::string> GetVar(std::string_view name) const override;

  void AdvanceNanos(int64_t delta) { now_ += delta; }
  void SetVar(std::string name, std::string value);

 private:
  std::atomic<int64_t> now_{0};
  mutable Mutex mu_;
  std::map<std::string, std::string, std::less<>> vars_ ABSL_GUARDED_BY(mu_);
};

}  // namespace perflab::core

#endif  // PERFLAB_CORE_ENV_H_
