// A throwaway PostgreSQL server for the order service: initdb into a fresh
// temporary directory, a postmaster listening on a Unix socket in that
// directory and on a free loopback TCP port, durability off (fsync,
// synchronous_commit and full-page writes: the data is regenerated on every
// start, so a crash loses nothing worth keeping). Nothing outlives its owner:
// the destructor (or Stop) ends the server and removes the directory; SIGINT
// and SIGTERM do the same (a fast shutdown, then core/interrupt.h's cleanup,
// which removes the directory and re-raises); a SIGKILL of the owner still
// kills the server (parent-death signal), leaving a recognisable
// $TMPDIR/perflab-pg-XXXXXX directory and the server's shared memory (its
// System V interlock and its /dev/shm/PostgreSQL.* segments).
//
// PostgreSQL refuses to run as root, so when the process is root the server
// runs as the `postgres` account (Debian's package creates it) or, failing
// that, `nobody`, through util-linux's setpriv; the directory is handed to
// that account. Clients connect as the role "perflab" with trust
// authentication, which is safe because the socket directory is private and
// TCP listens on 127.0.0.1 only, for as long as the owner runs.
//
// Thread safety: a PgCluster is thread-compatible; Start from a thread that
// outlives the cluster (the parent-death signal follows the spawning thread).
#ifndef PERFLAB_BENCH_ORDER_SERVICE_PG_CLUSTER_H_
#define PERFLAB_BENCH_ORDER_SERVICE_PG_CLUSTER_H_

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/env.h"
#include "core/subprocess.h"

namespace perflab::orders {

// The Debian package that holds initdb and postgres, named in every error
// about them.
inline constexpr char kPgServerPackage[] = "postgresql";

// The directory holding initdb and postgres: $PERFLAB_PG_BIN when set (and
// then only it), else the newest /usr/lib/postgresql/<major>/bin (Debian's
// layout), else the directory of an initdb found on PATH. NotFound in one
// line naming the package to install otherwise.
absl::StatusOr<std::string> FindPgBinDir(
    const core::Env& env = core::Env::Default());

struct PgClusterOptions {
  // Empty: FindPgBinDir().
  std::string bin_dir{};
  // Extra server settings (name, value), passed as -c name=value after the
  // service's own, so they override them.
  std::vector<std::pair<std::string, std::string>> settings{};
  // How long the server may take to accept connections.
  int start_timeout_ms = 60'000;
};

class PgCluster {
 public:
  // Creates, starts and waits for the server. NotFound when the binaries are
  // absent (FindPgBinDir's message); a server or initdb that fails is
  // FailedPrecondition carrying the last line of its log. Nothing is left
  // behind on any error.
  static absl::StatusOr<std::unique_ptr<PgCluster>> Start(
      const PgClusterOptions& options = {});

  PgCluster(const PgCluster&) = delete;
  PgCluster& operator=(const PgCluster&) = delete;
  ~PgCluster();

  // Ends the server (SIGTERM to its process group, SIGKILL after a grace
  // period) and removes the directory. Idempotent.
  void Stop();
  // The server's death, for fault tests: SIGKILL to the postmaster and to
  // every process it started (the backends, each in a session of its own,
  // listed first so none is missed once they are orphans), no shutdown; the
  // postmaster is reaped before this returns, and a killed backend never
  // answers again, so every session sees its connection close. Its shared
  // memory is removed, as a fast shutdown would have; the directory stays
  // until Stop.
  void Crash();
  bool running() const { return server_.pid() > 0; }

  // The temporary directory (data/, the socket, server.log).
  const std::string& dir() const { return dir_; }
  const std::string& socket_dir() const { return dir_; }
  int port() const { return port_; }
  pid_t pid() const { return server_.pid(); }

  // libpq connection strings for `dbname`, over the Unix socket or over
  // loopback TCP. Encryption is off: neither SSL nor GSSAPI is configured,
  // and trying them first would add round trips to every connection.
  std::string UnixConninfo(const std::string& dbname = "postgres") const;
  std::string TcpConninfo(const std::string& dbname = "postgres") const;

  // CREATE DATABASE `name` (a plain identifier: letters, digits, '_'), as a
  // file copy of database `from` when given (which must have no session).
  absl::Status CreateDatabase(const std::string& name,
                              const std::string& from = "") const;

  // The last non-empty line of server.log ("" when there is none).
  std::string LastLogLine() const;

 private:
  PgCluster(std::string dir, int port, core::Subprocess server)
      : dir_(std::move(dir)), port_(port), server_(std::move(server)) {}

  std::string dir_;
  int port_ = 0;
  core::Subprocess server_;
};

// The last non-empty line of `text`, without its line end.
std::string LastLine(const std::string& text);

// What Crash() reads to remove a killed server's shared memory. From a
// postmaster.pid's text: its System V interlock's id, the second field of the
// seventh line ("key id"); -1 when the file has no such line.
int InterlockShmId(const std::string& pid_file);
// From a /proc/PID/maps text: the PostgreSQL dynamic segments mapped
// (/dev/shm/PostgreSQL.N), each once, in the order first seen; an unlinked
// one (" (deleted)") is not listed.
std::vector<std::string> DsmSegments(const std::string& maps);

}  // namespace perflab::orders

#endif  // PERFLAB_BENCH_ORDER_SERVICE_PG_CLUSTER_H_
