#!/usr/bin/env python3
"""One SVG per benchmark of a perflab history: commits on the x axis by short
sha, the median of the repetitions and their range (min to max), change
points marked with their size. Called by `perflab history plot`:

  history.py DATA_JSON OUT_DIR FILE...

DATA_JSON is history::PlotJson's output; FILE names the SVG of each series,
in order. Same data, same bytes (style.py); each file is written beside its
destination and renamed into place. Exit 2 on unreadable data."""

import json
import os
import sys
import tempfile

import style

C = style.COLORS


def plot(doc, series, path):
    commits = doc["commits"]
    points = series["points"]
    xs = list(range(len(points)))
    at = {p["commit"]: x for x, p in zip(xs, points)}
    fig, (ax,) = style.figure(title=f"{series['benchmark']}: history over commits",
                              width=max(7.2, 0.18 * len(points) + 2))
    ax.fill_between(xs, [p["min"] for p in points], [p["max"] for p in points],
                    color=C[0], alpha=0.25, linewidth=0, label="repetitions (min to max)")
    ax.plot(xs, [p["median"] for p in points], color=C[0], marker="o", markersize=3,
            linewidth=1.2, label="median")
    top = max(p["max"] for p in points)
    for ch in series["changes"]:
        x = at[ch["commit"]] - 0.5  # between the last old and the first new
        colour = C[1] if ch["change_pct"] > 0 else C[2]
        ax.axvline(x, color=colour, linestyle="--", linewidth=1)
        ax.annotate(f"{ch['change_pct']:+.1f} %", (x, top), xytext=(3, -10),
                    textcoords="offset points", color=colour, fontsize=8)
    step = max(1, len(points) // 40)  # at most ~40 labels stay readable
    ax.set_xticks(xs[::step])
    ax.set_xticklabels([commits[p["commit"]]["sha"][:7] for p in points][::step],
                       rotation=90, fontsize=7, family="monospace")
    ax.legend(loc="lower right")
    style.label(ax, 0, "commit (oldest first)", f"{doc['metric']} ({series['unit']})")
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path) or ".",
                               prefix="." + os.path.basename(path) + ".", suffix=".tmp")
    os.close(fd)
    try:
        style.save(fig, tmp)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def main(argv):
    if len(argv) < 2:
        print("history.py: usage: history.py DATA_JSON OUT_DIR FILE...", file=sys.stderr)
        return 2
    try:
        with open(argv[0]) as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        print(f"history.py: '{argv[0]}': {e}; accepted: perflab history plot's data",
              file=sys.stderr)
        return 2
    files = argv[2:]
    if len(files) != len(doc["series"]):
        print("history.py: one FILE per series is accepted", file=sys.stderr)
        return 2
    os.makedirs(argv[1], exist_ok=True)
    style.apply()
    for series, name in zip(doc["series"], files):
        plot(doc, series, os.path.join(argv[1], name))
        print(f"history.py: wrote {os.path.join(argv[1], name)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
