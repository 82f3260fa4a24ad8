"""The microbenchmarks' before/after pairs as ratio bars, from the summary
that tools/bench/run_families writes (BENCH_DIR/summary.json). Optional: no
summary, no plot."""

import math
import os

import prose
import style
from data import ReportError, load_json
from section import Section

C = style.COLORS


def bench_ratios(bench_dir, out):
    path = os.path.join(bench_dir, "summary.json")
    if not os.path.exists(path):
        return []
    doc = load_json(path)
    pairs = doc.get("pairs")
    if not isinstance(pairs, list) or not pairs:
        raise ReportError(f"{path} has no 'pairs' list; rerun tools/lab bench")
    try:
        rows = [[p["family"], p["label"], float(p["before_ns"]), float(p["after_ns"]),
                 float(p["ratio"])] for p in pairs]
    except (KeyError, TypeError, ValueError):
        raise ReportError(f"{path}: a pair lacks family, label, before_ns, after_ns or ratio")
    if any(not math.isfinite(r[4]) or r[4] <= 0 for r in rows):
        raise ReportError(f"{path}: a ratio is not a positive number")
    fig, (ax,) = style.figure(title="Microbenchmarks: before / after (medians of one run)",
                              width=9.6, height=0.32 * len(rows) + 1.6)
    ys = list(range(len(rows)))[::-1]
    ax.barh(ys, [r[4] for r in rows], color=[C[0] if r[4] >= 1 else C[1] for r in rows])
    ax.set_yticks(ys)
    ax.set_yticklabels([f"{r[0]}: {r[1]}" for r in rows], fontsize=8)
    ax.set_xscale("log")
    style.plain_log(ax.xaxis)
    for y, r in zip(ys, rows):
        ax.annotate(f"x{r[4]:,.2f}", (r[4], y), xytext=(3, 0), textcoords="offset points",
                    va="center", fontsize=8)
    ax.axvline(1, color="#444444", linewidth=1)
    style.label(ax, 0, "speed-up: before time / after time (×, log scale)", "benchmark pair")
    ax.grid(axis="y", visible=False)
    style.save(fig, os.path.join(out, "bench_ratios.svg"))
    para = prose.bench_ratios(doc, rows)
    return [Section("bench_ratios", "Microbenchmarks: before/after ratios",
                    ["family", "label", "before_ns", "after_ns", "ratio"], rows, para,
                    [f"tools/lab bench (read from {os.path.basename(bench_dir)}/summary.json)"])]
