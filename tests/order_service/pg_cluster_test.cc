#include "bench/order_service/pg_cluster.h"

#include <signal.h>
#include <stdlib.h>
#include <sys/shm.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "bench/order_service/pg_libpq.h"
#include "bench/order_service/pg_orders.h"
#include "core/env.h"
#include "core/subprocess.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/order_service/pg_test_env.h"

namespace perflab::orders {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using testing::SharedCluster;

TEST(LastLine, SkipsTrailingBlankLines) {
  EXPECT_EQ(LastLine("first\nsecond  \n\n  \n"), "second");
  EXPECT_EQ(LastLine("only"), "only");
  EXPECT_EQ(LastLine("\n\n"), "");
}

// postmaster.pid as PostgreSQL 15 writes it: pid, data directory, start
// time, port, socket directory, listen address, then "key id" of the System
// V interlock, then the status.
TEST(InterlockShmId, IsTheSecondFieldOfTheSeventhLine) {
  EXPECT_EQ(InterlockShmId("4242\n/tmp/d/data\n1765000000\n5433\n/tmp/d\n"
                           "\n  5433001     32770\nready   \n"),
            32770);
}

TEST(InterlockShmId, IsMinusOneWithoutAKeyAndAnId) {
  // Six lines: the postmaster has not got its segment yet.
  EXPECT_EQ(InterlockShmId("4242\n/tmp/d/data\n1765000000\n5433\n/tmp/d\n"),
            -1);
  // A key alone, or an id that is not a number.
  EXPECT_EQ(InterlockShmId("1\n2\n3\n4\n5\n6\n  5433001\n"), -1);
  EXPECT_EQ(InterlockShmId("1\n2\n3\n4\n5\n6\n  5433001 x7\n"), -1);
  EXPECT_EQ(InterlockShmId(""), -1);
}

TEST(DsmSegments, ListsEachMappedSegmentOnceAndNoUnlinkedOne) {
  const std::string maps =
      "7f00-7f10 rw-s 00000000 00:1a 11 /dev/shm/PostgreSQL.1804289383\n"
      "7f10-7f20 r--p 00000000 08:01 12 /usr/lib/postgresql/15/bin/postgres\n"
      "7f20-7f30 rw-s 00000000 00:1a 13 /dev/shm/PostgreSQL.846930886\n"
      "7f30-7f40 rw-s 00001000 00:1a 11 /dev/shm/PostgreSQL.1804289383\n"
      "7f40-7f50 rw-s 00000000 00:1a 14 /dev/shm/PostgreSQL.16816927 "
      "(deleted)\n"
      "7f50-7f60 rw-s 00000000 00:01 15 /SYSV0052e2c1 (deleted)\n";
  EXPECT_EQ(DsmSegments(maps),
            (std::vector<std::string>{"/dev/shm/PostgreSQL.1804289383",
                                      "/dev/shm/PostgreSQL.846930886"}));
  EXPECT_TRUE(DsmSegments("").empty());
}

TEST(FindPgBinDir, OverrideWithoutServerNamesThePackage) {
  core::FakeEnv env;
  env.SetVar("PERFLAB_PG_BIN", "/nonexistent/perflab/bin");
  auto dir = FindPgBinDir(env);
  ASSERT_EQ(dir.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(dir.status().message(), HasSubstr("apt-get install postgresql"));
  EXPECT_THAT(dir.status().message(), HasSubstr("/nonexistent/perflab/bin"));
}

TEST(FindPgBinDir, FindsInitdbAndPostgres) {
  auto dir = FindPgBinDir();
  ASSERT_TRUE(dir.ok()) << dir.status();
  EXPECT_TRUE(fs::exists(fs::path(*dir) / "initdb"));
  EXPECT_TRUE(fs::exists(fs::path(*dir) / "postgres"));
}

TEST(PgCluster, StartRefusesADirectoryWithoutTheServer) {
  auto cluster = PgCluster::Start({.bin_dir = "/"});
  ASSERT_EQ(cluster.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(cluster.status().message(), HasSubstr("postgresql"));
}

TEST(PgCluster, ServesUnixSocketAndLoopbackTcpWithoutFsync) {
  PgCluster* cluster = SharedCluster();
  ASSERT_NE(cluster, nullptr);
  EXPECT_TRUE(fs::exists(
      absl::StrCat(cluster->socket_dir(), "/.s.PGSQL.", cluster->port())));
  auto unix_conn = PgConnection::Open(cluster->UnixConninfo());
  ASSERT_TRUE(unix_conn.ok()) << unix_conn.status();
  EXPECT_EQ(*unix_conn->Scalar("SHOW fsync"), "off");
  EXPECT_EQ(*unix_conn->Scalar("SELECT current_user"), "perflab");
  // Over the socket the server sees no client address at all.
  EXPECT_EQ(*unix_conn->Scalar("SELECT coalesce(inet_client_addr()::text, "
                               "'none')"),
            "none");
  auto tcp_conn = PgConnection::Open(cluster->TcpConninfo());
  ASSERT_TRUE(tcp_conn.ok()) << tcp_conn.status();
  EXPECT_EQ(*tcp_conn->Scalar("SELECT host(inet_server_addr())"), "127.0.0.1");
  EXPECT_EQ(*tcp_conn->Scalar("SELECT inet_server_port()"),
            absl::StrCat(cluster->port()));
  EXPECT_EQ(*tcp_conn->Scalar("SHOW listen_addresses"), "127.0.0.1");
}

TEST(PgCluster, CreateDatabaseRefusesAnythingButAnIdentifier) {
  PgCluster* cluster = SharedCluster();
  ASSERT_NE(cluster, nullptr);
  EXPECT_EQ(cluster->CreateDatabase("x; DROP DATABASE postgres").code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(cluster->CreateDatabase("").code(),
            absl::StatusCode::kInvalidArgument);
  ASSERT_TRUE(cluster->CreateDatabase("made_here").ok());
  auto conn = PgConnection::Open(cluster->UnixConninfo("made_here"));
  EXPECT_TRUE(conn.ok()) << conn.status();
}

// A private $TMPDIR (readable by the server account when run as root), so
// that what a start leaves behind can be counted.
class ScopedTmpDir {
 public:
  ScopedTmpDir() {
    char pattern[] = "/tmp/perflab-pgtest-XXXXXX";
    path_ = ::mkdtemp(pattern);
    ::chmod(path_.c_str(), 0755);
    if (const char* old = ::getenv("TMPDIR")) saved_ = old;
    ::setenv("TMPDIR", path_.c_str(), 1);
  }
  ~ScopedTmpDir() {
    if (saved_.empty()) {
      ::unsetenv("TMPDIR");
    } else {
      ::setenv("TMPDIR", saved_.c_str(), 1);
    }
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }
  int Entries() const {
    int n = 0;
    for (auto it = fs::directory_iterator(path_);
         it != fs::directory_iterator(); ++it) {
      ++n;
    }
    return n;
  }

 private:
  std::string path_;
  std::string saved_;
};

TEST(PgCluster, StopEndsTheServerAndRemovesItsDirectory) {
  ScopedTmpDir tmp;
  auto cluster = PgCluster::Start();
  ASSERT_TRUE(cluster.ok()) << cluster.status();
  const pid_t pid = (*cluster)->pid();
  const std::string dir = (*cluster)->dir();
  const std::string conninfo = (*cluster)->UnixConninfo();
  EXPECT_EQ(dir.rfind(tmp.path() + "/perflab-pg-", 0), 0u) << dir;
  EXPECT_EQ(Pq().PQping(conninfo.c_str()), PQPING_OK);
  // An open connection must not hold the stop up.
  auto conn = PgConnection::Open(conninfo);
  ASSERT_TRUE(conn.ok()) << conn.status();
  (*cluster)->Stop();
  EXPECT_FALSE((*cluster)->running());
  EXPECT_EQ(::kill(pid, 0), -1);
  EXPECT_EQ(errno, ESRCH);
  EXPECT_FALSE(fs::exists(dir));
  EXPECT_EQ(tmp.Entries(), 0);
  EXPECT_NE(Pq().PQping(conninfo.c_str()), PQPING_OK);
  (*cluster)->Stop();  // idempotent
}

// A killed server leaves no shared memory behind: Crash removes what a fast
// shutdown would have, the System V interlock and the dynamic segments in
// /dev/shm that the server maps (each a leak of RAM otherwise).
TEST(PgCluster, CrashLeavesNoSharedMemoryBehind) {
  ScopedTmpDir tmp;
  auto cluster = PgCluster::Start();
  ASSERT_TRUE(cluster.ok()) << cluster.status();
  // postmaster.pid's seventh line: the interlock segment's key and id.
  std::ifstream pid_file((*cluster)->dir() + "/data/postmaster.pid");
  std::string line;
  for (int i = 0; i < 7; ++i) std::getline(pid_file, line);
  long key = 0;
  int shmid = -1;
  ASSERT_EQ(std::sscanf(line.c_str(), "%ld %d", &key, &shmid), 2) << line;
  shmid_ds seg{};
  ASSERT_EQ(::shmctl(shmid, IPC_STAT, &seg), 0);
  EXPECT_EQ(seg.shm_perm.mode & SHM_DEST, 0);
  // The postmaster maps at least the segment that controls the others.
  std::vector<std::string> dsm;
  std::ifstream maps(absl::StrCat("/proc/", (*cluster)->pid(), "/maps"));
  while (std::getline(maps, line)) {
    const size_t at = line.find("/dev/shm/PostgreSQL.");
    if (at != std::string::npos) dsm.push_back(line.substr(at));
  }
  ASSERT_FALSE(dsm.empty());
  for (const std::string& path : dsm) EXPECT_TRUE(fs::exists(path)) << path;
  (*cluster)->Crash();
  // Gone, or going once the last killed backend has detached.
  if (::shmctl(shmid, IPC_STAT, &seg) == 0) {
    EXPECT_NE(seg.shm_perm.mode & SHM_DEST, 0);
  }
  for (const std::string& path : dsm) EXPECT_FALSE(fs::exists(path)) << path;
  (*cluster)->Stop();
  EXPECT_EQ(tmp.Entries(), 0);
}

// A child process (this binary, --sigterm-child) starts a server and is
// ended by SIGTERM with a session of its own still open: by the time it is
// reaped the server and that session's backend must be gone (a fast
// shutdown: a smart one would wait for the session) and the directory
// removed, and the child must have died of the signal.
TEST(PgCluster, SigtermStopsTheServerAndRemovesItsDirectory) {
  ScopedTmpDir tmp;
  auto child = core::Subprocess::Spawn({"/proc/self/exe", "--sigterm-child"},
                                       {.stdout_to = core::Output::kCapture});
  ASSERT_TRUE(child.ok()) << child.status();
  auto status = child->Wait();
  ASSERT_TRUE(status.ok()) << status.status();
  EXPECT_EQ(status->signal, SIGTERM) << status->ToString();
  int server = 0, backend = 0;
  ASSERT_EQ(std::sscanf(child->output().c_str(), "%d %d", &server, &backend), 2)
      << child->output();
  EXPECT_EQ(::kill(server, 0), -1);
  EXPECT_EQ(::kill(backend, 0), -1);
  EXPECT_EQ(tmp.Entries(), 0);
}

TEST(PgCluster, AServerThatCannotStartReportsItsLogsLastLine) {
  ScopedTmpDir tmp;
  auto cluster = PgCluster::Start({.settings = {{"shared_buffers", "plenty"}}});
  ASSERT_EQ(cluster.status().code(), absl::StatusCode::kFailedPrecondition)
      << cluster.status();
  EXPECT_THAT(cluster.status().message(), HasSubstr("log's last line"));
  // PostgreSQL's own words about the setting, from server.log.
  EXPECT_THAT(cluster.status().message(), HasSubstr("shared_buffers"));
  EXPECT_EQ(tmp.Entries(), 0);
}

}  // namespace
}  // namespace perflab::orders
