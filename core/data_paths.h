// Where perflab finds, at run time, the files it reads besides its input:
// the benchmark map and the seed calibration (`perflab calibrate`), the
// scripts it runs (tools/bench-commits, tools/plots/history.py), the
// benchmark binaries and the git repository `perflab history` measures.
// No path of the machine that built it is compiled in:
//  - a binary of a build tree finds kPathsFile beside itself, written by
//    CMake (tools/CMakeLists.txt): the checkout and the build folder;
//  - an installed one finds kInstalledDataDir from its own folder
//    (cmake/PerflabInstall.cmake puts those files there);
//  - any other reads them relative to the current directory (a checkout's
//    root, as ctest runs the tests), and the flags that name them say where.
// Flags override every default. Thread-safe (it only reads).
#ifndef PERFLAB_CORE_DATA_PATHS_H_
#define PERFLAB_CORE_DATA_PATHS_H_

#include <string>
#include <string_view>

#include "core/env.h"

namespace perflab::core {

// Beside a build tree's binary: lines "source_dir=PATH" and
// "binary_dir=PATH" ('#' starts a comment line).
inline constexpr char kPathsFile[] = "perflab.paths";
// From an installed binary's folder (<prefix>/bin) to its data.
inline constexpr char kInstalledDataDir[] = "../share/perflab";
// The file that marks kInstalledDataDir as perflab's installed data.
inline constexpr char kInstalledMarker[] = "bench/benchmarks.json";

struct DataPaths {
  enum class Origin { kBuildTree, kInstalled, kCurrentDirectory };
  Origin origin = Origin::kCurrentDirectory;
  // Holds bench/, fixtures/ and tools/ as a checkout does; "" is the
  // current directory.
  std::string data_dir;
  // Holds the bench_<family> binaries; "" when none is known (an installed
  // perflab has none).
  std::string bench_dir;
  // The git repository `perflab history` measures by default.
  std::string repo = ".";

  // `relative` (a checkout-relative path) under data_dir.
  std::string Data(std::string_view relative) const;
};

// The paths of the running binary, as the header says.
DataPaths FindDataPaths(const Env& env);

}  // namespace perflab::core

#endif  // PERFLAB_CORE_DATA_PATHS_H_
