"""Plots of the laws chapter: the latency mixture, coordinated omission,
Little's Law, the USL and the hockey stick. Each function runs perflab, draws
one figure into `out` and returns its Section, its paragraph from prose.py."""

import os

import prose
import style
from data import column, field, param, table
from section import Section, fmt

C = style.COLORS


def nines_axis(ax):
    """x = 1 / (1 - p): each tick one more nine, the tail gets the room."""
    ax.set_xscale("log")
    ticks = [2, 10, 100, 1000, 10000, 100000]
    ax.set_xticks(ticks)
    ax.set_xticklabels(["50%", "90%", "99%", "99.9%", "99.99%", "99.999%"])
    ax.minorticks_off()


def nines(p):
    return 1.0 / (1.0 - p / 100.0)


def latency_mixture(perflab, out):
    args = ("sim", "latency-mixture")
    doc = perflab.json(*args)
    spec = [r for r in table(doc, "spectrum") if r["percentile"] >= 50 and r["percentile"] < 100]
    fig, (ax,) = style.figure(title="Latency mixture: the percentiles against the mean")
    ax.plot([nines(r["percentile"]) for r in spec], [r["latency_ms"] for r in spec],
            color=C[0], marker=".", label="latency at percentile")
    mean = field(doc, "mean_ms")
    ax.axhline(mean, color=C[1], linestyle="--", label=f"mean {fmt(mean)} ms")
    marks = [("p50", 50, "p50_ms", "o"), ("p99", 99, "p99_ms", "s"), ("p99.9", 99.9, "p999_ms", "D")]
    for name, p, key, marker in marks:
        v = field(doc, key)
        ax.plot([nines(p)], [v], marker=marker, linestyle="none", color=C[2],
                markersize=7, label=f"{name} {fmt(v)} ms")
    nines_axis(ax)
    ax.set_yscale("log")
    style.plain_log(ax.yaxis)
    style.label(ax, 0, "percentile (log scale of 1 / (1 - p))", "latency (ms, log scale)")
    ax.legend(loc="upper left")
    style.save(fig, os.path.join(out, "latency_spectrum.svg"))
    para = prose.latency_spectrum(doc)
    spectrum = Section("latency_spectrum", "Latency mixture: the percentile spectrum",
                       ["percentile", "latency_ms"],
                       [[r["percentile"], r["latency_ms"]] for r in table(doc, "spectrum")],
                       para, ["perflab " + " ".join(args)])

    hist = table(doc, "histogram")
    modes = table(doc, "modes")
    fig, (ax,) = style.figure(title="Latency mixture: three modes, one histogram")
    lo, hi = column(hist, "from_ms"), column(hist, "to_ms")
    ax.bar(lo, column(hist, "count"), width=[b - a for a, b in zip(lo, hi)], align="edge",
           color=C[0], edgecolor="white", linewidth=0.5, label="requests per bin")
    ax.axvline(mean, color=C[1], linestyle="--", label=f"mean {fmt(mean)} ms")
    ax.set_xscale("log")
    ax.set_yscale("log")
    names = ["fast path", "slow path", "stalls"]
    for m, name, x in zip(modes, names, [12, 160, 1300]):
        ax.annotate(f"{name}\n{m['count']:,} requests", (x, max(column(hist, 'count')) * 2.5),
                    ha="center", va="bottom", fontsize=9,
                    bbox={"facecolor": "white", "edgecolor": "none", "pad": 1})
    ax.set_ylim(0.5, max(column(hist, "count")) * 30)
    style.plain_log(ax.xaxis)
    style.plain_log(ax.yaxis)
    style.label(ax, 0, "latency (ms, log bins: 10 per decade)", "requests per bin (log scale)")
    ax.legend(loc="center right")
    style.save(fig, os.path.join(out, "latency_histogram.svg"))
    para = prose.latency_histogram(doc, modes)
    histogram = Section("latency_histogram", "Latency mixture: the histogram",
                        ["from_ms", "to_ms", "count"],
                        [[r["from_ms"], r["to_ms"], r["count"]] for r in hist],
                        para, ["perflab " + " ".join(args)])
    return [spectrum, histogram]


def coordinated_omission(perflab, out):
    args = ("sim", "coordinated-omission")
    doc = perflab.json(*args)
    spec = table(doc, "spectrum")
    clients = {c["name"]: c for c in table(doc, "clients")}
    fig, (ax,) = style.figure(title="Coordinated omission: one "
                              f"{param(doc, 'freeze_ms') / 1000:g} s freeze, three measurements")
    series = [("closed_actual_ms", "closed loop, timed from the actual send", C[1], "-"),
              ("closed_intended_ms", "closed loop, timed from the schedule", C[0], "-"),
              ("open_ms", "open loop on the schedule (ground truth)", C[2], "--")]
    tail = [r for r in spec if 50 <= r["percentile"] < 100]
    for key, name, color, ls in series:
        ax.plot([nines(r["percentile"]) for r in tail], [r[key] for r in tail],
                color=color, linestyle=ls, marker=".", label=name)
    nines_axis(ax)
    ax.set_yscale("log")
    style.plain_log(ax.yaxis)
    style.label(ax, 0, "percentile (log scale of 1 / (1 - p))", "latency (ms, log scale)")
    ax.legend(loc="center left")
    style.save(fig, os.path.join(out, "coordinated_omission.svg"))
    para = prose.coordinated_omission(doc, clients)
    keys = [k for k, _, _, _ in series]
    return [Section("coordinated_omission", "Coordinated omission", ["percentile", *keys],
                    [[r["percentile"], *[r[k] for k in keys]] for r in spec], para,
                    ["perflab " + " ".join(args)])]


def littles_law(perflab, out):
    args = ("sim", "littles-law")
    doc = perflab.json(*args)
    rows = table(doc, "rows")
    fig, (ax,) = style.figure(title="Little's Law: measured L against λ × W")
    services = sorted({r["service_ms"] for r in rows})
    top = max(max(r["lambda_w"], r["l_sampled"]) for r in rows) * 1.5
    ax.plot([0.5, top], [0.5, top], color="#888888", linewidth=1, label="L = λ × W")
    for i, s in enumerate(services):
        pts = [r for r in rows if r["service_ms"] == s]
        ax.plot([r["lambda_w"] for r in pts], [r["l_sampled"] for r in pts], linestyle="none",
                marker="o", color=C[i], label=f"service {fmt(s, 0)} ms, rates "
                + ", ".join(fmt(r["rate_per_s"], 0) for r in pts) + " req/s")
    ax.set_xscale("log")
    ax.set_yscale("log")
    style.plain_log(ax.xaxis)
    style.plain_log(ax.yaxis)
    style.label(ax, 0, "λ × W: arrival rate × mean time in system (requests)",
                f"L: in flight, sampled every {param(doc, 'sample_ms'):g} ms (requests)")
    ax.legend(loc="upper left")
    style.save(fig, os.path.join(out, "littles_law.svg"))
    sizing = table(doc, "pool_sizing")[0]
    para = prose.littles_law(doc, rows, services, sizing)
    cols = ["rate_per_s", "service_ms", "lambda_per_s", "w_ms", "l_sampled", "lambda_w", "error_pct"]
    return [Section("littles_law", "Little's Law", cols, [[r[c] for c in cols] for r in rows],
                    para, ["perflab " + " ".join(args)])]


def usl(perflab, out):
    args = ("sim", "usl")
    doc = perflab.json(*args)
    rows = table(doc, "rows")
    sigma, kappa = field(doc, "fitted_sigma"), field(doc, "fitted_kappa")
    top = max(r["n"] for r in rows)
    dense = ",".join(str(n) for n in range(1, int(top) + 1))
    fit = perflab.json("models", "usl", "--sigma", repr(sigma), "--kappa", repr(kappa), "--workers", dense)
    amdahl = perflab.json("models", "amdahl", "--serial", repr(sigma), "--workers", dense)
    fig, (ax,) = style.figure(title="Universal Scalability Law: throughput peaks, then falls")
    curve = table(fit, "points")
    ax.plot(column(curve, "n"), column(curve, "capacity"), color=C[0],
            label=f"USL fit: σ = {sigma:.4f}, κ = {kappa:.5f}")
    ap = table(amdahl, "points")
    ax.plot(column(ap, "n"), column(ap, "speedup"), color=C[2], linestyle="--",
            label=f"Amdahl, serial fraction {sigma:.4f} (κ = 0)")
    ax.plot(column(rows, "n"), column(rows, "capacity"), linestyle="none", marker="o",
            color=C[1], label="simulated workers")
    pn, pc = field(fit, "peak_n"), field(fit, "peak_capacity")
    ax.plot([pn], [pc], marker="*", markersize=14, color=C[4], linestyle="none",
            label=f"peak: N = {pn}, C = {fmt(pc, 2)}")
    style.label(ax, 0, "workers N", "capacity C(N) (× one worker)")
    ax.legend(loc="upper left")
    style.save(fig, os.path.join(out, "usl.svg"))
    para = prose.usl(doc, rows, pn, pc)
    cols = ["n", "throughput_per_s", "capacity", "usl_capacity"]
    return [Section("usl", "Universal Scalability Law", cols, [[r[c] for c in cols] for r in rows],
                    para, ["perflab " + " ".join(args),
                           f"perflab models usl --sigma {sigma!r} --kappa {kappa!r} --workers 1,...,{top}",
                           f"perflab models amdahl --serial {sigma!r} --workers 1,...,{top}"])]


HOCKEY_UTIL = "0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.75,0.8,0.85,0.9,0.95"


def hockey_stick(perflab, out):
    args = ("sim", "hockey-stick", "--set", f"utilisations={HOCKEY_UTIL}")
    doc = perflab.json(*args)
    rows = table(doc, "rows")
    fig, (ax,) = style.figure(title="Hockey stick: latency against utilisation")
    for i, c in enumerate(sorted({r["servers"] for r in rows})):
        pts = [r for r in rows if r["servers"] == c]
        name = "M/M/1" if c == 1 else f"M/M/{c}"
        ax.plot(column(pts, "rho"), column(pts, "analytic_response_ms"), color=C[i],
                label=f"{name} analytic (Erlang C)")
        ax.plot(column(pts, "rho"), column(pts, "sim_response_ms"), color=C[i], marker="o",
                linestyle="none", label=f"{name} simulated")
    ax.set_xlim(0, 1)
    style.label(ax, 0, "utilisation ρ = λ / (c μ)", "mean time in system (ms)")
    ax.legend(loc="upper left")
    style.save(fig, os.path.join(out, "hockey_stick.svg"))
    para = prose.hockey_stick(doc, rows)
    cols = ["servers", "rho", "sim_response_ms", "analytic_response_ms", "error_pct", "sim_p99_ms"]
    return [Section("hockey_stick", "Hockey stick", cols, [[r[c] for c in cols] for r in rows],
                    para, ["perflab " + " ".join(args)])]
