#include "core/data_paths.h"

#include <filesystem>
#include <optional>

#include "absl/strings/str_cat.h"

namespace perflab::core {
namespace {

// The value of `key` in a kPathsFile text, or "" when it has none.
std::string ValueOf(std::string_view text, std::string_view key) {
  while (!text.empty()) {
    const size_t end = text.find('\n');
    std::string_view line = text.substr(0, end);
    text = end == std::string_view::npos ? "" : text.substr(end + 1);
    if (line.starts_with('#') || !line.starts_with(key)) continue;
    line.remove_prefix(key.size());
    if (line.starts_with('=')) return std::string(line.substr(1));
  }
  return "";
}

// A folder path without a trailing '/' (except the root).
std::string Normal(const std::filesystem::path& p) {
  std::string s = p.lexically_normal().string();
  if (s.size() > 1 && s.back() == '/') s.pop_back();
  return s;
}

}  // namespace

std::string DataPaths::Data(std::string_view relative) const {
  std::string path = data_dir.empty() ? "" : data_dir + "/";
  path += relative;
  return path;
}

DataPaths FindDataPaths(const Env& env) {
  DataPaths paths;
  const std::optional<std::string> exe = env.ExecutablePath();
  if (!exe.has_value()) return paths;
  const std::filesystem::path dir = std::filesystem::path(*exe).parent_path();
  if (std::optional<std::string> text =
          env.ReadFile(Normal(dir / kPathsFile))) {
    const std::string source = ValueOf(*text, "source_dir");
    const std::string binary = ValueOf(*text, "binary_dir");
    if (!source.empty()) {
      paths.origin = DataPaths::Origin::kBuildTree;
      paths.data_dir = source;
      paths.repo = source;
      if (!binary.empty()) paths.bench_dir = absl::StrCat(binary, "/bench");
      return paths;
    }
  }
  const std::string installed = Normal(dir / kInstalledDataDir);
  if (env.FileExists(absl::StrCat(installed, "/", kInstalledMarker))) {
    paths.origin = DataPaths::Origin::kInstalled;
    paths.data_dir = installed;
  }
  return paths;
}

}  // namespace perflab::core
