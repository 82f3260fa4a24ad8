"""Deterministic matplotlib settings and the one way perflab saves a figure.

Same inputs, same bytes: a fixed hash salt for the SVG ids, no date or
version in the metadata, one font family and size, text kept as text
(svg.fonttype 'none', so titles and labels stay searchable and the SVG
stays small). Import this before pyplot is used anywhere.
"""

import io
import re

import matplotlib

matplotlib.use("svg")  # no display, no GUI toolkit probing

import matplotlib.pyplot as plt  # noqa: E402

RC = {
    "svg.hashsalt": "perflab-report",
    "svg.fonttype": "none",
    "font.family": "DejaVu Sans",
    "font.size": 10,
    "axes.titlesize": 11,
    "axes.labelsize": 10,
    "legend.fontsize": 9,
    "figure.figsize": (7.2, 4.2),
    "figure.dpi": 100,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "path.simplify": False,  # never drop points of a curve to save bytes
}

# Colours that stay distinct in print and for most colour-blind readers
# (Okabe-Ito).
COLORS = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000"]

# What an SVG file may not carry: anything that changes between runs.
METADATA = {"Date": None, "Creator": None, "Contributor": None}


def apply():
    matplotlib.rcdefaults()
    matplotlib.rcParams.update(RC)


def figure(ncols=1, title=None, width=None, height=None):
    """A figure with `ncols` axes side by side; the title goes on the figure."""
    w, h = RC["figure.figsize"]
    fig, axes = plt.subplots(1, ncols, figsize=(width or w, height or h), squeeze=False)
    if title:
        fig.suptitle(title, fontsize=RC["axes.titlesize"] + 1).set_gid("title")
    return fig, list(axes[0])


def label(ax, i, xlabel, ylabel, subtitle=None):
    """Axis labels (with units) and ids the report test looks for."""
    ax.set_xlabel(xlabel).set_gid(f"xlabel-{i}")
    ax.set_ylabel(ylabel).set_gid(f"ylabel-{i}")
    if subtitle:
        ax.set_title(subtitle, fontsize=RC["axes.labelsize"])


def plain_log(axis):
    """Log-scale ticks as plain numbers (10, 100, 1,000), not powers of ten."""
    from matplotlib.ticker import FuncFormatter
    axis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:,.0f}" if v >= 1 else f"{v:g}"))


# Geometry attributes whose numbers are rounded (text is never touched).
_GEOMETRY = re.compile(r'\b(d|x|y|x1|x2|y1|y2|width|height|transform|points)="([^"]*)"')
_NUMBER = re.compile(r"-?\d+\.\d+")
_CLIP_ID = re.compile(r"\bp[0-9a-f]{10}\b")


def _round(m):
    text = "%.2f" % float(m.group(0))
    return "0.00" if text == "-0.00" else text


def _stable(svg):
    """Layout arithmetic differs in the last digit between CPUs (numpy's
    SIMD paths), which would make the same data a different file: geometry
    is rounded to 1/100 of a point, far below what a reader sees, and the
    clip-path ids (hashes of that geometry) are numbered in order."""
    def geometry(m):
        return '%s="%s"' % (m.group(1), _NUMBER.sub(_round, m.group(2)))
    svg = _GEOMETRY.sub(geometry, svg)
    ids = {}
    return _CLIP_ID.sub(lambda m: ids.setdefault(m.group(0), "clip%d" % len(ids)), svg)


def save(fig, path):
    fig.tight_layout()
    buf = io.StringIO()
    fig.savefig(buf, format="svg", metadata=METADATA)
    plt.close(fig)
    with open(path, "w", encoding="utf-8") as f:
        f.write(_stable(buf.getvalue()))
