// core::FindDataPaths on a FakeEnv: the build tree's paths file beside the
// binary, the installed share/perflab, else the current directory. The
// expected paths are written out by hand from the layouts in data_paths.h.
#include "core/data_paths.h"

#include "core/env.h"
#include "gtest/gtest.h"

namespace perflab::core {
namespace {

using Origin = DataPaths::Origin;

TEST(DataPaths, BuildTreeReadsThePathsFileBesideTheBinary) {
  FakeEnv env;
  env.SetExecutablePath("/src/build/rel/tools/perflab");
  env.SetFile("/src/build/rel/tools/perflab.paths",
              "# written by CMake\n"
              "source_dir=/src\n"
              "binary_dir=/src/build/rel\n");
  const DataPaths p = FindDataPaths(env);
  EXPECT_EQ(p.origin, Origin::kBuildTree);
  EXPECT_EQ(p.data_dir, "/src");
  EXPECT_EQ(p.bench_dir, "/src/build/rel/bench");
  EXPECT_EQ(p.repo, "/src");
  EXPECT_EQ(p.Data("bench/benchmarks.json"), "/src/bench/benchmarks.json");
}

TEST(DataPaths, KeysAreFoundInAnyOrderAndUnknownLinesAreSkipped) {
  FakeEnv env;
  env.SetExecutablePath("/b/perflab");
  env.SetFile("/b/perflab.paths",
              "binary_dir=/b\nsource_dirx=/wrong\nsource_dir=/s\n");
  const DataPaths p = FindDataPaths(env);
  EXPECT_EQ(p.data_dir, "/s");
  EXPECT_EQ(p.bench_dir, "/b/bench");
}

TEST(DataPaths, InstalledBinaryUsesShareBesideItsBin) {
  FakeEnv env;
  env.SetExecutablePath("/opt/p/bin/perflab");
  env.SetFile("/opt/p/share/perflab/bench/benchmarks.json", "{}");
  const DataPaths p = FindDataPaths(env);
  EXPECT_EQ(p.origin, Origin::kInstalled);
  EXPECT_EQ(p.data_dir, "/opt/p/share/perflab");
  EXPECT_EQ(p.Data("tools/plots/history.py"),
            "/opt/p/share/perflab/tools/plots/history.py");
  // No benchmark binaries are installed; the repository is the caller's.
  EXPECT_EQ(p.bench_dir, "");
  EXPECT_EQ(p.repo, ".");
}

TEST(DataPaths, ThePathsFileWinsOverInstalledData) {
  FakeEnv env;
  env.SetExecutablePath("/opt/p/bin/perflab");
  env.SetFile("/opt/p/bin/perflab.paths", "source_dir=/src\n");
  env.SetFile("/opt/p/share/perflab/bench/benchmarks.json", "{}");
  const DataPaths p = FindDataPaths(env);
  EXPECT_EQ(p.origin, Origin::kBuildTree);
  EXPECT_EQ(p.data_dir, "/src");
  EXPECT_EQ(p.bench_dir, "");  // the file names no binary_dir
}

TEST(DataPaths, ElsewhereEverythingIsRelativeToTheCurrentDirectory) {
  FakeEnv env;
  env.SetExecutablePath("/src/build/rel/tests/core/core_test");
  // Files one folder up, or a share/ without the marker, are not used.
  env.SetFile("/src/build/rel/tests/perflab.paths", "source_dir=/src\n");
  env.SetFile("/src/build/rel/tests/share/perflab/tools/bench-commits", "");
  env.SetFile("/src/build/rel/tests/core/perflab.paths", "binary_dir=/b\n");
  const DataPaths p = FindDataPaths(env);
  EXPECT_EQ(p.origin, Origin::kCurrentDirectory);
  EXPECT_EQ(p.data_dir, "");
  EXPECT_EQ(p.bench_dir, "");
  EXPECT_EQ(p.repo, ".");
  EXPECT_EQ(p.Data("fixtures/calibration/seed-h2.json"),
            "fixtures/calibration/seed-h2.json");
}

TEST(DataPaths, UnknownBinaryPathIsTheCurrentDirectory) {
  FakeEnv env;
  env.SetFile("perflab.paths", "source_dir=/src\n");
  EXPECT_EQ(FindDataPaths(env).origin, Origin::kCurrentDirectory);
}

}  // namespace
}  // namespace perflab::core
