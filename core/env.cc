#include "core/env.h"

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>

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
  std::optional<std::string> ExecutablePath() const override {
    std::error_code ec;
    std::filesystem::path exe =
        std::filesystem::read_symlink("/proc/self/exe", ec);
    if (ec || exe.empty()) return std::nullopt;
    return exe.string();
  }
  std::optional<std::string> ReadFile(std::string_view path) const override {
    std::ifstream in{std::string(path), std::ios::binary};
    if (!in) return std::nullopt;
    std::string text((std::istreambuf_iterator<char>(in)),
                     std::istreambuf_iterator<char>());
    if (in.bad()) return std::nullopt;
    return text;
  }
  bool FileExists(std::string_view path) const override {
    std::error_code ec;
    return std::filesystem::is_regular_file(path, ec);
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

std::optional<std::string> FakeEnv::ExecutablePath() const {
  MutexLock lock(&mu_);
  return exe_;
}

std::optional<std::string> FakeEnv::ReadFile(std::string_view path) const {
  MutexLock lock(&mu_);
  auto it = files_.find(path);
  if (it == files_.end()) return std::nullopt;
  return it->second;
}

bool FakeEnv::FileExists(std::string_view path) const {
  MutexLock lock(&mu_);
  return files_.find(path) != files_.end();
}

void FakeEnv::SetExecutablePath(std::string path) {
  MutexLock lock(&mu_);
  exe_ = std::move(path);
}

void FakeEnv::SetFile(std::string path, std::string content) {
  MutexLock lock(&mu_);
  files_[std::move(path)] = std::move(content);
}

}  // namespace perflab::core
