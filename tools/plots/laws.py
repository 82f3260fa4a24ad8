"""Plots of the laws chapter: the latency mixture, coordinated omission,
Little's Law, the USL and the hockey stick. Each function runs perflab, draws
one figure into `out` and returns its Section."""

import os

import style
from data import column, field, table
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
    n = field(doc, "samples")
    para = (f"`perflab sim latency-mixture` draws {n:,} latencies: 97 % on a fast path "
            f"near 15 ms, 2.5 % on a slow path (120-200 ms) and 0.5 % stalled (0.8-2 s). "
            f"The mean, {fmt(mean)} ms, is above the p95 ({fmt(field(doc, 'p95_ms'))} ms): more "
            f"than 95 % of requests are faster than the 'average' one. The "
            f"{field(doc, 'above_500ms'):,} requests above 500 ms alone add "
            f"{fmt(field(doc, 'tail_mean_contribution_ms'))} ms to it; they cannot move p50 "
            f"({fmt(field(doc, 'p50_ms'))} ms). p99 is {fmt(field(doc, 'p99_ms'))} ms "
            f"and p99.9 {fmt(field(doc, 'p999_ms'))} ms. Next: `perflab sim latency-mixture "
            f"--set stall_share=0.001` and watch the mean and p99.9 move while p50 stays.")
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
    para = (f"The same {n:,} latencies on logarithmic bins: three separate humps, "
            f"{modes[0]['count']:,} requests below 50 ms, {modes[1]['count']:,} between 50 and "
            f"500 ms and {modes[2]['count']:,} above 500 ms, with empty bins between them. "
            f"The dashed line is the mean ({fmt(mean)} ms): the two small humps on the right "
            f"drag it to the far edge of the big one, past most requests. A percentile from one "
            f"mode says nothing about the others. Next: `perflab sim latency-mixture --set slow_share=0.1` "
            f"makes the middle hump carry the p95.")
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
    fig, (ax,) = style.figure(title="Coordinated omission: one 5 s freeze, three measurements")
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
    ca, ci, op = clients["closed-actual"], clients["closed-intended"], clients["open"]
    para = (f"`perflab sim coordinated-omission`: a client that should send a request every "
            f"10 ms ({field(doc, 'target_requests'):,} in all) against a server that freezes for 5 s. "
            f"Timed from its actual sends, the closed loop records {ca['samples']:,} samples "
            f"({field(doc, 'never_issued'):,} were never sent) and a p99 of {fmt(ca['p99_ms'])} ms: "
            f"the freeze is one slow sample. Timed from the schedule the same client reports a "
            f"p99 of {fmt(ci['p99_ms'])} ms; an open loop that keeps sending reports "
            f"{fmt(op['p99_ms'])} ms. Next: `perflab sim coordinated-omission --set freeze_ms=1000` "
            f"(a shorter stall) or `--set rate_per_s=1000` (more requests stuck behind it).")
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
                "L: in flight, sampled every 5 ms (requests)")
    ax.legend(loc="upper left")
    style.save(fig, os.path.join(out, "littles_law.svg"))
    sizing = table(doc, "pool_sizing")[0]
    para = (f"`perflab sim littles-law` runs {len(rows)} open-loop systems ({len(services)} service "
            f"times × {len(rows) // len(services)} rates) and samples how many requests are "
            f"in flight. Every point lands on the line: the worst gap between L and λ × W is "
            f"{fmt(field(doc, 'worst_error_pct'), 3)} %. At {fmt(sizing['rate_per_s'], 0)} req/s "
            f"holding a connection {fmt(sizing['hold_ms'], 0)} ms, L = {fmt(sizing['l_sampled'])}: "
            f"a pool of {sizing['with_headroom']} leaves headroom. Next: `perflab sim littles-law "
            f"--set arrivals=poisson --set service=exp` (the law still holds; only the samples get noisy).")
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
    fit = perflab.json("models", "usl", "--sigma", repr(sigma), "--kappa", repr(kappa), "--n", dense)
    amdahl = perflab.json("models", "amdahl", "--serial", repr(sigma), "--n", dense)
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
    last = rows[-1]
    para = (f"`perflab sim usl` runs fork-join workers with a serial section and pairwise "
            f"coherency, and fits the USL to the simulated points (R² = "
            f"{field(doc, 'r_squared'):.5f}). Capacity peaks at N = {pn} "
            f"(C = {fmt(pc, 2)}) and falls to {fmt(last['capacity'], 2)} at N = {last['n']}: past "
            f"the peak, more workers cost throughput. Amdahl's curve, with the same serial fraction "
            f"and no coherency cost, only flattens. The curves come from `perflab models usl` and "
            f"`perflab models amdahl` with the fitted σ. Next: `perflab sim usl --set kappa=0.0005` "
            f"(cheaper coherency moves the peak right).")
    cols = ["n", "throughput_per_s", "capacity", "usl_capacity"]
    return [Section("usl", "Universal Scalability Law", cols, [[r[c] for c in cols] for r in rows],
                    para, ["perflab " + " ".join(args),
                           f"perflab models usl --sigma {sigma!r} --kappa {kappa!r} --n 1,...,{top}",
                           f"perflab models amdahl --serial {sigma!r} --n 1,...,{top}"])]


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
    one = [r for r in rows if r["servers"] == 1]
    four = [r for r in rows if r["servers"] != 1]
    at = {r["rho"]: r for r in one}
    para = (f"`perflab sim hockey-stick` (10 ms service, 200,000 customers per point): with one "
            f"server the mean time in system is {fmt(at[0.5]['sim_response_ms'])} ms at ρ = 0.5, "
            f"{fmt(at[0.8]['sim_response_ms'])} ms at 0.8 and {fmt(at[0.95]['sim_response_ms'])} ms "
            f"at 0.95 (analytic {fmt(at[0.95]['analytic_response_ms'])} ms): flat, then a wall. "
            f"Four servers at the same utilisation bend later ({fmt(four[-1]['sim_response_ms'])} ms "
            f"at {four[-1]['rho']}). Near ρ = 1 a run of this length undershoots the analytic mean "
            f"(long busy periods are rare and heavy). Next: `perflab sim hockey-stick --set "
            f"servers=1,16` or `--set customers=2000000` for the points near the wall.")
    cols = ["servers", "rho", "sim_response_ms", "analytic_response_ms", "error_pct", "sim_p99_ms"]
    return [Section("hockey_stick", "Hockey stick", cols, [[r[c] for c in cols] for r in rows],
                    para, ["perflab " + " ".join(args)])]
