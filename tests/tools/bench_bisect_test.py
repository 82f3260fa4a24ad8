#!/usr/bin/env python3
"""ctest tools.bench-bisect: tools/bench-commits' bisection against scripted
oracles over 64 commits (no build): the culprit found, in about log2(64)
judgements, commits that do not build skipped and never blamed.
  bench_bisect_test.py SOURCE_DIR"""
import importlib.machinery
import importlib.util
import math
import os
import sys


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
    return 0


if __name__ == "__main__":
    sys.exit(main())
