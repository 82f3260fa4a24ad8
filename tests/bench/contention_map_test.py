#!/usr/bin/env python3
"""The contention fields of bench/benchmarks.json against bench_contention.

  contention_map_test.py BENCH_CONTENTION MAP_JSON [unittest args]

The expected entries are built here from the parts and thread counts the
issue names (a field per part at 2, 4, 8 and 16 threads, one core), not
read from the map or from a run: each must name the run of its part at n
threads on one core, minus the same part's run with one thread, and both
names must be runs that bench_contention lists.
"""

import json
import subprocess
import sys
import unittest

BINARY = MAP = None

# Calibration field's part -> benchmark's part.
PARTS = {"cache": "Cache", "pool": "Pool", "page": "PageAlloc", "stats": "Stats"}
THREADS = (2, 4, 8, 16)


def expected():
    out = {}
    for field_part, bench_part in PARTS.items():
        for n in THREADS:
            out[f"contention_{field_part}_{n}t_us"] = (
                f"BM_Contention_{bench_part}/cores:1/threads:{n}",
                f"BM_Contention_{bench_part}/cores:1/threads:1")
    return out


class ContentionMapTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        with open(MAP, encoding="utf-8") as f:
            cls.map = json.load(f)["calibration"]
        listed = subprocess.run([BINARY, "--benchmark_list_tests=true"],
                                capture_output=True, text=True, check=True)
        cls.runs = {line.strip() for line in listed.stdout.splitlines() if line.strip()}

    def test_every_field_is_mapped_and_nothing_else(self):
        mapped = {k for k in self.map if k.startswith("contention_")}
        self.assertEqual(mapped, set(expected()))
        self.assertEqual(len(mapped), 16)

    def test_each_field_is_its_run_minus_the_one_thread_run(self):
        for field, (run, one_thread) in sorted(expected().items()):
            with self.subTest(field=field):
                e = self.map[field]
                self.assertEqual(e["family"], "contention")
                self.assertEqual(e["metric"], "cpu_per_op_us")
                self.assertEqual(e["benchmark"], run)
                self.assertEqual(e["conversion"]["minus"], one_thread)
                self.assertNotIn("multiply", e["conversion"])
                self.assertTrue(e["conversion"]["why"])

    def test_the_named_runs_exist(self):
        for field, names in sorted(expected().items()):
            for name in names:
                with self.subTest(field=field, name=name):
                    self.assertIn(name, self.runs)
        # Both core counts, all five thread counts, four parts.
        self.assertEqual(len([r for r in self.runs if r.startswith("BM_Contention_")]),
                         4 * 2 * 5)


if __name__ == "__main__":
    BINARY, MAP = sys.argv[1], sys.argv[2]
    unittest.main(argv=[sys.argv[0]] + sys.argv[3:])
