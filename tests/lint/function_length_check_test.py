#!/usr/bin/env python3
"""Tests of tests/lint/function_length_check on a fixture counted by hand.

function_length_fixture/ holds C++ with the shapes that trip a brace
matcher (braces in strings, characters, raw strings and comments, a digit
separator, a macro, a constructor's brace initializers, in-class
definitions, a data table, a lambda, a trailing return type) and Python.
Each expected length below was counted in the fixture's source by line
number: closing line - opening line + 1.
"""
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
CHECK = os.path.join(HERE, "function_length_check")
FIXTURE = os.path.join(HERE, "function_length_fixture")

# (path, name, line of the opening brace or def, lines)
EXPECTED = [
    ("core/long.cc", "Long", 4, 101),          # lines 4..104
    ("core/sample.cc", "Short", 13, 1),        # one line
    ("core/sample.cc", "Literals", 16, 9),     # brace on 16 (2-line signature)..24
    ("core/sample.cc", "Counter", 28, 3),      # 28..30, past `values_{1, 2}`
    ("core/sample.cc", "Get", 31, 1),
    ("core/sample.cc", "operator+=", 32, 4),   # 32..35
    ("core/sample.cc", "Trailing", 42, 10),    # 42..51, its lambda inside
    ("tools/sample.py", "outer", 4, 5),        # 4..8
    ("tools/sample.py", "outer.inner", 5, 2),  # 5..6
    ("tools/sample.py", "Thing.method", 12, 4),  # 12..15
]


def run(*args):
    p = subprocess.run([sys.executable, CHECK, *args], capture_output=True,
                       text=True, check=False)
    return p.returncode, p.stdout + p.stderr


class FunctionLengthCheckTest(unittest.TestCase):
    def allowlist(self, text):
        f = tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False)
        f.write(text)
        f.close()
        self.addCleanup(os.unlink, f.name)
        return f.name

    def test_lists_every_function_with_its_hand_counted_length(self):
        code, out = run("--list", FIXTURE)
        self.assertEqual(code, 0, out)
        got = [tuple(line.split("\t")) for line in out.splitlines()]
        got = [(p, n, int(first), int(lines)) for p, n, first, lines in got]
        self.assertEqual(got, EXPECTED)

    def test_a_new_long_function_fails(self):
        code, out = run(FIXTURE, self.allowlist("# nothing allowed\n"))
        self.assertEqual(code, 1, out)
        self.assertIn("core/long.cc:4: Long is 101 lines (limit 100)", out)

    def test_an_allowlisted_function_at_its_length_passes(self):
        code, out = run(FIXTURE, self.allowlist("core/long.cc\tLong\t101\n"))
        self.assertEqual(code, 0, out)

    def test_an_allowlisted_function_that_grew_fails(self):
        code, out = run(FIXTURE, self.allowlist("core/long.cc\tLong\t100\n"))
        self.assertEqual(code, 1, out)
        self.assertIn("Long grew to 101 lines (allowlisted at 100)", out)

    def test_a_shrunk_entry_is_reported_and_passes(self):
        code, out = run(FIXTURE, self.allowlist(
            "core/long.cc\tLong\t150\ncore/gone.cc\tGone\t120\n"))
        self.assertEqual(code, 0, out)
        self.assertIn("shrank to 101 lines (allowlisted at 150)", out)
        self.assertIn("core/gone.cc Gone is no longer over 100 lines", out)

    def test_a_malformed_allowlist_is_one_line_and_exit_2(self):
        code, out = run(FIXTURE, self.allowlist("core/long.cc Long 101\n"))
        self.assertEqual(code, 2, out)
        self.assertIn("expected path<TAB>name<TAB>lines", out)


if __name__ == "__main__":
    unittest.main()
