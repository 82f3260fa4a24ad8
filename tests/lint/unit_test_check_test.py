#!/usr/bin/env python3
"""Tests of tests/lint/unit_test_check on small trees written here.

Each tree is a few empty files; what the check must say about it follows
from the rule in its docstring (NAME_test.cc in the mirrored test folder,
or an allowlist entry naming existing tests), worked out by hand per case.
"""
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
CHECK = os.path.join(HERE, "unit_test_check")


def tree(root, files):
    for path, text in files.items():
        full = os.path.join(root, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "w", encoding="utf-8") as f:
            f.write(text)


def check(root, allow_lines):
    allow = os.path.join(root, "allow")
    with open(allow, "w", encoding="utf-8") as f:
        f.write("# comment\n" + "".join(line + "\n" for line in allow_lines))
    p = subprocess.run([sys.executable, CHECK, root, allow],
                       capture_output=True, text=True, check=False)
    return p.returncode, p.stdout + p.stderr


BASE = {
    "core/a.h": "", "core/a.cc": "",        # unit core/a, own test
    "core/b.h": "",                          # unit core/b, no own test
    "sim/src/c.cc": "",                      # mirrored to tests/sim/
    "tools/sweep/bench_sweep.cc": "",        # a benchmark binary: no unit
    "tools/perflab/main.cc": "",             # main: no unit
    "bench/bench_db.cc": "",                 # bench/ itself is not scanned
    "tests/core/a_test.cc": "",
    "tests/sim/c_test.cc": "",
    "tests/core/other_test.cc": "",
}


class UnitTestCheck(unittest.TestCase):

    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.root = self.dir.name
        tree(self.root, BASE)

    def tearDown(self):
        self.dir.cleanup()

    def test_passes_when_every_unit_has_its_test_or_an_entry(self):
        rc, out = check(self.root, ["core/b\ttests/core/other_test.cc"])
        self.assertEqual(rc, 0, out)
        # core/a, core/b, sim/src/c: three units (main, bench_sweep and
        # bench/bench_db are not units).
        self.assertIn("3 units, 1 tested elsewhere", out)

    def test_a_unit_with_neither_fails(self):
        rc, out = check(self.root, [])
        self.assertEqual(rc, 1, out)
        self.assertIn("core/b has no test file tests/core/b_test.cc", out)
        self.assertNotIn("core/a has no", out)

    def test_an_entry_for_a_unit_with_its_own_test_fails(self):
        rc, out = check(self.root, ["core/b\ttests/core/other_test.cc",
                                    "core/a\ttests/core/other_test.cc"])
        self.assertEqual(rc, 1, out)
        self.assertIn("core/a has its own test tests/core/a_test.cc now", out)

    def test_an_entry_naming_a_missing_test_fails(self):
        rc, out = check(self.root, ["core/b\ttests/core/nowhere_test.cc"])
        self.assertEqual(rc, 1, out)
        self.assertIn("tests/core/nowhere_test.cc, which does not exist", out)

    def test_a_label_is_not_a_file(self):
        rc, out = check(self.root, ["core/b\tlabel:bench-smoke"])
        self.assertEqual(rc, 0, out)

    def test_an_entry_for_a_gone_unit_fails(self):
        rc, out = check(self.root, ["core/b\ttests/core/other_test.cc",
                                    "core/gone\ttests/core/other_test.cc"])
        self.assertEqual(rc, 1, out)
        self.assertIn("core/gone is not a unit", out)

    def test_a_malformed_entry_is_named(self):
        rc, out = check(self.root, ["core/b"])
        self.assertNotEqual(rc, 0, out)
        self.assertIn("expected 'unit<TAB>test files'", out)


if __name__ == "__main__":
    unittest.main()
