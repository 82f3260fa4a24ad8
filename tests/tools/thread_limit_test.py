#!/usr/bin/env python3
"""thread_limit_test.py PERFLAB SOURCE_DIR: a thread the system refuses is
one line and exit 2, never an abort. Each command that starts threads runs
as a real process under a process limit (RLIMIT_NPROC) that lets it start
exactly k threads besides its main one; it must exit 2 with one line on
stderr naming the thread it could not start, print nothing on stdout and
write nothing in its working directory.

Root ignores RLIMIT_NPROC, so each command runs as an unprivileged user id
that owns no other process (the limit counts all of that user's threads);
only root can switch to it, so the test is skipped (77) otherwise.

Usage: thread_limit_test.py PERFLAB SOURCE_DIR
"""
import os
import re
import resource
import subprocess
import sys
import tempfile

PERFLAB, SOURCE = os.path.abspath(sys.argv[1]), sys.argv[2]
REFERENCE = os.path.join(SOURCE, "fixtures", "calibration",
                         "reference-xeon-2vcpu-2026-12.json")
GUARD_S = 120  # against a hang, not a threshold: each case refuses at once


def skip(why):
    print(f"SKIP: {why}")
    sys.exit(77)


def free_uid():
    """A user id above the system's that owns no process now."""
    used = set()
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                used.add(os.stat(f"/proc/{pid}").st_uid)
            except OSError:
                pass
    uid = 200000 + os.getpid() % 100000
    while uid in used:
        uid += 1
    return uid


# (name, argv after perflab, threads allowed besides main, the line's text).
# The texts name the thread in the order the command starts them, counted
# by hand from the code: the sweep's progress thread, then one worker per
# job; the capstone's workers; the load client's connections; the server's
# poller and workers.
CASES = [
    ("sweep, no thread", ["sweep", "mmc", "--replications", "4", "--jobs", "4"],
     0, "cannot start the progress thread: "),
    ("sweep, progress only",
     ["sweep", "mmc", "--replications", "4", "--jobs", "4"], 1,
     "cannot start worker thread 1 of 4 (one per job): "),
    ("sweep, progress and two workers",
     ["sweep", "mmc", "--replications", "4", "--jobs", "4"], 3,
     "cannot start worker thread 3 of 4 (one per job): "),
    ("capstone, one worker",
     ["capstone", "--calibration", REFERENCE, "--jobs", "2"], 1,
     "cannot start worker thread 2 of 2 (one per job): "),
    ("load, no thread",
     ["load", "http://127.0.0.1:9/", "--rate", "10", "--duration-s", "1",
      "--connections", "4"], 0,
     "cannot start connection thread 1 of 4 (one per connection): "),
    ("load, two connections",
     ["load", "http://127.0.0.1:9/", "--rate", "10", "--duration-s", "1",
      "--connections", "4"], 2,
     "cannot start connection thread 3 of 4 (one per connection): "),
    ("serve, poller only", ["serve", "--threads", "4", "--max-seconds", "5"],
     1, "cannot start a server thread (0 of 4 workers started): "),
]


PROGRESS = re.compile(r"(sweep: \d+ of \d+ runs done|"
                      r"perflab capstone: \d+/\d+ runs)")


def run_limited(uid, argv, threads, cwd):
    limit = threads + 1  # the main thread counts too

    def limit_threads():
        resource.setrlimit(resource.RLIMIT_NPROC, (limit, limit))

    return subprocess.run([PERFLAB] + argv, user=uid, group=uid,
                          extra_groups=[], preexec_fn=limit_threads, cwd=cwd,
                          env={"PATH": "/usr/bin:/bin", "HOME": cwd,
                               "TMPDIR": cwd,
                               # LeakSanitizer's exit check starts a thread
                               # of its own, which the limit refuses too.
                               "ASAN_OPTIONS": "detect_leaks=0"},
                          capture_output=True, timeout=GUARD_S)


def main():
    if os.geteuid() != 0:
        skip("needs root to run perflab as a user that RLIMIT_NPROC binds "
             "(root ignores the limit)")
    uid = free_uid()
    failures = []
    for name, argv, threads, text in CASES:
        with tempfile.TemporaryDirectory(prefix="perflab-threads-") as cwd:
            os.chmod(cwd, 0o777)
            try:
                r = run_limited(uid, argv, threads, cwd)
            except PermissionError as e:
                skip(f"user {uid} cannot run {PERFLAB}: {e}")
            # Progress lines come after a second of work, so a slow build
            # (a sanitizer's) prints some before the refusal: not the error.
            err = "".join(
                line for line in r.stderr.decode(errors="replace")
                .splitlines(keepends=True) if not PROGRESS.match(line))
            left = os.listdir(cwd)
            problems = []
            if r.returncode != 2:
                problems.append(f"exit {r.returncode}, want 2")
            if r.stdout:
                problems.append(f"stdout {r.stdout[:200]!r}")
            if err.count("\n") != 1 or not err.endswith("\n"):
                problems.append("stderr is not one line")
            if text not in err:
                problems.append(f"stderr lacks {text!r}")
            if left:
                problems.append(f"left {left}")
            if problems:
                failures.append(f"{name}: {'; '.join(problems)}; "
                                f"stderr {err[:400]!r}")
            else:
                print(f"ok: {name}: {err.strip()}")
    for f in failures:
        print(f"FAIL: {f}")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
