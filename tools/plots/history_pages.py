"""The benchmark history in the HTML report: a small series per benchmark
on the index (change points marked, a regressions list) and one page per
benchmark, as asv publishes them: its series across commits for each
machine, change points marked, each commit's subject on hover.

The series come from the database itself (read-only, the same query order
as `perflab history changes`); the change points come from `perflab history
changes --format json`, so the page marks exactly what the command reports.
The drawings are SVG written here, not matplotlib: each point carries a
<title> (the hover), and the page needs no script to read it.
"""

import os
import re
import sqlite3
import statistics
import urllib.parse

import html_page
from data import ReportError
from html_page import esc

APPLICATION_ID = 0x70666C68  # "pflh", tools/history/store.h
SCHEMA_VERSION = 1
BLUE, UP, DOWN, BAND = "#0072B2", "#D55E00", "#009E73", "#b9d3ea"


def open_db(path):
    """A read-only connection, or one line naming what the file is not."""
    accepted = (f"accepted: a database `perflab history run` created (schema version "
                f"{SCHEMA_VERSION})")
    try:
        db = sqlite3.connect(f"file:{urllib.parse.quote(path)}?mode=ro", uri=True)
        app = db.execute("PRAGMA application_id").fetchone()[0]
        version = db.execute("PRAGMA user_version").fetchone()[0]
    except sqlite3.Error as e:
        raise ReportError(f"--history {path}: not readable as SQLite ({e}); {accepted}")
    if app != APPLICATION_ID:
        raise ReportError(f"--history {path}: another application's database (application_id "
                          f"{app}); {accepted}")
    if version != SCHEMA_VERSION:
        raise ReportError(f"--history {path}: schema version {version}; {accepted}")
    return db


def machines(db):
    return [(i, f"{i}: {cpu}, {cores} cores, kernel {kernel}, governor {gov}")
            for i, cpu, cores, kernel, gov in
            db.execute("SELECT id, cpu, cores, kernel, governor FROM machines ORDER BY id")]


def load(db, machine):
    """(commits [(sha, subject)], series [{benchmark, unit, points}]) of one
    machine's real_time, in the order Store::Load gives them."""
    rows = db.execute(
        "SELECT c.sha, c.subject, s.benchmark, s.unit, s.real_time FROM runs r JOIN commits c "
        "ON c.sha = r.sha JOIN samples s ON s.run = r.id WHERE r.machine = ?1 AND r.built = 1 "
        "AND r.instructions = 0 ORDER BY c.time, (SELECT MIN(id) FROM runs WHERE sha = c.sha), "
        "c.sha, s.benchmark, r.id, s.repetition", (machine,))
    commits, by_name = [], {}
    for sha, subject, bench, unit, value in rows:
        if not commits or commits[-1][0] != sha:
            commits.append((sha, subject))
        s = by_name.setdefault(bench, {"benchmark": bench, "unit": unit, "values": {}})
        s["values"].setdefault(len(commits) - 1, []).append(value)
    series = []
    for name in sorted(by_name):
        s = by_name[name]
        s["points"] = [(k, statistics.median(v), min(v), max(v), len(v))
                       for k, v in sorted(s.pop("values").items())]
        series.append(s)
    return commits, series


def changes(perflab, path, machine):
    doc = perflab.json("history", "changes", "--db", path, "--machine", str(machine))
    return doc.get("changes", [])


def nice_ticks(lo, hi, n=5):
    span = hi - lo
    step = 10 ** int(f"{span / n:e}".split("e")[1])
    for m in (1, 2, 5, 10):
        if span / (step * m) <= n:
            step *= m
            break
    first = int(lo // step) + (1 if lo % step else 0)
    return [k * step for k in range(first, int(hi // step) + 1)]


def num(v):
    return f"{v:.4g}"


def chart(commits, s, marks, width=720, height=280, small=False):
    """One series as SVG: the repetitions' range as a band, the medians as a
    line with a point per commit (its <title> the hover), change points as
    dashed lines. `marks` is [(point index, change_pct, title)]."""
    left, right, top, bottom = (8, 8, 8, 8) if small else (70, 12, 12, 64)
    pts = s["points"]
    lo, hi = min(p[2] for p in pts), max(p[3] for p in pts)
    pad = (hi - lo) * 0.08 or abs(hi) * 0.05 or 1
    lo, hi = lo - pad, hi + pad
    n = len(pts)

    def x(i):
        return left + (width - left - right) * (i + 0.5) / n

    def y(v):
        return top + (height - top - bottom) * (hi - v) / (hi - lo)

    label = f"{s['benchmark']}: {s['unit']} per commit, {n} commits"
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" '
           f'role="img" aria-label="{esc(label)}" font-family="DejaVu Sans, sans-serif" '
           f'font-size="11">', f"<title>{esc(label)}</title>",
           f'<rect x="0" y="0" width="{width}" height="{height}" fill="#ffffff"/>']
    if not small:
        for t in nice_ticks(lo, hi):
            out.append(f'<line x1="{left}" x2="{width - right}" y1="{y(t):.2f}" y2="{y(t):.2f}" '
                       f'stroke="#d8d8d8"/><text x="{left - 6}" y="{y(t) + 4:.2f}" '
                       f'text-anchor="end">{esc(num(t))}</text>')
        out.append(f'<text x="14" y="{(top + height - bottom) / 2:.2f}" text-anchor="middle" '
                   f'transform="rotate(-90 14 {(top + height - bottom) / 2:.2f})">'
                   f"real_time ({esc(s['unit'])})</text>")
    band = [f"{x(i):.2f},{y(p[3]):.2f}" for i, p in enumerate(pts)]
    band += [f"{x(i):.2f},{y(p[2]):.2f}" for i, p in reversed(list(enumerate(pts)))]
    out.append(f'<polygon points="{" ".join(band)}" fill="{BAND}" stroke="none"/>')
    line = " ".join(f"{x(i):.2f},{y(p[1]):.2f}" for i, p in enumerate(pts))
    out.append(f'<polyline points="{line}" fill="none" stroke="{BLUE}" stroke-width="1.5"/>')
    for i, pct, title in marks:
        colour = UP if pct > 0 else DOWN
        xm = f"{x(i) - (width - left - right) / n / 2:.2f}"
        out.append(f'<g><title>{esc(title)}</title><line x1="{xm}" x2="{xm}" y1="{top}" '
                   f'y2="{height - bottom}" stroke="{colour}" stroke-width="2" '
                   f'stroke-dasharray="5 3"/>' +
                   ("" if small else f'<text x="{float(xm) + 3:.2f}" y="{top + 10}" '
                    f'fill="{colour}">{pct:+.1f} %</text>') + "</g>")
    step = max(1, n // 40)
    for i, (k, med, mn, mx, reps) in enumerate(pts):
        sha, subject = commits[k]
        tip = (f"{sha[:10]} {subject}\nmedian {num(med)} {s['unit']} "
               f"(min {num(mn)}, max {num(mx)}, {reps} repetitions)")
        out.append(f'<circle cx="{x(i):.2f}" cy="{y(med):.2f}" r="{2 if small else 3.5}" '
                   f'fill="{BLUE}"><title>{esc(tip)}</title></circle>')
        if not small and i % step == 0:
            yl = height - bottom + 8
            out.append(f'<text x="{x(i) + 4:.2f}" y="{yl}" font-family="DejaVu Sans Mono, '
                       f'monospace" font-size="10" text-anchor="end" '
                       f'transform="rotate(-90 {x(i) + 4:.2f} {yl})">{esc(sha[:7])}</text>')
    out.append("</svg>")
    return "\n".join(out)


def file_name(benchmark, used):
    base = re.sub(r"[^A-Za-z0-9_.-]", "_", benchmark)
    name, k = base + ".html", 2
    while name in used:
        name, k = f"{base}_{k}.html", k + 1
    used.add(name)
    return name


def collect(perflab, path):
    """Per machine: its text, commits, series and change points matched to
    the series' point indices."""
    db = open_db(path)
    try:
        out = []
        for mid, text in machines(db):
            commits, series = load(db, mid)
            if not series:
                continue
            found = changes(perflab, path, mid)
            for s in series:
                at = {commits[k][0][:10]: i for i, (k, *_rest) in enumerate(s["points"])}
                s["changes"] = [(at[c["commit"]], c) for c in found
                                if c["benchmark"] == s["benchmark"] and c["commit"] in at]
            out.append({"id": mid, "text": text, "commits": commits, "series": series})
        return out
    finally:
        db.close()


def mark_title(c):
    return (f"change point at {c['commit']} {c['subject']}: {c['change_pct']:+.2f} % "
            f"(median {num(c['median_before'])} -> {num(c['median_after'])} {c['unit']}, "
            f"p = {c['p_value']:.4g})")


def benchmark_page(name, per_machine):
    """One benchmark's page: a chart and a change table per machine."""
    body = ['<a class="skip" href="#main">Skip to the series</a>', "<header>",
            '<p><a href="../index.html#history">Back to the report</a></p>',
            f"<h1>History: {esc(name)}</h1>",
            "<p>Each point is a commit's median real_time, the band its repetitions' range; "
            "a dashed line is a change point of <code>perflab history changes</code> (orange: "
            "slower, green: faster). Hover a point for the commit's subject.</p>",
            "</header>", '<main id="main" tabindex="-1">']
    for m, s in per_machine:
        marks = [(i, c["change_pct"], mark_title(c)) for i, c in s["changes"]]
        rows = [(m["commits"][k][0][:10], m["commits"][k][1], med, mn, mx, reps)
                for k, med, mn, mx, reps in s["points"]]
        body += [f'<section aria-label="machine {esc(m["text"])}">',
                 f"<h2>Machine {esc(m['text'])}</h2>",
                 html_page.figure(chart(m["commits"], s, marks),
                                  f"{name} on machine {m['id']}")]
        if s["changes"]:
            body.append(html_page.table(
                ["commit", "subject", "change (%)", "p-value", "regression"],
                [(c["commit"], c["subject"], c["change_pct"], f"{c['p_value']:.2g}", c["regression"])
                 for _, c in s["changes"]], caption="Change points"))
        else:
            body.append("<p>No change point.</p>")
        body.append(html_page.table(
            ["commit", "subject", f"median ({s['unit']})", "min", "max", "repetitions"], rows,
            caption="Every commit"))
        body.append("</section>")
    body.append("</main>")
    return html_page.page(f"perflab history: {name}", "\n".join(body))


def build(perflab, path, out_dir):
    """Writes OUT/history/<benchmark>.html and returns the index's Block."""
    data = collect(perflab, path)
    pages, used, by_bench = {}, set(), {}
    for m in data:
        for s in m["series"]:
            by_bench.setdefault(s["benchmark"], []).append((m, s))
    for name in sorted(by_bench):
        pages[name] = file_name(name, used)
    os.makedirs(os.path.join(out_dir, "history"), exist_ok=True)
    for name, file in pages.items():
        html_page.write_atomic(os.path.join(out_dir, "history", file),
                               benchmark_page(name, by_bench[name]))
    grid, regressions = [], []
    for m in data:
        grid.append(f"<h3>Machine {esc(m['text'])}</h3>")
        grid.append('<div class="grid">')
        for s in m["series"]:
            marks = [(i, c["change_pct"], mark_title(c)) for i, c in s["changes"]]
            grid.append(f'<a class="spark" href="history/{esc(pages[s["benchmark"]])}">'
                        f"<strong>{esc(s['benchmark'])}</strong> "
                        f"({len(s['changes'])} change points)"
                        f"{chart(m['commits'], s, marks, 260, 70, small=True)}</a>")
            regressions += [(m["id"], s["benchmark"], c["commit"], c["subject"],
                             c["change_pct"], f"{c['p_value']:.2g}") for _, c in s["changes"]
                            if c["regression"]]
        grid.append("</div>")
    tables = [("Regressions (change points that slow a benchmark beyond the threshold)",
               ["machine", "benchmark", "commit", "subject", "change (%)", "p-value"],
               regressions)] if regressions else []
    paragraphs = [f"From `{os.path.basename(path)}`: {len(pages)} benchmarks on "
                  f"{len(data)} machines. Each small series links to its page; change points "
                  "are those `perflab history changes` reports (E-divisive means, confirmed by "
                  "the Mann-Whitney U test)."]
    if not regressions:
        paragraphs.append("No change point is a regression.")
    return html_page.Block("history", "Benchmark history", paragraphs, tables,
                           "\n".join(grid)), len(pages)
