#!/usr/bin/env python3
"""interrupt_test.py PERFLAB SOURCE_DIR [CASE...]: SIGINT and SIGTERM to
`perflab calibrate`, `perflab sweep --out`, `perflab capstone` (the composed
table and --real), the report (`tools/lab report` execs report.py: the
same process), `fixtures build`, the dataset generation of
`orders-service`, `history run` (a fake repository whose build waits for the
signal; no git worktree may stay registered) and `history plot` leave
nothing behind: the command ends by that signal, no
process of any child's group still runs, its private TMPDIR is empty, and the
previous output is byte-identical. `calibrate` and `capstone --real` get
both signals at each of three moments (early, midway, while a child runs);
for the other cases a fixed seed picks the signal and moment. Every moment
is an event the test sees (the k-th line of progress on
stderr, a child observed running, a temporary file observed), never a delay.
SIGKILL cannot be handled: the children must still die with the parent.
Every wait has a guard against a hang (GUARD_S), which is not a threshold.
"""

import json
import os
import random
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time

SEED = 25
GUARD_S = 300  # for a command to reach its moment, or to end once signalled
EXIT_GUARD_S = 30  # for a process already sent SIGKILL (or TERM) to be gone


def fail(msg):
    print(f"FAIL: {msg}")
    sys.exit(1)


def procs():
    """pid -> (ppid, pgid, state, argv) of every process now."""
    out = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat") as f:
                stat = f.read()
            with open(f"/proc/{name}/cmdline", "rb") as f:
                argv = [a.decode(errors="replace") for a in f.read().split(b"\0") if a]
        except OSError:
            continue
        rest = stat[stat.rfind(")") + 2:].split()
        out[int(name)] = (int(rest[1]), int(rest[2]), rest[0], argv)
    return out


def descendants(root):
    ps = procs()
    kids = {}
    for pid, (ppid, _, _, _) in ps.items():
        kids.setdefault(ppid, []).append(pid)
    out, todo = {}, [root]
    while todo:
        for c in kids.get(todo.pop(), []):
            out[c] = ps[c]
            todo.append(c)
    return out


def pid_ends(pid):
    """True once pid has ended (its exit seen through a pidfd)."""
    try:
        fd = os.pidfd_open(pid)
    except ProcessLookupError:
        return True
    ready = select.select([fd], [], [], EXIT_GUARD_S)[0]
    os.close(fd)
    return bool(ready)


def group_ends(pgid):
    """True once no process of group pgid runs (zombies have ended); each one
    still running is waited for through a pidfd."""
    for _ in range(10):
        left = [p for p, (_, g, st, _) in procs().items() if g == pgid and st != "Z"]
        if not left:
            return True
        if not all(pid_ends(pid) for pid in left):
            return False
    return False


def snapshot(root):
    """Every entry under root: its bytes (None for a directory)."""
    out = {}
    for d, dirs, files in os.walk(root):
        for n in dirs:
            out[os.path.relpath(os.path.join(d, n), root)] = None
        for n in files:
            with open(os.path.join(d, n), "rb") as f:
                out[os.path.relpath(os.path.join(d, n), root)] = f.read()
    return out


class Run:
    """A command under watch: its stderr lines and every process group its
    descendants were seen in."""

    def __init__(self, argv, env, cwd):
        self.argv = argv
        self.p = subprocess.Popen(argv, env=env, cwd=cwd, stdin=subprocess.DEVNULL,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        self.fd = self.p.stderr.fileno()
        self.buf = b""
        self.lines = []
        self.groups = set()
        # pid -> argv of every descendant seen, as last read: the first read
        # of a child can be its parent's argv, before its exec.
        self.seen = {}
        self.children = set()  # the direct children seen

    def poll_once(self):
        if select.select([self.fd], [], [], 0.02)[0]:
            data = os.read(self.fd, 65536)
            self.buf += data
            *done, self.buf = self.buf.split(b"\n")
            self.lines += [d.decode(errors="replace") for d in done]
        for pid, (ppid, pgid, state, argv) in descendants(self.p.pid).items():
            if state != "Z":
                self.groups.add(pgid)
                self.seen[pid] = argv
                if ppid == self.p.pid:
                    self.children.add(pid)

    def until(self, pred, what):
        deadline = time.monotonic() + GUARD_S
        while not pred(self):
            if self.p.poll() is not None:
                self.kill_all()
                fail(f"{what}: '{' '.join(self.argv[:3])}' ended first (exit "
                     f"{self.p.returncode}); stderr: {self.lines[-3:]}")
            if time.monotonic() > deadline:
                self.kill_all()
                fail(f"{what}: not seen within the guard")
            self.poll_once()

    def kill_all(self):
        """Before a failure: the command and every group its descendants were
        seen in, so that a failing case leaves nothing running (a build's
        `sleep 1000` would outlive the test)."""
        self.poll_once()
        if self.p.poll() is None:
            self.p.kill()
        kill_groups(self.groups)

    def interrupt(self, sig):
        self.groups.discard(os.getpgrp())
        self.p.send_signal(sig)
        deadline = time.monotonic() + GUARD_S
        while self.p.poll() is None:  # stderr drained: a full pipe blocks it
            if time.monotonic() > deadline:
                self.kill_all()
                fail(f"{sig.name}: '{self.argv[1]}' did not end within the guard")
            if select.select([self.fd], [], [], 0.05)[0]:
                os.read(self.fd, 65536)
        self.p.stderr.close()
        return self.p.returncode


class Case:
    def __init__(self, name, perflab, source, base):
        self.perflab, self.source = perflab, source
        self.dir = os.path.join(base, name)
        self.tmp = os.path.join(self.dir, "tmp")
        self.out = os.path.join(self.dir, "out")
        for d in (self.tmp, self.out):
            os.makedirs(d)
        self.env = dict(os.environ, TMPDIR=self.tmp)

    def check(self, run, sig, rc, before, what, children=True):
        if rc != -sig:
            fail(f"{what}: ended with {rc}, not by {sig.name} (-{int(sig)})")
        if children and not run.groups:
            fail(f"{what}: no child was seen")
        for g in sorted(run.groups):
            if not group_ends(g):
                for h in run.groups:  # the test ends what it made run
                    try:
                        os.killpg(h, signal.SIGKILL)
                    except ProcessLookupError:
                        pass
                fail(f"{what}: process group {g} still runs after {sig.name}")
        left = os.listdir(self.tmp)
        if left:
            fail(f"{what}: left in TMPDIR after {sig.name}: {left}")
        if snapshot(self.out) != before:
            fail(f"{what}: the previous output changed after {sig.name}: "
                 f"{sorted(snapshot(self.out))} vs {sorted(before)}")
        print(f"ok: {what}: {sig.name}, {len(run.groups)} child group(s) ended, "
              "TMPDIR empty, previous output byte-identical")


FAKE_BENCH = """#!/bin/sh
# A stand-in for a bench binary: run n of the calibration hangs (with a
# grandchild in its group) when n is the one the test chose; the others write
# an empty result and exit.
n=$(( $(cat "{state}") + 1 ))
echo $n >"{state}"
for a; do case $a in --benchmark_out=*) out=${{a#--benchmark_out=}} ;; esac; done
echo "fake bench run $n writes $out"
if [ $n -eq {k} ]; then
  echo partial >"$out"
  sleep 1000 &
  echo "fake bench run $n hangs"
  wait
fi
echo '{{"benchmarks": []}}' >"$out"
echo "fake bench run $n done"
"""


def families(source):
    with open(os.path.join(source, "bench", "benchmarks.json")) as f:
        seen = []
        for entry in json.load(f)["calibration"].values():
            if entry["family"] not in seen:
                seen.append(entry["family"])
        return seen


def calibrate_setup(c, rng, k=None):
    """Stand-in benchmarks whose run k hangs (a random one unless given),
    the previous calibration in c.out, and calibrate's argv."""
    fams = families(c.source)
    if k is None:
        k = rng.randint(1, len(fams))
    bench = os.path.join(c.dir, "bench")
    os.makedirs(bench)
    state = os.path.join(c.dir, "runs")
    with open(state, "w") as f:
        f.write("0\n")
    for fam in fams:
        path = os.path.join(bench, f"bench_{fam}")
        with open(path, "w") as f:
            f.write(FAKE_BENCH.format(state=state, k=k))
        os.chmod(path, 0o755)
    prev = os.path.join(c.out, "calibration.json")
    with open(prev, "w") as f:
        f.write("the previous calibration\n")
    argv = [c.perflab, "calibrate", "--quick", "--bench-dir", bench, "--out", prev]
    return k, argv


def case_calibrate(c, rng):
    """Both signals at three moments: early (the first progress line, before
    or as the first benchmark starts), midway (a middle benchmark run has
    written its output; the signal lands between runs or in the next) and
    while a child runs (a benchmark run hangs with a grandchild)."""
    fams = len(families(c.source))
    mid = max(1, (fams + 1) // 2)
    for sig, moment in signals_and_moments(["early", "midway", "child"]):
        # The run that hangs: the middle one while a child runs, else the
        # last, so that the early and midway signals find the command busy.
        k = mid if moment == "child" else fams
        argv = calibrate_setup(c, rng, k)[1]
        before = snapshot(c.out)
        run = Run(argv, c.env, c.dir)
        if moment == "early":
            run.until(lambda r: any(x.startswith("calibrate: running bench_")
                                    for x in r.lines), "calibrate's first progress line")
        elif moment == "midway":
            run.until(lambda r: f"fake bench run {mid} done" in r.lines,
                      f"calibrate run {mid} done")
        else:
            run.until(lambda r: f"fake bench run {k} hangs" in r.lines, f"calibrate run {k}")
            if not any(line.startswith("fake bench run") and c.tmp in line
                       for line in run.lines):
                fail("calibrate: the benchmark output is not in TMPDIR")
        c.check(run, sig, run.interrupt(sig), before, f"calibrate ({moment})",
                children=moment == "child")
        shutil.rmtree(os.path.join(c.dir, "bench"))


def case_calibrate_sigkill(c, rng):
    k, argv = calibrate_setup(c, rng)
    before = snapshot(c.out)
    run = Run(argv, c.env, c.dir)
    run.until(lambda r: f"fake bench run {k} hangs" in r.lines, f"calibrate run {k}")
    rc = run.interrupt(signal.SIGKILL)
    if rc != -signal.SIGKILL:
        fail(f"calibrate SIGKILL: ended with {rc}")
    # PR_SET_PDEATHSIG ends the children; a grandchild (the fake's sleep)
    # is beyond its reach and is ended here, by the test that made it.
    ended = all(pid_ends(pid) for pid in run.children)
    run.groups.discard(os.getpgrp())
    for g in run.groups:
        try:
            os.killpg(g, signal.SIGKILL)
        except ProcessLookupError:
            pass
    if not run.children or not ended:
        fail(f"calibrate SIGKILL: a child outlived its parent ({sorted(run.children)})")
    left = os.listdir(c.tmp)
    if any(not n.startswith("perflab-calibrate-") for n in left):
        fail(f"calibrate SIGKILL: unexpected names left: {left}")
    if snapshot(c.out) != before:
        fail("calibrate SIGKILL: the previous output changed")
    print(f"ok: calibrate SIGKILL (run {k}): its {len(run.children)} child(ren) died with it; "
          f"left, by its known name: {left}")


def case_sweep(c, rng):
    sig = rng.choice([signal.SIGINT, signal.SIGTERM])
    k = rng.randint(1, 3)
    prev = os.path.join(c.out, "sweep.txt")
    with open(prev, "w") as f:
        f.write("the previous sweep\n")
    before = snapshot(c.out)
    argv = [c.perflab, "sweep", "mmc", "--set", "servers=1,2", "--replications", "100000",
            "--force", "--jobs", "2", "--out", prev]
    run = Run(argv, c.env, c.dir)
    run.until(lambda r: sum(x.startswith("sweep:") for x in r.lines) >= k,
              f"sweep progress line {k}")
    c.check(run, sig, run.interrupt(sig), before, "sweep", children=False)


def case_capstone(c, rng):
    sig = rng.choice([signal.SIGINT, signal.SIGTERM])
    k = rng.randint(1, 2)
    for n in ("capstone.md", "capstone.csv", "capstone.json"):
        with open(os.path.join(c.out, n), "w") as f:
            f.write(f"the previous {n}\n")
    before = snapshot(c.out)
    cal = os.path.join(c.source, "fixtures", "calibration", "reference-xeon-2vcpu-2026-12.json")
    argv = [c.perflab, "capstone", "--calibration", cal, "--sensitivity", "--out-dir", c.out,
            "--format", "json"]
    run = Run(argv, c.env, c.dir)
    run.until(lambda r: sum(x.startswith("perflab capstone:") for x in r.lines) >= k,
              f"capstone progress line {k}")
    c.check(run, sig, run.interrupt(sig), before, "capstone", children=False)


def complete_dataset(path):
    """Whether path is a whole dataset: SQLite's integrity check passes and
    it holds orders (a file cut short or still being written does not)."""
    import sqlite3
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            ok = db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
            return ok and db.execute("SELECT COUNT(*) FROM orders").fetchone()[0] > 0
        finally:
            db.close()
    except sqlite3.Error:
        return False


def case_capstone_real(c, rng):
    """Both signals at three moments: early (the dataset's temporary file,
    being generated), midway (the dataset just built, before any service)
    and while a child runs (the first orders-service seen). Made fast by
    --quick, one step (--steps index), --no-canary, a scale-1 dataset in a
    folder of the test's (PERFLAB_DATASET_DIR), and the signal itself: no
    run reaches the measured loads."""
    del rng
    data = os.path.join(c.out, "datasets")  # empty before: nothing of it may stay
    os.makedirs(data)
    built = os.path.join(data, "orders-scale-1.sqlite")
    cal = os.path.join(c.source, "fixtures", "calibration", "reference-xeon-2vcpu-2026-12.json")
    # The fixture holds no canary baseline (it was measured elsewhere).
    argv = [c.perflab, "capstone", "--real", "--quick", "--no-canary", "--steps", "index",
            "--calibration", cal]
    if not shutil.which("wrk"):
        argv.append("--no-wrk")
    env = dict(c.env, PERFLAB_DATASET_DIR=data)

    def services(r):
        return sum("orders-service" in a for a in r.seen.values())
    for sig, moment in signals_and_moments(["early", "midway", "child"]):
        before = snapshot(c.out)
        run = Run(argv, env, c.dir)
        if moment == "early":
            run.until(lambda r: tmp_names(data), "the dataset's temp file")
        elif moment == "midway":
            run.until(lambda r: os.path.exists(built), "the dataset built")
        else:
            run.until(lambda r: services(r) >= 1, "orders-service child 1")
        rc = run.interrupt(sig)
        # The complete new output (the dataset, renamed into place before the
        # signal) may stay; a partial one may not.
        if os.path.exists(built):
            if not complete_dataset(built):
                fail(f"capstone --real ({moment}): {built} is not a whole dataset "
                     f"after {sig.name}")
            os.remove(built)
        c.check(run, sig, rc, before, f"capstone --real ({moment})",
                children=moment == "child")


def case_report(c, rng):
    sig = rng.choice([signal.SIGINT, signal.SIGTERM])
    k = rng.randint(1, 3)
    reports = os.path.join(c.out, "reports")
    os.makedirs(os.path.join(reports, "bench"))
    for n, text in (("README.md", "the previous report\n"), ("laws.svg", "<svg/>\n"),
                    ("bench/summary.json",
                     '{"pairs": [{"family": "db", "label": "a pair", "before_ns": 2, '
                     '"after_ns": 1, "ratio": 2}]}\n')):
        with open(os.path.join(reports, n), "w") as f:
            f.write(text)
    # A folder a SIGKILLed report left: its process is gone, the next run removes it.
    stale = os.path.join(c.out, ".reports.tmp.999999999")
    os.makedirs(os.path.join(stale, ".scratch"))
    before = snapshot(c.out)
    del before[os.path.relpath(stale, c.out)]
    del before[os.path.relpath(os.path.join(stale, ".scratch"), c.out)]
    argv = ["/usr/bin/python3", os.path.join(c.source, "tools", "plots", "report.py"),
            "--perflab", c.perflab, "--out", reports]
    run = Run(argv, c.env, c.source)

    def perflabs(r):
        return sum(a[:1] == [c.perflab] for a in r.seen.values())
    run.until(lambda r: perflabs(r) >= k, f"perflab child {k} of the report")
    c.check(run, sig, run.interrupt(sig), before, f"report (at perflab child {k})")


def signals_and_moments(moments):
    """Every moment under both signals: (signal, moment) pairs."""
    return [(sig, m) for m in moments for sig in (signal.SIGINT, signal.SIGTERM)]


def tmp_names(folder):
    return [n for n in os.listdir(folder) if ".tmp." in n]


def case_fixtures_build(c, rng):
    del rng  # both signals, at the one moment that shows the temporary file
    for sig in (signal.SIGINT, signal.SIGTERM):
        # A file that is no dataset is refused as an output: the previous
        # state is "no dataset", and so it must stay.
        data = os.path.join(c.out, "orders.sqlite")
        before = snapshot(c.out)
        argv = [c.perflab, "fixtures", "build", "--scale", "2", "--out", data]
        run = Run(argv, c.env, c.dir)
        run.until(lambda r: tmp_names(c.out), "the dataset's temporary file")
        c.check(run, sig, run.interrupt(sig), before, "fixtures build (temp file made)",
                children=False)


def case_orders_dataset(c, rng):
    del rng
    for sig, moment in signals_and_moments(["announced", "temp file"]):
        data = os.path.join(c.out, "orders.sqlite")  # missing: it is generated
        before = snapshot(c.out)
        argv = [c.perflab, "orders-service", "--dataset", data, "--scale", "2",
                "--max-seconds", "600", "--port", "0"]
        run = Run(argv, c.env, c.dir)
        if moment == "announced":
            run.until(lambda r: any("generating the dataset" in x for x in r.lines),
                      "the generating line")
        else:
            run.until(lambda r: tmp_names(c.out), "the dataset's temporary file")
        c.check(run, sig, run.interrupt(sig), before,
                f"orders-service dataset ({moment})", children=False)


HISTORY_CMAKE = """cmake_minimum_required(VERSION 3.16)
project(slow NONE)
# The build of bench_slow marks that it runs, then waits for the signal.
add_custom_target(bench_slow COMMAND touch {marker} COMMAND sleep 1000)
"""

HISTORY_PRESETS = """{"version": 3, "configurePresets": [{"name": "release",
  "generator": "Ninja", "binaryDir": "${sourceDir}/build/release"}]}
"""


def git(repo, *args):
    return subprocess.run(["git", "-C", repo, *args], check=True, capture_output=True,
                          text=True).stdout


def history_repo(c):
    """A one-commit repository whose benchmark target builds for ever."""
    repo = os.path.join(c.dir, "repo")
    os.makedirs(repo)
    marker = os.path.join(c.dir, "building")
    with open(os.path.join(repo, "CMakeLists.txt"), "w") as f:
        f.write(HISTORY_CMAKE.format(marker=marker))
    with open(os.path.join(repo, "CMakePresets.json"), "w") as f:
        f.write(HISTORY_PRESETS)
    git(repo, "init", "-q", ".")
    git(repo, "add", "-A")
    git(repo, "-c", "user.email=t@example.com", "-c", "user.name=test", "commit", "-q",
        "-m", "slow")
    return repo, marker


def worktrees(repo):
    return [line for line in git(repo, "worktree", "list", "--porcelain").splitlines()
            if line.startswith("worktree ")]


def case_history_run(c, rng):
    del rng
    if not shutil.which("git") or not shutil.which("ninja"):
        print("skip: history-run (no git or ninja)")
        return
    repo, marker = history_repo(c)
    db = os.path.join(c.out, "history.sqlite")  # made by the run: gone after
    for sig, moment in signals_and_moments(["progress", "worktree", "build"]):
        if os.path.exists(marker):
            os.remove(marker)
        before = snapshot(c.out)
        argv = [c.perflab, "history", "run", "HEAD", "--filter", ".", "--targets",
                "bench_slow", "--db", db, "--repo", repo]
        run = Run(argv, c.env, c.dir)
        if moment == "progress":
            run.until(lambda r: any(x.startswith("history: commit 1 of 1") for x in r.lines),
                      "the first progress line")
        elif moment == "worktree":
            run.until(lambda r: any("worktree and build" in x for x in r.lines),
                      "bench-commits' worktree line")
        else:
            run.until(lambda r: os.path.exists(marker) and build_sleeps(r),
                      "the build's child")
        rc = run.interrupt(sig)
        left = worktrees(repo)
        if len(left) != 1:
            fail(f"history run ({moment}): worktrees still registered after "
                 f"{sig.name}: {left}")
        c.check(run, sig, rc, before, f"history run ({moment}): one worktree (the "
                "repository's own) and", children=moment != "progress")


def build_sleeps(run):
    """Whether the fake build's sleep runs under `run` now (read afresh, as
    bench_commits_pid says why)."""
    return any(st != "Z" and a[:1] == ["sleep"]
               for _, _, st, a in descendants(run.p.pid).values())


def bench_commits_pid(run):
    """bench-commits' pid while it runs under `run`, else None. Read afresh:
    the argv first seen of a child can be its parent's, before its exec."""
    for pid, (_, _, state, argv) in descendants(run.p.pid).items():
        if state != "Z" and any(a.endswith("/bench-commits") for a in argv[:2]):
            return pid
    return None


def history_run_until_build(c, repo, marker, db):
    """A history run whose build of the one commit is under way (so
    bench-commits' worktree exists): the Run and bench-commits' pid."""
    if os.path.exists(marker):
        os.remove(marker)
    argv = [c.perflab, "history", "run", "HEAD", "--filter", ".", "--targets",
            "bench_slow", "--db", db, "--repo", repo]
    run = Run(argv, c.env, c.dir)
    run.until(lambda r: os.path.exists(marker) and build_sleeps(r)
              and bench_commits_pid(r), "the build's child")
    # The predicate read the processes afresh: one more poll records the
    # build's group too, for kill_groups once bench-commits is killed and the
    # build is no longer a descendant.
    run.poll_once()
    return run, bench_commits_pid(run)


def kill_groups(groups):
    for g in groups - {os.getpgrp()}:
        try:
            os.killpg(g, signal.SIGKILL)
        except ProcessLookupError:
            pass


def case_history_run_sigkill(c, rng):
    """SIGKILL to `history run` while bench-commits builds in its worktree:
    bench-commits (told by PR_SET_PDEATHSIG) stops the build and removes the
    worktree. SIGKILL to bench-commits itself (no cleanup can run): the next
    history run removes the worktree it left."""
    del rng
    if not shutil.which("git") or not shutil.which("ninja"):
        print("skip: history-run-sigkill (no git or ninja)")
        return
    repo, marker = history_repo(c)
    db = os.path.join(c.out, "history.sqlite")
    # The run killed: its child cleans up after it.
    run, bc = history_run_until_build(c, repo, marker, db)
    if len(worktrees(repo)) != 2:
        fail(f"history run SIGKILL: no worktree while building: {worktrees(repo)}")
    if run.interrupt(signal.SIGKILL) != -signal.SIGKILL:
        fail("history run SIGKILL: not ended by SIGKILL")
    if not pid_ends(bc):
        fail("history run SIGKILL: bench-commits outlived perflab")
    for g in sorted(run.groups):
        if not group_ends(g):
            kill_groups(run.groups)
            fail(f"history run SIGKILL: process group {g} still runs")
    if len(worktrees(repo)) != 1 or os.listdir(c.tmp):
        fail(f"history run SIGKILL: left {worktrees(repo)}, TMPDIR {os.listdir(c.tmp)}")
    print(f"ok: history run SIGKILL: bench-commits and {len(run.groups)} child "
          "group(s) ended, its worktree removed, TMPDIR empty")
    # bench-commits killed: the worktree stays registered until the next run.
    run, bc = history_run_until_build(c, repo, marker, db)
    # Stopped first, perflab cannot see bench-commits die: it would record
    # the failure, and the SIGKILL below could end it mid-transaction,
    # leaving a hot journal the next run rolls back (a changed output that
    # is SQLite working as designed, not a leak).
    os.kill(run.p.pid, signal.SIGSTOP)
    os.kill(bc, signal.SIGKILL)
    if not pid_ends(bc):
        fail("bench-commits SIGKILL: it did not end")
    run.interrupt(signal.SIGKILL)
    kill_groups(run.groups)  # its build's grandchildren: no parent of theirs is left
    stale = worktrees(repo)[1:]  # the first is the repository's own
    if len(stale) != 1:
        fail(f"bench-commits SIGKILL: expected its worktree left registered: {stale}")
    before = snapshot(c.out)
    run, _ = history_run_until_build(c, repo, marker, db)
    listed = worktrees(repo)
    # bench-commits says so before its build starts, but the line may still
    # be in the pipe when the build is seen: read on until it comes.
    run.until(lambda r: any("removed what a killed run left" in x for x in r.lines),
              f"history run after a SIGKILL: the report of the stale {stale[0]}")
    rc = run.interrupt(signal.SIGTERM)
    if stale[0] in listed:
        fail(f"history run after a SIGKILL: the stale {stale[0]} still registered "
             f"({listed})")
    if len(worktrees(repo)) != 1:
        fail(f"history run after a SIGKILL: worktrees left: {worktrees(repo)}")
    c.check(run, signal.SIGTERM, rc, before, "history run after a killed "
            "bench-commits: the stale worktree removed, and")


def history_db(path, benchmarks, commits):
    """A history database as `perflab history run` makes it (schema 1)."""
    import sqlite3
    db = sqlite3.connect(path)
    db.executescript("""
CREATE TABLE machines (id INTEGER PRIMARY KEY, cpu TEXT NOT NULL, cores INTEGER NOT NULL,
  kernel TEXT NOT NULL, governor TEXT NOT NULL, UNIQUE (cpu, cores, kernel, governor));
CREATE TABLE commits (sha TEXT PRIMARY KEY, parent TEXT NOT NULL, time INTEGER NOT NULL,
  subject TEXT NOT NULL);
CREATE TABLE runs (id INTEGER PRIMARY KEY, sha TEXT NOT NULL REFERENCES commits (sha),
  machine INTEGER NOT NULL REFERENCES machines (id), filter TEXT NOT NULL,
  instructions INTEGER NOT NULL, built INTEGER NOT NULL,
  UNIQUE (sha, machine, filter, instructions));
CREATE TABLE samples (run INTEGER NOT NULL REFERENCES runs (id), benchmark TEXT NOT NULL,
  repetition INTEGER NOT NULL, real_time REAL NOT NULL, cpu_time REAL NOT NULL,
  unit TEXT NOT NULL, instructions REAL, counters TEXT NOT NULL,
  PRIMARY KEY (run, benchmark, repetition));
PRAGMA application_id = 1885760616; PRAGMA user_version = 1;""")
    db.execute("INSERT INTO machines VALUES (1, 'cpu', 2, 'kernel', 'none')")
    for i in range(commits):
        sha = f"{i:040x}"
        db.execute("INSERT INTO commits VALUES (?, ?, ?, ?)", (sha, f"{i - 1:040x}", i,
                                                               f"commit {i}"))
        db.execute("INSERT INTO runs VALUES (?, ?, 1, '.', 0, 1)", (i + 1, sha))
        for b in benchmarks:
            for rep in range(5):
                t = 100.0 * (3 if i >= commits // 2 else 1) + rep
                db.execute("INSERT INTO samples VALUES (?, ?, ?, ?, ?, 'ns', NULL, '{}')",
                           (i + 1, b, rep, t, t))
    db.commit()
    db.close()


def case_history_plot(c, rng):
    del rng
    db = os.path.join(c.dir, "history.sqlite")
    # Enough series that the plotter is still drawing when the run is seen
    # to reach it: with three it could finish between two looks.
    benches = [f"BM_{i:02d}" for i in range(60)]
    history_db(db, benches, 12)
    plots = os.path.join(c.out, "plots")
    os.makedirs(plots)
    for b in benches:
        with open(os.path.join(plots, f"{b}.svg"), "w") as f:
            f.write(f"the previous plot of {b}\n")
    for sig, moment in signals_and_moments(["stage", "plotter", "first plot"]):
        before = snapshot(c.out)
        argv = [c.perflab, "history", "plot", "--db", db, "--machine", "1", "--out-dir",
                plots]
        run = Run(argv, c.env, c.dir)
        if moment == "stage":
            run.until(lambda r: any(n.startswith(".history-plot.")
                                    for n in os.listdir(plots)), "the staging folder")
        elif moment == "plotter":
            run.until(lambda r: any("history.py" in " ".join(a) for a in r.seen.values()),
                      "tools/plots/history.py running")
        else:
            def drawn(_):
                try:
                    return any(n.endswith(".svg") for d in os.listdir(plots)
                               if d.startswith(".history-plot.")
                               for n in os.listdir(os.path.join(plots, d)))
                except FileNotFoundError:  # the run ended meanwhile
                    return False
            run.until(drawn, "the first plot drawn")
        c.check(run, sig, run.interrupt(sig), before, f"history plot ({moment})",
                children=moment != "stage")


CASES = {
    "calibrate": case_calibrate,
    "calibrate-sigkill": case_calibrate_sigkill,
    "sweep": case_sweep,
    "capstone": case_capstone,
    "capstone-real": case_capstone_real,
    "report": case_report,
    "fixtures-build": case_fixtures_build,
    "orders-dataset": case_orders_dataset,
    "history-run": case_history_run,
    "history-run-sigkill": case_history_run_sigkill,
    "history-plot": case_history_plot,
}


def main():
    if len(sys.argv) < 3:
        print("usage: interrupt_test.py PERFLAB SOURCE_DIR [CASE...]", file=sys.stderr)
        return 2
    perflab, source = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    names = sys.argv[3:] or list(CASES)
    base = tempfile.mkdtemp(prefix="perflab-interrupt-")
    try:
        for name in names:
            if name == "report" and subprocess.run(
                    ["/usr/bin/python3", "-c", "import matplotlib"],
                    capture_output=True).returncode != 0:
                print("skip: report (no python3-matplotlib)")
                continue
            # Each case its own stream of the seed, the same when run alone.
            CASES[name](Case(name, perflab, source, base), random.Random(f"{SEED}:{name}"))
    finally:
        shutil.rmtree(base, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
