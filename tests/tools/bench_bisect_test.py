#!/usr/bin/env python3
"""ctest tools.bench-bisect: tools/bench-commits' bisection against scripted
oracles over 64 commits (no build): the culprit found, in about log2(64)
judgements, commits that do not build skipped and never blamed.
  bench_bisect_test.py SOURCE_DIR"""
import contextlib
import importlib.machinery
import importlib.util
import io
import math
import os
import subprocess
import sys
import tempfile
import types


def load(root):
    sys.dont_write_bytecode = True  # no __pycache__ beside tools/bench-commits
    path = os.path.join(root, "tools", "bench-commits")
    loader = importlib.machinery.SourceFileLoader("bench_commits", path)
    spec = importlib.util.spec_from_loader("bench_commits", loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def oracle(culprit, broken=()):
    calls = []

    def judge(i):
        calls.append(i)
        if i in broken:
            return "skip"
        return "slower" if i >= culprit else "same"
    return judge, calls


def main():
    bc = load(sys.argv[1])
    n = 64
    limit = math.ceil(math.log2(n))  # 6: the BAD check is outside the search
    for culprit in range(1, n + 1):
        judge, calls = oracle(culprit)
        found, skipped, steps = bc.bisect_search(n, judge)
        assert found == culprit and skipped == [], (culprit, found, skipped)
        assert len(calls) <= limit, (culprit, len(calls), calls)
        assert len(set(calls)) == len(calls), calls  # no commit judged twice
        assert [i for i, _ in steps] == calls
    # Broken builds around the culprit: skipped, their neighbours tried; the
    # one just before the culprit cannot be told apart from it, so it is
    # listed beside it.
    for culprit in (5, 31, 32, 33, 60):
        broken = {culprit - 1, culprit + 1, 16, 48}
        judge, calls = oracle(culprit, broken)
        found, skipped, _ = bc.bisect_search(n, judge)
        assert found == culprit and skipped == [culprit - 1], (culprit, found, skipped)
        assert len(calls) <= limit + len(broken), (culprit, calls)
    # The culprit itself does not build: the next one that builds is named,
    # with the unbuildable one reported beside it, never blamed alone.
    judge, calls = oracle(20, broken={20})
    found, skipped, _ = bc.bisect_search(n, judge)
    assert (found, skipped) == (21, [20]), (found, skipped)
    # Every commit but BAD broken: BAD is the answer, all others listed.
    judge, calls = oracle(64, broken=set(range(1, 64)))
    found, skipped, _ = bc.bisect_search(n, judge)
    assert found == 64 and skipped == list(range(1, 64)), (found, skipped)
    print(f"ok: 64 culprits found in <= {limit} steps each; broken builds skipped")
    check_refusals(bc)
    return 0


def refused(call):
    """The one line a refusal printed, after exit 2."""
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        try:
            call()
        except SystemExit as e:
            assert e.code == 2, e.code
            return err.getvalue()
    raise AssertionError("not refused")


def git(repo, *args):
    return subprocess.run(["git", "-C", repo, *args], check=True, capture_output=True,
                          text=True).stdout.strip()


def check_refusals(bc):
    """GOOD on a sibling branch of BAD is refused (GOOD..BAD is not empty
    there), as is a --perflab that is a directory or another program."""
    with tempfile.TemporaryDirectory(prefix="perflab-bisect-") as repo:
        git(repo, "init", "-q")
        for key, value in (("user.name", "t"), ("user.email", "t@t")):
            git(repo, "config", key, value)
        git(repo, "commit", "-q", "--allow-empty", "-m", "base")
        base = git(repo, "rev-parse", "HEAD")
        git(repo, "commit", "-q", "--allow-empty", "-m", "a")
        a = git(repo, "rev-parse", "HEAD")
        git(repo, "checkout", "-q", base)
        git(repo, "commit", "-q", "--allow-empty", "-m", "b")
        b = git(repo, "rev-parse", "HEAD")
        bc.ROOT = repo
        assert bc.first_parents(base, b) == [b]
        line = refused(lambda: bc.first_parents(a, b))
        assert "GOOD is not an ancestor of BAD" in line, line
        assert line.count("\n") == 1, line
        assert "GOOD is not an ancestor" in refused(lambda: bc.first_parents(b, b))
        # A worktree that cannot be made is no build failure (exit 4, which
        # history run stores as "does not build"): a plain failure.
        class FailingTrees:
            tmp = repo

            def add(self, name, sha):
                raise bc.Failure("git worktree add: no space left on device")
        opts = types.SimpleNamespace(one=base, target_list=["bench_x"], filter="",
                                     instructions=False)
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            try:
                code = bc.one(opts, FailingTrees(), {})
            except bc.Failure:
                code = 3  # main() turns a Failure into exit 3
        assert code == 3, (code, err.getvalue())
        for path in (repo, "/bin/true"):
            line = refused(lambda: bc.perflab_binary(path))
            assert f"--perflab '{path}'" in line and line.count("\n") == 1, line
    print("ok: sibling GOOD, a directory and /bin/true as --perflab refused")


if __name__ == "__main__":
    sys.exit(main())
