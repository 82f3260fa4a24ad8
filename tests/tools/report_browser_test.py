#!/usr/bin/env python3
"""reports/index.html in a real browser (ctest label `report`).

  report_browser_test.py PERFLAB SOURCE_DIR [unittest args]

Renders a report (the committed capstone run reused, a small history
database made here) and opens its index and a history page in headless
Chromium at 1280 and 390 px wide: no console error, no failed load, no
image that did not load, no page wider than the window, every plot region
drawn (more than one colour in its screenshot), and the page prints to a PDF.
The screenshots stay in ./report_browser/ (the test's working folder) for a
person to look at. Exit 77 (skipped) only where Chromium cannot start.
"""

import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from chromium import CannotStart, Chromium, find_binary, png_colours  # noqa: E402

PERFLAB = SOURCE = None
PYTHON = "/usr/bin/python3"
WIDTHS = (1280, 390)
SHOTS = os.path.abspath("report_browser")
# A subject a page must escape, not interpret.
ODD_SUBJECT = 'plots: <b>bold</b> & "quoted"'


# The shape of `perflab capstone --real --format json` (tools/capstone/real_table.cc),
# two steps, figures made up.
REAL_RUN = {
    "title": "perflab capstone --real: the order service measured on this machine",
    "steps_within_30_pct": 1, "steps": 2, "same_direction": "1 of 1",
    "real": [{"step": "baseline", "rps": 95.5, "p99_ms": 410.25},
             {"step": "index", "rps": 812.0, "p99_ms": 60.5}],
    "composed": [{"step": "baseline", "rps": 120.0, "p99_ms": 390.0},
                 {"step": "index", "rps": 1500.0, "p99_ms": 41.0}],
    "difference": [{"step": "baseline", "rps_pct": 25.65},
                   {"step": "index", "rps_pct": 84.73}],
    "notes": ["Scaled to this machine."]}


def make_history(path):
    """A history database: the fuzz corpus's (real schema, made by perflab),
    plus a second machine with 24 commits of three benchmarks, BM_Step 30 %
    slower from commit 16 on (repetitions 100 + k, then 130 + k)."""
    shutil.copy(os.path.join(SOURCE, "tests", "fuzz", "corpus", "history_store_fuzz",
                             "eight_commits.sqlite"), path)
    db = sqlite3.connect(path)
    with db:
        db.execute("INSERT INTO machines (id, cpu, cores, kernel, governor) "
                   "VALUES (2, 'Test CPU', 2, '6.1.0', 'performance')")
        for i in range(24):
            sha = f"{i:02d}b" + "b" * 37
            subject = ODD_SUBJECT if i == 16 else f"commit {i}"
            db.execute("INSERT INTO commits VALUES (?, ?, ?, ?)", (sha, "", 2000 + i, subject))
            run = db.execute("INSERT INTO runs (sha, machine, filter, instructions, built) "
                             "VALUES (?, 2, 'BM_', 0, 1)", (sha,)).lastrowid
            for bench, level in (("BM_Flat", 50), ("BM_Step", 130 if i >= 16 else 100),
                                 ("BM_Other/8", 20)):
                for k in range(5):
                    db.execute("INSERT INTO samples VALUES (?, ?, ?, ?, ?, 'ns', NULL, '{}')",
                               (run, bench, k, level + k, level + k))
    db.close()


class Browser(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.scratch = tempfile.TemporaryDirectory(prefix="perflab-report-browser.")
        tmp = cls.scratch.name
        db = os.path.join(tmp, "history.sqlite")
        make_history(db)
        real = os.path.join(tmp, "capstone_real.json")
        with open(real, "w", encoding="utf-8") as f:
            json.dump(REAL_RUN, f)
        cls.out = os.path.join(tmp, "report")
        r = subprocess.run([PYTHON, os.path.join(SOURCE, "tools", "plots", "report.py"),
                            "--perflab", PERFLAB, "--out", cls.out, "--capstone-run",
                            os.path.join(SOURCE, "reports"), "--history", db,
                            "--real-run", real],
                           capture_output=True, text=True, check=False)
        if r.returncode != 0:
            raise AssertionError(f"report failed: {r.stderr}")
        os.makedirs(SHOTS, exist_ok=True)
        cls.chrome = Chromium(BINARY, os.path.join(tmp, "profile")).__enter__()

    @classmethod
    def tearDownClass(cls):
        cls.chrome.__exit__(None, None, None)
        cls.scratch.cleanup()

    def check_page(self, path, name):
        url = "file://" + path
        for width in WIDTHS:
            with self.subTest(page=name, width=width):
                page = self.chrome.open(url, width)
                self.assertEqual(page.problems, [])
                broken = page.eval("Array.from(document.images).filter(i => !i.complete || "
                                   "i.naturalWidth === 0).map(i => i.src)")
                self.assertEqual(broken, [])
                self.assertEqual(page.eval("document.scripts.length"), 0)  # readable without JS
                # Readable: nothing wider than the window (wide tables scroll in their box).
                self.assertLessEqual(page.eval("document.documentElement.scrollWidth"), width)
                with open(os.path.join(SHOTS, f"{name}-{width}.png"), "wb") as f:
                    f.write(page.screenshot())
                rects = page.eval(
                    "Array.from(document.querySelectorAll('figure')).map(s => {"
                    "const r = s.getBoundingClientRect(); return {x: r.left + scrollX, "
                    "y: r.top + scrollY, width: r.width, height: r.height}; })")
                self.assertGreater(len(rects), 0)
                for k, rect in enumerate(rects):
                    self.assertGreater(rect["width"], 0.5 * min(width, 700) - 40, (k, rect))
                    self.assertGreater(rect["height"], 50, (k, rect))
                    # A region off screen is rastered for the capture; on a
                    # busy machine the first capture can come before its
                    # tiles. A plot that is blank stays blank after frames.
                    colours = png_colours(page.screenshot(rect))
                    for _ in range(3):
                        if colours >= 2:
                            break
                        page.next_frames()
                        colours = png_colours(page.screenshot(rect))
                    self.assertGreaterEqual(colours, 2, f"plot {k} is blank at {width} px")
                pdf = page.pdf()
                self.assertEqual(pdf[:5], b"%PDF-")
                self.assertEqual(page.problems, [])
                page.close()

    def test_index_page(self):
        self.check_page(os.path.join(self.out, "index.html"), "index")

    def test_history_page(self):
        self.check_page(os.path.join(self.out, "history", "BM_Step.html"), "history-BM_Step")

    def test_keyboard_reaches_the_contents_and_every_link_lands(self):
        page = self.chrome.open("file://" + os.path.join(self.out, "index.html"), 1280)
        for kind in ("keyDown", "keyUp"):
            page.call("Input.dispatchKeyEvent", {"type": kind, "key": "Tab", "code": "Tab",
                                                 "windowsVirtualKeyCode": 9})
        self.assertEqual(page.eval("document.activeElement.className"), "skip")
        dangling = page.eval(
            "Array.from(document.querySelectorAll('a[href^=\"#\"]')).map(a => "
            "a.getAttribute('href').slice(1)).filter(id => !document.getElementById(id))")
        self.assertEqual(dangling, [])
        # Each scrolling table box takes focus, so a keyboard can scroll it.
        self.assertEqual(page.eval("Array.from(document.querySelectorAll('.wrap')).filter("
                                   "w => w.tabIndex !== 0).length"), 0)

    def test_real_run_beside_the_composed_model(self):
        page = self.chrome.open("file://" + os.path.join(self.out, "index.html"), 1280)
        rows = page.eval(
            "Array.from(document.querySelectorAll('#capstone-real table')).map(t => "
            "[t.caption.textContent, Array.from(t.tBodies[0].rows).map(r => "
            "Array.from(r.cells).map(c => c.textContent))])")
        got = {caption: cells for caption, cells in rows}
        self.assertEqual(got["real"], [["baseline", "95.5", "410.25"], ["index", "812", "60.5"]])
        self.assertEqual(got["composed"][1], ["index", "1,500", "41"])
        self.assertIn(["same_direction", "1 of 1"], got["summary"])

    def test_history_hover_names_the_commit(self):
        page = self.chrome.open("file://" + os.path.join(self.out, "history", "BM_Step.html"),
                                1280)
        titles = page.eval("Array.from(document.querySelectorAll('circle > title'))"
                           ".map(t => t.textContent)")
        self.assertEqual(len(titles), 24)
        self.assertTrue(titles[16].startswith("16bbbbbbbb " + ODD_SUBJECT), titles[16])
        self.assertIn("median 132 ns", titles[16])  # 130..134: the middle one
        marks = page.eval("Array.from(document.querySelectorAll('line[stroke-dasharray]'))"
                          ".map(l => l.parentNode.querySelector('title').textContent)")
        self.assertEqual(len(marks), 1, marks)
        self.assertIn("16bbbbbbbb", marks[0])


if __name__ == "__main__":
    PERFLAB, SOURCE = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    BINARY = find_binary()
    if BINARY is None:
        print("skipped: no Chromium (install Debian's chromium: tools/lab packages test)")
        sys.exit(77)
    try:
        with tempfile.TemporaryDirectory(prefix="perflab-chromium-probe.") as probe:
            with Chromium(BINARY, probe):
                pass
    except CannotStart as e:
        print(f"skipped: Chromium cannot start here: {e}")
        sys.exit(77)
    unittest.main(argv=[sys.argv[0], *sys.argv[3:]], verbosity=2)
