#!/usr/bin/env python3
"""Tests of tools/plots/report.py (ctest label `report`).

  report_test.py PERFLAB SOURCE_DIR [unittest args]

Deterministic: two renders of the same inputs are byte-identical (the
committed reports/ stand for the second when they match). Valid: each
SVG parses as XML and carries its title and axis labels as text. Fresh: a
regeneration matches the committed reports/ byte for byte. Bad input: one
line, exit 2, the output folder untouched. Exit 77 (skipped) when
/usr/bin/python3 has no matplotlib.
"""

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest
import xml.etree.ElementTree as ET
from html.parser import HTMLParser

PERFLAB = SOURCE = None
PYTHON = "/usr/bin/python3"
SVG = "{http://www.w3.org/2000/svg}"


def script():
    return os.path.join(SOURCE, "tools", "plots", "report.py")


def run(out, *extra, python_flags=()):
    # The capstone with --sensitivity takes minutes: every render here reads the
    # committed run (reports/capstone_run.csv); `tools/lab report` makes a fresh one.
    return subprocess.run([PYTHON, *python_flags, script(), "--perflab", PERFLAB, "--out", out,
                           "--capstone-run", os.path.join(SOURCE, "reports"), *extra],
                          capture_output=True, text=True, check=False)


def read_csv(path):
    import csv
    with open(path, encoding="utf-8") as f:
        return list(csv.DictReader(f))


def capstone_tables(path):
    """The capstone's own CSV, split at its '# name' lines (parsed here, not by the report)."""
    import csv
    import io
    with open(path, encoding="utf-8") as f:
        blocks = f.read().split("\n# ")
    out = {}
    for b in blocks:
        name, _, body = b.lstrip("# ").partition("\n")
        out[name.strip()] = list(csv.DictReader(io.StringIO(body.strip())))
    return out


def digests(folder):
    out = {}
    for name in sorted(os.listdir(folder)):
        path = os.path.join(folder, name)
        if os.path.isfile(path):
            with open(path, "rb") as f:
                out[name] = hashlib.sha256(f.read()).hexdigest()
    return out


SCRATCH = None  # one render shared by the classes below, removed at exit


def first_render():
    global SCRATCH
    if SCRATCH is None:
        SCRATCH = tempfile.TemporaryDirectory(prefix="perflab-report-test.")
        r = run(os.path.join(SCRATCH.name, "first"), "--bench",
                os.path.join(SOURCE, "reports", "bench"))
        if r.returncode != 0:
            raise AssertionError(f"report failed: {r.stderr}")
    return SCRATCH.name, os.path.join(SCRATCH.name, "first")


def stale_files(rendered):
    """The committed reports/ files that differ from (or are missing in) a
    render in `rendered`."""
    committed = os.path.join(SOURCE, "reports")
    # Only what git tracks: `perflab capstone` also writes an (ignored)
    # reports/capstone.csv with this machine's figures.
    tracked = subprocess.run(["git", "-C", SOURCE, "ls-files", "reports"],
                             capture_output=True, text=True, check=False)
    keep = ({os.path.basename(p) for p in tracked.stdout.split()}
            if tracked.returncode == 0 and tracked.stdout else None)
    want = {n: d for n, d in digests(committed).items()
            if (n in ("README.md", "index.html") or n.endswith((".svg", ".csv")))
            and (keep is None or n in keep)}
    got = digests(rendered)
    return sorted(n for n in set(want) | set(got) if want.get(n) != got.get(n))


class Report(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp, cls.first = first_render()

    def test_two_renders_are_byte_identical(self):
        # When this render matches the committed reports/, those were the
        # second render (of another process and build): a third would only
        # repeat the comparison, at the cost of the whole report.
        if not stale_files(self.first):
            self.skipTest("the committed reports/ are a byte-identical second render")
        second = os.path.join(self.tmp, "second")
        r = run(second, "--bench", os.path.join(SOURCE, "reports", "bench"))
        self.assertEqual(r.returncode, 0, r.stderr)
        a, b = digests(self.first), digests(second)
        self.assertGreaterEqual(len([n for n in a if n.endswith(".svg")]), 9)
        self.assertEqual(a, b)

    def test_each_svg_has_title_and_axis_labels_as_text(self):
        with open(os.path.join(self.first, "README.md"), encoding="utf-8") as f:
            index = f.read()
        for name in sorted(os.listdir(self.first)):
            if not name.endswith(".svg"):
                continue
            with self.subTest(svg=name):
                self.assertIn(f"]({name})", index)  # the index shows every plot
                root = ET.parse(os.path.join(self.first, name)).getroot()
                self.assertEqual(root.tag, SVG + "svg")
                texts = {}
                for g in root.iter(SVG + "g"):
                    gid = g.get("id", "")
                    texts[gid] = "".join(t.text or "" for t in g.iter(SVG + "text")).strip()
                self.assertTrue(texts.get("title"), "no title")
                xl = [v for k, v in texts.items() if k.startswith("xlabel-")]
                yl = [v for k, v in texts.items() if k.startswith("ylabel-")]
                self.assertTrue(xl and all(xl), "no x-axis label")
                self.assertTrue(yl and all(yl), "no y-axis label")
                # A unit or a scale in every y label: "(ms)", "(req/s)", "(%)" ...
                for label in yl:
                    self.assertRegex(label, r"\(.+\)", label)

    def test_capstone_plots_show_the_run(self):
        run_ = capstone_tables(os.path.join(self.first, "capstone_run.csv"))
        for slug in ("rps", "p99", "cost", "cpu", "caps", "sensitivity"):
            self.assertTrue(os.path.exists(os.path.join(self.first, f"capstone_{slug}.svg")), slug)
        steps = {r["name"]: r for r in run_["steps"]}
        case = {r["name"]: r for r in run_["case_study"]}
        rps = read_csv(os.path.join(self.first, "capstone_rps.csv"))
        self.assertEqual([r["step"] for r in rps], [r["name"] for r in run_["steps"]])
        for r in rps:
            self.assertAlmostEqual(float(r["perflab_rps"]), float(steps[r["step"]]["rps"]))
            self.assertAlmostEqual(float(r["case_study_rps"]), float(case[r["step"]]["rps"]))
        for r in read_csv(os.path.join(self.first, "capstone_p99.csv")):
            self.assertAlmostEqual(float(r["perflab_open_p99_ms"]),
                                   float(steps[r["step"]]["open_p99_ms"]))
            self.assertAlmostEqual(float(r["case_study_p99_ms"]), float(case[r["step"]]["p99_ms"]))
        for r in read_csv(os.path.join(self.first, "capstone_cpu.csv")):
            # Each share is its own median over the repeats, so the sum is only near 100.
            self.assertAlmostEqual(sum(float(v) for k, v in r.items() if k != "step"), 100,
                                   delta=0.05)
        # The rig the titles and legends name is the one the run states.
        fields = {r["key"]: r["value"] for r in run_["fields"]}
        clients, rate = fields["closed_loop_clients"], fields["open_loop_rate_per_s"]
        for slug, text in (("rps", f"({clients} closed-loop clients)"),
                           ("p99", f"perflab, closed loop ({clients} clients)"),
                           ("p99", f"perflab, open loop ({rate} req/s)")):
            with open(os.path.join(self.first, f"capstone_{slug}.svg"), encoding="utf-8") as f:
                self.assertIn(text, f.read(), slug)
        # The caps: each busy share recomputed from the run's busy and size
        # columns; virtual threads have no cap, so no share and no wait.
        caps = {r["name"]: r for r in run_["caps"]}
        for r in read_csv(os.path.join(self.first, "capstone_caps.csv")):
            c = caps[r["step"]]
            for share, busy, size in (("pool_busy_pct", "pool_busy", "pool"),
                                      ("cores_busy_pct", "cores_busy", "app_cores")):
                self.assertAlmostEqual(float(r[share]), 100 * float(c[busy]) / float(c[size]))
            if c["threads"] == "virtual":
                self.assertEqual((r["threads_busy_pct"], r["thread_wait_ms"]), ("", ""))
            else:
                self.assertAlmostEqual(float(r["threads_busy_pct"]),
                                       100 * float(c["threads_busy"]) / float(c["threads"]))
        # The boxed top three per step: the three most negative elasticities of
        # the run's full sensitivity table, recomputed here by sorting.
        want = {}
        for r in run_["sensitivity"]:
            want.setdefault(r["name"], []).append((float(r["elasticity"]), r["field"]))
        got = {}
        for r in read_csv(os.path.join(self.first, "capstone_sensitivity.csv")):
            if r["rank"]:
                got.setdefault(r["step"], {})[int(r["rank"])] = r["cost"]
        for step, pairs in want.items():
            top = [f for e, f in sorted(pairs, key=lambda p: p[0]) if e < 0][:3]
            self.assertEqual([got[step][k] for k in sorted(got[step])], top, step)

    def test_capstone_mva_plot_shows_the_networks_the_capstone_derives(self):
        # The plot's demands come from the capstone with the seed-h2 calibration
        # (the one `perflab sim order-service` runs): rerun it here, a few seconds.
        self.assertTrue(os.path.exists(os.path.join(self.first, "capstone_mva.svg")))
        r = subprocess.run([PERFLAB, "capstone", "--calibration",
                            os.path.join("fixtures", "calibration", "seed-h2.json"), "--format",
                            "json", "--out-dir", os.path.join(self.tmp, "capstone-seed-h2")],
                           capture_output=True, text=True, check=False, cwd=SOURCE)
        self.assertEqual(r.returncode, 0, r.stderr)
        mva = {m["name"]: m for m in json.loads(r.stdout)["mva"]}
        rows = read_csv(os.path.join(self.first, "capstone_mva.csv"))
        steps = sorted({row["step"] for row in rows})
        self.assertIn("baseline", steps)
        for step in steps:
            with self.subTest(step=step):
                mine = [row for row in rows if row["step"] == step]
                self.assertEqual([int(row["clients"]) for row in mine], list(range(1, 65)))
                stations = mva[step]["stations"]
                # D and D_max from the stations, not from the capstone's totals.
                d_ms = sum(s["demand_ms"] for s in stations)
                d_max_ms = max(s["demand_ms"] / s["servers"] for s in stations
                               if s["kind"] == "queue")
                # One client queues nowhere: exact MVA gives X(1) = 1 / D.
                self.assertAlmostEqual(float(mine[0]["mva_rps"]), 1000 / d_ms, places=9)
                last = 0
                for row in mine:
                    n, x = int(row["clients"]), float(row["mva_rps"])
                    self.assertAlmostEqual(float(row["bound_clients_over_demand_rps"]),
                                           n * 1000 / d_ms, places=6)
                    self.assertAlmostEqual(float(row["bound_max_demand_rps"]), 1000 / d_max_ms,
                                           places=6)
                    self.assertLessEqual(x, min(n * 1000 / d_ms, 1000 / d_max_ms) * (1 + 1e-12))
                    self.assertGreaterEqual(x, last * (1 - 1e-12))  # more clients never lower X
                    last = x
                # Far past the knee the curve meets its ceiling (a network drawn
                # with the wrong servers would meet another one).
                if 64 >= 4 * mva[step]["knee_clients"]:
                    self.assertGreater(float(mine[-1]["mva_rps"]), 0.9 * 1000 / d_max_ms)
                simulated = [int(row["clients"]) for row in mine if row["simulated_rps"]]
                self.assertEqual(len(simulated), 6, simulated)
                self.assertIn(32, simulated)  # the rig's clients
        # The baseline's one-client point is the scenario's own run at its defaults.
        r = subprocess.run([PERFLAB, "sim", "order-service", "--set", "clients=1", "--format",
                            "json"], capture_output=True, text=True, check=False)
        self.assertEqual(r.returncode, 0, r.stderr)
        one = next(row for row in rows if row["step"] == "baseline" and row["clients"] == "1")
        self.assertAlmostEqual(float(one["simulated_rps"]), json.loads(r.stdout)["rps"])

    def test_committed_capstone_run_matches_the_code(self):
        # The renders reuse the committed run; this reruns the capstone itself
        # (without --sensitivity, a few seconds) so a model change that moves
        # any step's figure makes the committed report stale, and fails here.
        out = os.path.join(self.tmp, "capstone-fresh")
        r = subprocess.run([PERFLAB, "capstone", "--calibration",
                            os.path.join(SOURCE, "fixtures", "calibration", "reference-xeon-2vcpu-2026-12.json"),
                            "--format", "csv", "--out-dir", out],
                           capture_output=True, text=True, check=False, cwd=SOURCE)
        self.assertEqual(r.returncode, 0, r.stderr)
        fresh_path = os.path.join(self.tmp, "capstone-fresh.csv")
        with open(fresh_path, "w", encoding="utf-8") as f:
            f.write(r.stdout)
        fresh = capstone_tables(fresh_path)
        committed = capstone_tables(os.path.join(SOURCE, "reports", "capstone_run.csv"))
        for table in ("steps", "cpu_share", "caps", "case_study", "outcomes", "fidelity", "mva"):
            self.assertTrue(committed.get(table), f"no table '{table}' in the committed run")
            self.assertEqual(fresh.get(table), committed.get(table),
                             f"reports/capstone_run.csv table '{table}' is stale: "
                             "run `tools/lab report` and commit reports/")

    def test_no_date_or_version_in_svg(self):
        for name in os.listdir(self.first):
            if name.endswith(".svg"):
                with open(os.path.join(self.first, name), encoding="utf-8") as f:
                    text = f.read()
                self.assertNotIn("<dc:date>", text, name)
                self.assertNotIn("Matplotlib v", text, name)

    def test_committed_reports_are_fresh(self):
        stale = stale_files(self.first)
        self.assertEqual(stale, [], "reports/ is stale against the code: run `tools/lab report` "
                         "and commit reports/ (files that differ: " + ", ".join(stale) + ")")


class PageParser(HTMLParser):
    """Ids, id references, tags, and every table (caption, header, rows) of a page."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.ids, self.refs, self.tags, self.tables, self.urls = [], [], [], [], []
        self.cell = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.tags.append(tag)
        if "id" in a:
            self.ids.append(a["id"])
        for k, v in attrs:
            v = v or ""
            self.refs += re.findall(r"url\(#([^)]+)\)", v)
            if k in ("href", "xlink:href") and v.startswith("#"):
                self.refs.append(v[1:])
            if k in ("href", "src", "xlink:href") and not v.startswith("#"):
                self.urls.append(v)
        if tag == "table":
            self.tables.append({"caption": "", "header": [], "rows": []})
        elif tag == "tr" and self.tables:
            self.tables[-1]["rows"].append([])
        elif tag in ("td", "th", "caption"):
            self.cell = ""

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self.cell is not None:
            t = self.tables[-1]
            (t["header"] if tag == "th" else t["rows"][-1]).append(self.cell)
            self.cell = None
        elif tag == "caption":
            self.tables[-1]["caption"], self.cell = self.cell, None

    def handle_data(self, data):
        if self.cell is not None:
            self.cell += data


def parse_page(path):
    p = PageParser()
    with open(path, encoding="utf-8") as f:
        p.feed(f.read())
    for t in p.tables:
        t["rows"] = [r for r in t["rows"] if r]
    return p


def number_of(text):
    return float(text.replace(",", ""))


class Page(unittest.TestCase):
    """reports/index.html as a file (the browser test opens it)."""

    @classmethod
    def setUpClass(cls):
        cls.first = first_render()[1]
        cls.index = os.path.join(cls.first, "index.html")
        cls.page = parse_page(cls.index)
        with open(cls.index, encoding="utf-8") as f:
            cls.text = f.read()

    def test_needs_no_network_and_no_script(self):
        self.assertNotIn("script", self.page.tags)
        self.assertNotIn("link", self.page.tags)  # no stylesheet or font fetched
        self.assertNotIn("img", self.page.tags)  # every plot is inline
        self.assertNotRegex(self.text, r"@import|@font-face|url\((?!#)")
        # Links only to the CSVs beside it (a relative name, no scheme); a
        # plot's raster part (the heat map) is inline as a data: URI.
        for url in self.page.urls:
            self.assertRegex(url, r"^([A-Za-z0-9_./-]+|data:image/png;base64,[A-Za-z0-9+/=\s]+)$",
                             url[:80])

    def test_every_plot_inline_with_unique_ids_and_resolved_references(self):
        svgs = sorted(n[:-4] for n in os.listdir(self.first) if n.endswith(".svg"))
        self.assertEqual(self.page.tags.count("svg"), len(svgs))
        dupes = sorted({i for i in self.page.ids if self.page.ids.count(i) > 1})
        self.assertEqual(dupes, [])
        # A clip path or marker found in another plot would draw that plot's shape.
        self.assertEqual(sorted(set(self.page.refs) - set(self.page.ids)), [])
        for slug in svgs:
            with self.subTest(svg=slug):
                start = self.text.index(f'<section id="{slug}"')
                block = self.text[start:self.text.index("</section>", start)]
                self.assertIn("<svg ", block)
                self.assertIn("<table>", block)
                self.assertIn(f'href="{slug}.csv"', block)
                with open(os.path.join(self.first, slug + ".svg"), encoding="utf-8") as f:
                    svg = f.read()
                # This plot's own drawing: its title text, under its own prefixed id.
                title = re.search(r'<g id="title">\s*<text[^>]*>([^<]+)</text>', svg)
                self.assertIsNotNone(title, slug)
                self.assertRegex(block, f'<g id="{slug}-title">\\s*<text[^>]*>'
                                 + re.escape(title.group(1)) + "</text>")

    def test_capstone_table_factors_are_the_steps_own(self):
        table = next(t for t in self.page.tables if t["caption"].startswith("The ten steps"))
        h = table["header"]
        rps, factor = h.index("perflab RPS"), h.index("perflab factor (x)")
        self.assertEqual(len(table["rows"]), 10)
        for prev, row in zip(table["rows"], table["rows"][1:]):
            # Each factor is this step's RPS over the previous step's.
            self.assertAlmostEqual(number_of(row[factor]),
                                   number_of(row[rps]) / number_of(prev[rps]), delta=0.002)
        # The reference calibration's copied fields read every row but
        # keep-alive (cells, choices or runs; fixtures/calibration/README.md).
        held = [r[0] for r in table["rows"] if r[h.index("row is")] == "held out"]
        self.assertEqual(len(held), 1, held)
        self.assertTrue(any(t["caption"].startswith("Fidelity") for t in self.page.tables))

    def test_leave_one_row_out_is_shown(self):
        self.assertIn('id="leave-one-row-out"', self.text)
        start = self.text.index('id="leave-one-row-out"')
        self.assertIn("<table>", self.text[start:])


class BadInput(unittest.TestCase):
    def setUp(self):
        scratch = tempfile.TemporaryDirectory(prefix="perflab-report-bad.")
        self.addCleanup(scratch.cleanup)
        self.tmp = scratch.name
        inputs = tempfile.TemporaryDirectory(prefix="perflab-report-inputs.")
        self.addCleanup(inputs.cleanup)
        self.inputs = inputs.name  # bad inputs live apart: self.tmp holds only the report
        self.out = os.path.join(self.tmp, "reports")
        os.makedirs(os.path.join(self.out, "bench"))
        with open(os.path.join(self.out, "README.md"), "w", encoding="utf-8") as f:
            f.write("previous report\n")

    def assertOneLineExit2(self, r, *words):
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertEqual(len(r.stderr.strip().splitlines()), 1, r.stderr)
        for w in words:
            self.assertIn(w, r.stderr)
        with open(os.path.join(self.out, "README.md"), encoding="utf-8") as f:
            self.assertEqual(f.read(), "previous report\n")  # untouched
        self.assertEqual(sorted(os.listdir(self.tmp)), ["reports"])  # no temp folder left

    def test_missing_matplotlib_names_the_package(self):
        # -S: no site-packages, so Debian's matplotlib is out of reach.
        r = run(self.out, python_flags=("-S",))
        self.assertOneLineExit2(r, "python3-matplotlib", "apt-get install")

    def test_malformed_bench_summary(self):
        with open(os.path.join(self.out, "bench", "summary.json"), "w", encoding="utf-8") as f:
            f.write("{\"pairs\": [")
        r = run(self.out)
        self.assertOneLineExit2(r, "summary.json", "not valid JSON")

    def test_missing_calibration(self):
        r = run(self.out, "--calibration", os.path.join(self.tmp, "absent.json"))
        self.assertOneLineExit2(r, "absent.json")

    def test_capstone_run_from_another_calibration(self):
        r = run(self.out, "--calibration",
                os.path.join(SOURCE, "fixtures", "calibration", "seed-h2.json"))
        self.assertOneLineExit2(r, "capstone_run.csv", "seed-h2.json")

    def test_capstone_run_without_its_rig(self):
        # On the module itself: through report.py every scenario would run first.
        sys.dont_write_bytecode = True  # no __pycache__ in the source tree
        sys.path.insert(0, os.path.join(SOURCE, "tools", "plots"))
        try:
            import capstone
            from data import ReportError
        finally:
            sys.path.pop(0)
        with open(os.path.join(SOURCE, "reports", "capstone_run.csv"), encoding="utf-8") as f:
            text = "".join(line for line in f if not line.startswith("closed_loop_clients,"))
        fields = {r["key"]: r["value"] for r in capstone.parse_run(text, "run")["fields"]}
        with self.assertRaisesRegex(ReportError, "closed_loop_clients"):
            capstone.rig_of(fields, "run")

    def test_history_database_of_another_kind(self):
        import sqlite3
        other = os.path.join(self.inputs, "other.sqlite")
        db = sqlite3.connect(other)
        db.execute("CREATE TABLE t (x)")  # a valid SQLite file, not perflab's
        db.commit()
        db.close()
        r = run(self.out, "--history", other)
        self.assertOneLineExit2(r, "other.sqlite", "application_id 0",
                                "perflab history run")

    def test_history_database_of_another_schema(self):
        newer = os.path.join(self.inputs, "newer.sqlite")
        shutil.copy(os.path.join(SOURCE, "tests", "fuzz", "corpus", "history_store_fuzz",
                                 "eight_commits.sqlite"), newer)
        import sqlite3
        db = sqlite3.connect(newer)
        db.execute("PRAGMA user_version = 2")
        db.commit()
        db.close()
        r = run(self.out, "--history", newer)
        self.assertOneLineExit2(r, "newer.sqlite", "schema version 2")

    def test_history_that_is_not_a_file(self):
        r = run(self.out, "--history", os.path.join(self.tmp, "absent.sqlite"))
        self.assertOneLineExit2(r, "--history", "absent.sqlite")

    def test_real_run_without_its_tables(self):
        path = os.path.join(self.inputs, "real.json")
        with open(path, "w", encoding="utf-8") as f:
            f.write('{"title": "something else", "rows": []}')
        r = run(self.out, "--real-run", path)
        self.assertOneLineExit2(r, "real.json", "capstone --real --format json")

    def test_report_folder_that_is_a_file(self):
        with open(os.path.join(self.inputs, "file"), "w", encoding="utf-8") as f:
            f.write("x\n")
        r = run(os.path.join(self.inputs, "file"))
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertEqual(len(r.stderr.strip().splitlines()), 1, r.stderr)
        self.assertIn("is not a folder", r.stderr)
        with open(os.path.join(self.inputs, "file"), encoding="utf-8") as f:
            self.assertEqual(f.read(), "x\n")

    def test_missing_perflab(self):
        r = subprocess.run([PYTHON, script(), "--perflab", os.path.join(self.tmp, "nope"),
                            "--out", self.out], capture_output=True, text=True, check=False)
        self.assertOneLineExit2(r, "--perflab", "tools/lab build")


if __name__ == "__main__":
    PERFLAB, SOURCE = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    probe = subprocess.run([PYTHON, "-c", "import matplotlib"], capture_output=True, check=False)
    if probe.returncode != 0:
        print("skipped: /usr/bin/python3 has no matplotlib (apt-get install python3-matplotlib)")
        sys.exit(77)
    unittest.main(argv=[sys.argv[0], *sys.argv[3:]], verbosity=2)
