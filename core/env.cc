#include "core/env.h"

#include <chrono>
#include <cstdlib>

namespace perflab::core {
namespace {

class RealEnv : public Env {
 public:
  int64_t NowNanos() const override {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
  }
  std::optional<std::string> GetVar(std::string_view name) const override {
    // getenv is safe to call concurrently as long as nobody calls setenv,
    // which perflab never does.
    const char* value = std::getenv(std::string(name).c_str());
    if (value == nullptr || *value == '\0') return std::nullopt;
    return std::string(value);
  }
};

}  // namespace

const Env& Env::Default() {
  static const RealEnv* env = new RealEnv;
  return *env;
}

std::optional<std::string> FakeEnv::GetVar(std::string_view name) const {
  MutexLock lock(&mu_);
  auto it = vars_.find(name);
  if (it == vars_.end() || it->second.empty()) return std::nullopt;
  return it->second;
}

void FakeEnv::SetVar(std::string name, std::string value) {
  MutexLock lock(&mu_);
  vars_[std::move(name)] = std::move(value);
}

}  // namespace perflab::core
