// The service child process against stand-in shell scripts that behave as
// `perflab orders-service` does at start-up (or fails to): the arguments it
// is given, the port read from its "listening on" line, the CPUs it runs on,
// its error line when it exits, and that its owner stops and reaps it.
#include "bench/order_service/orders_service_process.h"

#include <sched.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "tests/file_text.h"
#include "tests/temp_dir.h"

namespace perflab::orders {
namespace {

namespace fs = std::filesystem;

using ::perflab::testing::FileText;

// An executable script `name` in this process's directory, removed at exit
// with what the scripts write beside themselves.
std::string StandIn(const std::string& name, const std::string& body) {
  static const perflab::testing::TempDir dir("orders-service-process");
  std::string path = dir.File(name);
  std::ofstream(path) << "#!/bin/sh\n" << body;
  fs::permissions(path, fs::perms::owner_all);
  return path;
}

// Neither running nor a zombie of ours.
bool Gone(pid_t pid) {
  errno = 0;
  const bool not_our_child =
      ::waitpid(pid, nullptr, WNOHANG) < 0 && errno == ECHILD;
  errno = 0;
  return not_our_child && ::kill(pid, 0) < 0 && errno == ESRCH;
}

TEST(OrdersServiceProcess, ReadsThePortAndPassesTheFlagsAndCpus) {
  cpu_set_t mine;
  ASSERT_EQ(::sched_getaffinity(0, sizeof mine, &mine), 0);
  int first = -1;
  for (int c = CPU_SETSIZE - 1; c >= 0; --c) {
    if (CPU_ISSET(c, &mine)) first = c;
  }
  ASSERT_GE(first, 0);
  // Records what it got before it says where it listens, as the real one
  // (which also prints more on the same line), then waits to be stopped.
  const std::string binary = StandIn(
      "orders_service_ok.sh",
      "echo \"$*\" > \"$0.args\"\n"
      "grep Cpus_allowed_list /proc/$$/status > \"$0.cpus\"\n"
      "echo 'perflab orders-service: listening on http://127.0.0.1:4321/ "
      "for at most 3600 s (SIGINT or SIGTERM stops it)' >&2\n"
      "exec sleep 100\n");
  pid_t pid = -1;
  {
    absl::StatusOr<OrdersServiceProcess> service = OrdersServiceProcess::Start(
        binary, {"--index", "--cores", "1"}, {first});
    ASSERT_TRUE(service.ok()) << service.status();
    EXPECT_EQ(service->port(), 4321);
    pid = service->pid();
    ASSERT_GT(pid, 0);
    EXPECT_GE(service->CpuSeconds(), 0);
    EXPECT_EQ(FileText(binary + ".args"),
              "orders-service --port 0 --max-seconds 3600 --index --cores 1\n");
    EXPECT_EQ(FileText(binary + ".cpus"),
              absl::StrCat("Cpus_allowed_list:\t", first, "\n"));
  }
  EXPECT_TRUE(Gone(pid));
}

TEST(OrdersServiceProcess, AServiceThatExitsGivesItsErrorLine) {
  const std::string binary =
      StandIn("orders_service_bad.sh",
              "echo 'perflab orders-service: --db-pool 0: accepted 1..64' "
              ">&2\nexit 2\n");
  absl::StatusOr<OrdersServiceProcess> service =
      OrdersServiceProcess::Start(binary, {});
  ASSERT_FALSE(service.ok());
  EXPECT_EQ(service.status().code(), absl::StatusCode::kInternal);
  EXPECT_EQ(service.status().message(),
            "orders-service did not start: perflab orders-service: "
            "--db-pool 0: accepted 1..64");
}

TEST(OrdersServiceProcess, PostgresPassesDbAndWaitsForTheListeningLine) {
  // The real one first says where its cluster is, then where it listens.
  const std::string binary = StandIn(
      "orders_service_pg.sh",
      "echo \"$*\" > \"$0.args\"\n"
      "echo 'perflab orders-service: PostgreSQL at /tmp/perflab-pg-x, over "
      "the Unix socket, 12000 rows copied in 0.5 s' >&2\n"
      "echo 'perflab orders-service: listening on http://127.0.0.1:4322/ "
      "for at most 3600 s (SIGINT or SIGTERM stops it)' >&2\n"
      "exec sleep 100\n");
  absl::StatusOr<OrdersServiceProcess> service =
      OrdersServiceProcess::Start(binary, {"--join"}, {}, "postgres");
  ASSERT_TRUE(service.ok()) << service.status();
  EXPECT_EQ(service->port(), 4322);
  EXPECT_EQ(FileText(binary + ".args"),
            "orders-service --port 0 --max-seconds 3600 --db postgres "
            "--join\n");
}

TEST(OrdersServiceProcess, AListeningLineCutShortIsNoPort) {
  // A line before it ends in a newline; the listening line never does.
  const std::string binary =
      StandIn("orders_service_cut.sh",
              "echo 'perflab orders-service: PostgreSQL at /tmp/x' >&2\n"
              "printf 'perflab orders-service: listening on "
              "http://127.0.0.1:43' >&2\nexit 1\n");
  absl::StatusOr<OrdersServiceProcess> service =
      OrdersServiceProcess::Start(binary, {}, {}, "postgres");
  ASSERT_FALSE(service.ok());
  EXPECT_EQ(service.status().code(), absl::StatusCode::kInternal);
}

TEST(OrdersServiceProcess, AnUnknownDbIsInvalidAndNamed) {
  absl::StatusOr<OrdersServiceProcess> service =
      OrdersServiceProcess::Start("/bin/true", {}, {}, "mysql");
  ASSERT_FALSE(service.ok());
  EXPECT_EQ(service.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(service.status().message(), "--db mysql"))
      << service.status();
}

// A backend's /proc/PID/stat line, its command holding spaces and a ')':
// pid 1234, ppid 1200, utime 7 + stime 3 + cutime 20 + cstime 5 = 35 ticks.
TEST(OrdersServiceProcess, ParsesAProcStatLine) {
  const std::optional<ProcStat> p = ParseProcStat(
      "1234 (postgres: perflab orders [local] idle) x) S 1200 1234 1234 0 -1 "
      "4194560 900 0 0 0 7 3 20 5 20 0 1 0 5000 1000000 100\n");
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->pid, 1234);
  EXPECT_EQ(p->ppid, 1200);
  EXPECT_EQ(p->ticks, 35);
  EXPECT_FALSE(ParseProcStat("").has_value());
  EXPECT_FALSE(ParseProcStat("garbage").has_value());
  // Cut before cstime.
  EXPECT_FALSE(
      ParseProcStat("1 (a) S 0 1 1 0 -1 0 0 0 0 0 7 3 20").has_value());
  EXPECT_FALSE(
      ParseProcStat("1 (a) S x 1 1 0 -1 0 0 0 0 0 7 3 20 5").has_value());
}

// The service 100 started the postmaster 200, which started backends 201
// and 202, and 201 a process 210 of its own: 50 + 10 + 20 + 1 = 81 ticks.
// Neither the service's own 1000 nor an unrelated process counts.
TEST(OrdersServiceProcess, DescendantsTicksAreTheWholeTreeBelowTheService) {
  const std::vector<ProcStat> procs = {{100, 50, 1000}, {300, 1, 999},
                                       {201, 200, 10},  {200, 100, 50},
                                       {210, 201, 1},   {202, 200, 20}};
  EXPECT_EQ(DescendantTicks(100, procs), 81);
  EXPECT_EQ(DescendantTicks(200, procs), 31);
  EXPECT_EQ(DescendantTicks(202, procs), 0);
  EXPECT_EQ(DescendantTicks(100, {}), 0);
}

// A stand-in whose child did some work (it says so through a FIFO) before
// the service says where it listens: that work is the child's, counted as
// the database's, read from /proc.
TEST(OrdersServiceProcess, CountsTheCpuOfTheProcessesItStarted) {
  const std::string binary = StandIn(
      "orders_service_child.sh",
      "rm -f \"$0.fifo\"; mkfifo \"$0.fifo\"\n"
      "(i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done; "
      "echo done > \"$0.fifo\"; exec sleep 100) &\n"
      "read done < \"$0.fifo\"\n"
      "echo 'perflab orders-service: listening on http://127.0.0.1:4322/' "
      ">&2\n"
      "exec sleep 100\n");
  absl::StatusOr<OrdersServiceProcess> service =
      OrdersServiceProcess::Start(binary, {});
  ASSERT_TRUE(service.ok()) << service.status();
  EXPECT_GT(service->DatabaseCpuSeconds(), 0);
}

TEST(OrdersServiceProcess, AMissingBinaryIsInvalidAndNamed) {
  absl::StatusOr<OrdersServiceProcess> service =
      OrdersServiceProcess::Start("/nonexistent/perflab", {});
  ASSERT_FALSE(service.ok());
  EXPECT_EQ(service.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(service.status().message(),
                                "cannot start '/nonexistent/perflab'"))
      << service.status();
}

}  // namespace
}  // namespace perflab::orders
