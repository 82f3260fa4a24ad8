#include "bench/order_service/pg_cluster.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pwd.h>
#include <signal.h>
#include <sys/shm.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <optional>
#include <sstream>
#include <system_error>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "bench/order_service/pg_libpq.h"
#include "core/interrupt.h"

namespace perflab::orders {
namespace {

namespace fs = std::filesystem;

bool IsExecutable(const fs::path& p) {
  return ::access(p.c_str(), X_OK) == 0 && fs::is_regular_file(p);
}

bool HasServer(const fs::path& dir) {
  return IsExecutable(dir / "initdb") && IsExecutable(dir / "postgres");
}

absl::Status Missing(absl::string_view where) {
  return absl::NotFoundError(absl::StrCat(
      "PostgreSQL server binaries (initdb, postgres) not found in ", where,
      "; install them with: apt-get install ", kPgServerPackage,
      " (or set PERFLAB_PG_BIN to their directory)"));
}

// Servers to stop fast on SIGINT or SIGTERM. core/interrupt.h's cleanup
// sends SIGTERM, which PostgreSQL takes as a smart shutdown: it waits for
// every client to hang up, and this process's own sessions stay open while
// its handler runs. So a handler installed over the cleanup first asks each
// server for a fast shutdown (SIGINT), then runs the cleanup, which waits
// for the server, reaps it and removes the directory.
constexpr int kServerSlots = 16;
std::array<std::atomic<pid_t>, kServerSlots> g_servers{};
struct sigaction g_previous_int {};
struct sigaction g_previous_term {};

void OnInterrupt(int sig) {
  for (auto& slot : g_servers) {
    if (const pid_t pid = slot.load(); pid > 0) ::kill(pid, SIGINT);
  }
  const struct sigaction& previous =
      sig == SIGINT ? g_previous_int : g_previous_term;
  if (previous.sa_handler != SIG_DFL && previous.sa_handler != SIG_IGN &&
      (previous.sa_flags & SA_SIGINFO) == 0) {
    previous.sa_handler(sig);
    return;
  }
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

void InstallFastShutdown() {
  static std::once_flag once;
  std::call_once(once, [] {
    core::InstallInterruptCleanup();
    struct sigaction sa {};
    sa.sa_handler = OnInterrupt;
    sigemptyset(&sa.sa_mask);
    sigaddset(&sa.sa_mask, SIGINT);
    sigaddset(&sa.sa_mask, SIGTERM);
    ::sigaction(SIGINT, &sa, &g_previous_int);
    ::sigaction(SIGTERM, &sa, &g_previous_term);
  });
}

void RegisterServer(pid_t pid) {
  for (auto& slot : g_servers) {
    pid_t free = 0;
    if (slot.compare_exchange_strong(free, pid)) return;
  }
}

void ForgetServer(pid_t pid) {
  for (auto& slot : g_servers) {
    pid_t mine = pid;
    if (slot.compare_exchange_strong(mine, 0)) return;
  }
}

// The account the server runs as when this process is root.
struct Account {
  uid_t uid = 0;
  gid_t gid = 0;
};

absl::StatusOr<Account> ServerAccount() {
  for (const char* name : {"postgres", "nobody"}) {
    if (const passwd* pw = ::getpwnam(name); pw != nullptr && pw->pw_uid != 0) {
      return Account{pw->pw_uid, pw->pw_gid};
    }
  }
  return absl::FailedPreconditionError(
      "running as root, and neither a 'postgres' nor a 'nobody' account "
      "exists to run PostgreSQL as (it refuses root)");
}

// The argv prefix that runs a program as `account` (empty when not root).
std::vector<std::string> AsAccount(const std::optional<Account>& account) {
  if (!account) return {};
  return {"/usr/bin/setpriv", absl::StrCat("--reuid=", account->uid),
          absl::StrCat("--regid=", account->gid), "--clear-groups",
          "--pdeathsig=keep"};
}

// A loopback port nothing listens on now (the kernel's choice of an
// ephemeral port, released again for the server to take).
absl::StatusOr<int> FreeLoopbackPort() {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return absl::ErrnoToStatus(errno, "socket for a free port");
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  int port = -1;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 &&
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0) {
    port = ntohs(addr.sin_port);
  }
  const int err = errno;
  ::close(fd);
  if (port <= 0) return absl::ErrnoToStatus(err, "no free loopback port");
  return port;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

void SleepMs(int ms) {
  timespec t{ms / 1000, (ms % 1000) * 1'000'000L};
  ::nanosleep(&t, nullptr);
}

// The server's processes: each process whose parent is `pid` (the backends
// run each in a session of their own, out of reach of a signal to the
// server's group).
std::vector<pid_t> ChildrenOf(pid_t pid) {
  std::vector<pid_t> children;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator("/proc", ec)) {
    pid_t child = 0;
    if (!absl::SimpleAtoi(entry.path().filename().string(), &child)) continue;
    // "pid (comm) state ppid ...": comm may hold spaces, so parse after ')'.
    const std::string stat = ReadFile((entry.path() / "stat").string());
    const size_t close = stat.rfind(')');
    if (close == std::string::npos) continue;
    std::vector<absl::string_view> fields = absl::StrSplit(
        absl::string_view(stat).substr(close + 1), ' ', absl::SkipEmpty());
    pid_t ppid = 0;
    if (fields.size() > 1 && absl::SimpleAtoi(fields[1], &ppid) &&
        ppid == pid) {
      children.push_back(child);
    }
  }
  return children;
}

// PostgreSQL's dynamic shared memory segments that `pid` maps. A segment no
// process maps is one PostgreSQL has already removed, so those of the
// postmaster and its backends are all.
std::vector<std::string> MappedDsmSegments(pid_t pid) {
  return DsmSegments(ReadFile(absl::StrCat("/proc/", pid, "/maps")));
}

// True when `pid` has exited (it is left for the owner to reap).
bool Exited(pid_t pid) {
  siginfo_t info{};
  return ::waitid(P_PID, static_cast<id_t>(pid), &info,
                  WEXITED | WNOHANG | WNOWAIT) == 0 &&
         info.si_pid != 0;
}

absl::Status RunInitdb(const std::string& bin, const std::string& dir,
                       const std::optional<Account>& account) {
  std::vector<std::string> argv = AsAccount(account);
  const std::vector<std::string> args = {
      bin + "/initdb",  "-D",           dir + "/data", "-U",
      "perflab",        "--auth=trust", "--no-sync",   "--locale=C",
      "--encoding=UTF8"};
  argv.insert(argv.end(), args.begin(), args.end());
  auto child =
      core::Subprocess::Spawn(argv, {.stdout_to = core::Output::kCapture,
                                     .stderr_to = core::Output::kCapture});
  if (!child.ok()) return child.status();
  auto status = child->Wait();
  if (!status.ok()) return status.status();
  if (!status->ok()) {
    return absl::FailedPreconditionError(
        absl::StrCat("initdb failed (", status->ToString(),
                     "): ", LastLine(child->output())));
  }
  return absl::OkStatus();
}

absl::StatusOr<core::Subprocess> SpawnServer(
    const std::string& bin, const std::string& dir, int port,
    const PgClusterOptions& options, const std::optional<Account>& account) {
  std::vector<std::string> argv = AsAccount(account);
  // A shell only to send the server's output to server.log; it execs the
  // server, which keeps the process id (and group) the owner stops.
  for (const char* a :
       {"/bin/sh", "-c", "log=$1; shift; exec \"$@\" >>\"$log\" 2>&1",
        "perflab-pg"}) {
    argv.emplace_back(a);
  }
  argv.push_back(dir + "/server.log");
  const std::vector<std::string> server = {
      bin + "/postgres", "-D", dir + "/data", "-p", absl::StrCat(port)};
  argv.insert(argv.end(), server.begin(), server.end());
  std::vector<std::pair<std::string, std::string>> settings = {
      {"listen_addresses", "127.0.0.1"},
      {"unix_socket_directories", dir},
      {"fsync", "off"},
      {"synchronous_commit", "off"},
      {"full_page_writes", "off"},
      {"logging_collector", "off"},
      {"max_connections", "40"},
  };
  settings.insert(settings.end(), options.settings.begin(),
                  options.settings.end());
  for (const auto& [name, value] : settings) {
    argv.emplace_back("-c");
    argv.push_back(absl::StrCat(name, "=", value));
  }
  return core::Subprocess::Spawn(argv);
}

}  // namespace

int InterlockShmId(const std::string& pid_file) {
  const std::vector<absl::string_view> lines = absl::StrSplit(pid_file, '\n');
  if (lines.size() < 7) return -1;
  const std::vector<absl::string_view> key_id =
      absl::StrSplit(lines[6], ' ', absl::SkipEmpty());
  int id = -1;
  if (key_id.size() != 2 || !absl::SimpleAtoi(key_id[1], &id)) return -1;
  return id;
}

std::vector<std::string> DsmSegments(const std::string& maps) {
  std::vector<std::string> segments;
  constexpr absl::string_view kPrefix = "/dev/shm/PostgreSQL.";
  for (absl::string_view line : absl::StrSplit(maps, '\n')) {
    const size_t at = line.find(kPrefix);
    if (at == absl::string_view::npos) continue;
    const std::string path(line.substr(at));
    // One line a mapping; an unlinked one ends in " (deleted)".
    if (path.find(' ') != std::string::npos) continue;
    if (std::find(segments.begin(), segments.end(), path) == segments.end()) {
      segments.push_back(path);
    }
  }
  return segments;
}

std::string LastLine(const std::string& text) {
  std::vector<absl::string_view> lines =
      absl::StrSplit(text, '\n', absl::SkipWhitespace());
  if (lines.empty()) return "";
  return std::string(absl::StripAsciiWhitespace(lines.back()));
}

absl::StatusOr<std::string> FindPgBinDir(const core::Env& env) {
  if (auto dir = env.GetVar("PERFLAB_PG_BIN")) {
    if (HasServer(*dir)) return *dir;
    return Missing(absl::StrCat("PERFLAB_PG_BIN='", *dir, "'"));
  }
  std::error_code ec;
  int best_major = -1;
  std::string best;
  for (const auto& entry : fs::directory_iterator("/usr/lib/postgresql", ec)) {
    int major = 0;
    if (!absl::SimpleAtoi(entry.path().filename().string(), &major)) continue;
    if (major > best_major && HasServer(entry.path() / "bin")) {
      best_major = major;
      best = (entry.path() / "bin").string();
    }
  }
  if (best_major >= 0) return best;
  const std::string path = env.GetVar("PATH").value_or("");
  for (absl::string_view d : absl::StrSplit(path, ':', absl::SkipEmpty())) {
    if (HasServer(fs::path(std::string(d)))) return std::string(d);
  }
  return Missing("/usr/lib/postgresql/*/bin or PATH");
}

absl::StatusOr<std::unique_ptr<PgCluster>> PgCluster::Start(
    const PgClusterOptions& options) {
  std::string bin = options.bin_dir;
  if (bin.empty()) {
    auto found = FindPgBinDir();
    if (!found.ok()) return found.status();
    bin = *found;
  } else if (!HasServer(bin)) {
    return Missing(absl::StrCat("'", bin, "'"));
  }
  // Before initdb, so that a missing libpq leaves nothing behind.
  if (absl::StatusOr<const Libpq*> pq = LoadLibpq(); !pq.ok()) {
    return pq.status();
  }
  std::optional<Account> account;
  if (::geteuid() == 0) {
    auto a = ServerAccount();
    if (!a.ok()) return a.status();
    account = *a;
  }
  InstallFastShutdown();
  auto dir = core::MakeTempDir(core::TempDirBase() + "/perflab-pg-");
  if (!dir.ok()) return dir.status();
  // From here every error path removes the directory.
  auto fail = [&](absl::Status s) {
    core::RemoveTempPath(*dir);
    return s;
  };
  if (account && ::chown(dir->c_str(), account->uid, account->gid) != 0) {
    return fail(absl::ErrnoToStatus(
        errno, absl::StrCat("cannot hand '", *dir, "' to the server account")));
  }
  if (absl::Status s = RunInitdb(bin, *dir, account); !s.ok()) return fail(s);
  auto port = FreeLoopbackPort();
  if (!port.ok()) return fail(port.status());
  auto server = SpawnServer(bin, *dir, *port, options, account);
  if (!server.ok()) return fail(server.status());
  RegisterServer(server->pid());
  std::unique_ptr<PgCluster> cluster(
      new PgCluster(*dir, *port, std::move(*server)));
  const std::string probe = cluster->UnixConninfo();
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::milliseconds(options.start_timeout_ms);
  while (Pq().PQping(probe.c_str()) != PQPING_OK) {
    const bool exited = Exited(cluster->pid());
    if (exited || std::chrono::steady_clock::now() > deadline) {
      std::string last = cluster->LastLogLine();
      cluster->Stop();
      return absl::FailedPreconditionError(absl::StrCat(
          "PostgreSQL server ",
          exited ? "exited during start" : "did not accept connections in time",
          "; its log's last line: ", last.empty() ? "(empty log)" : last));
    }
    SleepMs(20);
  }
  return cluster;
}

PgCluster::~PgCluster() { Stop(); }

void PgCluster::Stop() {
  if (const pid_t pid = server_.pid(); pid > 0) {
    // SIGINT is PostgreSQL's fast shutdown: it ends the sessions itself.
    // SIGTERM (what Subprocess::Stop sends) would wait for every client to
    // hang up, and the backends, each in a session of its own, are out of
    // reach of a signal to the server's process group.
    ::kill(pid, SIGINT);
    for (int waited_ms = 0; waited_ms < 10'000 && !Exited(pid);
         waited_ms += 10) {
      SleepMs(10);
    }
    server_.Stop();  // reaps it, or ends it if the fast shutdown hung
    ForgetServer(pid);
  }
  if (!dir_.empty()) {
    core::RemoveTempPath(dir_);
    dir_.clear();
  }
}

void PgCluster::Crash() {
  const pid_t pid = server_.pid();
  if (pid <= 0) return;
  // What a fast shutdown would remove and a killed server leaves behind,
  // holding its memory: the System V interlock segment and the dynamic
  // segments in /dev/shm. Found while the server runs.
  const int shmid = InterlockShmId(ReadFile(dir_ + "/data/postmaster.pid"));
  const std::vector<pid_t> children = ChildrenOf(pid);
  std::vector<std::string> segments = MappedDsmSegments(pid);
  for (pid_t child : children) {
    for (std::string& s : MappedDsmSegments(child)) {
      segments.push_back(std::move(s));
    }
  }
  server_.Kill();  // SIGKILL to the postmaster's group, then reaped
  for (pid_t child : children) ::kill(child, SIGKILL);
  ForgetServer(pid);
  // Marked for removal: it goes once the last killed backend detaches.
  if (shmid >= 0) ::shmctl(shmid, IPC_RMID, nullptr);
  std::error_code ignored;
  for (const std::string& s : segments) fs::remove(s, ignored);
}

std::string PgCluster::UnixConninfo(const std::string& dbname) const {
  return absl::StrCat("host=", dir_, " port=", port_, " dbname=", dbname,
                      " user=perflab connect_timeout=10");
}

std::string PgCluster::TcpConninfo(const std::string& dbname) const {
  return absl::StrCat("host=127.0.0.1 port=", port_, " dbname=", dbname,
                      " user=perflab sslmode=disable gssencmode=disable "
                      "connect_timeout=10");
}

absl::Status PgCluster::CreateDatabase(const std::string& name,
                                       const std::string& from) const {
  for (const std::string* n : {&name, &from}) {
    if (n == &from && from.empty()) continue;
    if (n->empty() || n->size() > 63 ||
        !std::all_of(n->begin(), n->end(), [](char c) {
          return absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '_';
        })) {
      return absl::InvalidArgumentError(
          absl::StrCat("database name '", *n,
                       "'; accepted: 1 to 63 letters, digits or '_'"));
    }
  }
  PGconn* conn = Pq().PQconnectdb(UnixConninfo().c_str());
  absl::Status status;
  if (Pq().PQstatus(conn) != CONNECTION_OK) {
    status = absl::UnavailableError(
        absl::StrCat("cannot connect: ", LastLine(Pq().PQerrorMessage(conn))));
  } else {
    PGresult* r =
        Pq().PQexec(conn, absl::StrCat("CREATE DATABASE ", name,
                                       from.empty() ? "" : " TEMPLATE ", from)
                              .c_str());
    if (Pq().PQresultStatus(r) != PGRES_COMMAND_OK) {
      status = absl::FailedPreconditionError(
          absl::StrCat("CREATE DATABASE ", name, ": ",
                       LastLine(Pq().PQresultErrorMessage(r))));
    }
    Pq().PQclear(r);
  }
  Pq().PQfinish(conn);
  return status;
}

std::string PgCluster::LastLogLine() const {
  if (dir_.empty()) return "";
  return LastLine(ReadFile(dir_ + "/server.log"));
}

}  // namespace perflab::orders
