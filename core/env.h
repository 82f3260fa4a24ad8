// Env: the seam between perflab and its surroundings (a monotonic clock,
// environment variables, the running binary's path and the files beside
// it), in the manner of LevelDB's Env, so that code which
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
  // The running binary's absolute path, or nullopt when it cannot be told.
  virtual std::optional<std::string> ExecutablePath() const = 0;
  // A whole file, or nullopt when it cannot be read.
  virtual std::optional<std::string> ReadFile(std::string_view path) const = 0;
  // Whether `path` names a regular file (symbolic links followed).
  virtual bool FileExists(std::string_view path) const = 0;

  // The process's own clock (steady_clock), environment, /proc/self/exe and
  // file system.
  static const Env& Default();
};

// A hand-driven clock, a private set of variables and an in-memory file
// system (no binary path and no files until set), for tests.
class FakeEnv : public Env {
 public:
  int64_t NowNanos() const override { return now_.load(); }
  std::optional<std::string> GetVar(std::string_view name) const override;
  std::optional<std::string> ExecutablePath() const override;
  std::optional<std::string> ReadFile(std::string_view path) const override;
  bool FileExists(std::string_view path) const override;

  void AdvanceNanos(int64_t delta) { now_ += delta; }
  void SetVar(std::string name, std::string value);
  void SetExecutablePath(std::string path);
  void SetFile(std::string path, std::string content);

 private:
  std::atomic<int64_t> now_{0};
  mutable Mutex mu_;
  std::map<std::string, std::string, std::less<>> vars_ ABSL_GUARDED_BY(mu_);
  std::optional<std::string> exe_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, std::string, std::less<>> files_ ABSL_GUARDED_BY(mu_);
};

}  // namespace perflab::core

#endif  // PERFLAB_CORE_ENV_H_
