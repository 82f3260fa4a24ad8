"""The sweep plot: a result field against a swept key with its 95 % band,
beside the formula (M/M/c wait against utilisation beside Erlang C)."""

import os

import prose
import style
from data import ReportError, table
from section import Section

C = style.COLORS

RATES = "1.6,2,2.4,2.8,3,3.2,3.4,3.6"  # 4 servers at 1/s: utilisation 0.4 .. 0.9
SET = {"arrival_rate_per_s": RATES, "servers": 4, "customers": 100000,
       "warmup_customers": 10000}
SETTINGS = [a for key, value in SET.items() for a in ("--set", f"{key}={value}")]
REPLICATIONS = 8


def metric(metrics, point, name):
    for m in metrics:
        if m["point"] == point and m["metric"] == name:
            return m
    raise ReportError(f"perflab sweep output has no metric '{name}' for point {point}")


def mmc_sweep(perflab, out):
    args = ("sweep", "mmc", *SETTINGS, "--replications", str(REPLICATIONS))
    doc = perflab.json(*args)
    points, metrics = table(doc, "points"), table(doc, "metrics")
    rows = []
    for p in points:
        i = p["point"]
        w, a = metric(metrics, i, "mean_wait_s"), metric(metrics, i, "analytic_mean_wait_s")
        rho = metric(metrics, i, "rho")["mean"]
        rows.append([rho, float(p["arrival_rate_per_s"]), w["n"], w["mean"], w["ci95_half_width"],
                     a["mean"]])
    fig, (ax,) = style.figure(title=f"Sweep: M/M/{SET['servers']} mean wait against "
                              "utilisation, with its 95 % band")
    x = [r[0] for r in rows]
    ax.fill_between(x, [r[3] - r[4] for r in rows], [r[3] + r[4] for r in rows], color=C[0],
                    alpha=0.25, linewidth=0, label="95 % confidence band (Student t)")
    ax.plot(x, [r[3] for r in rows], "o-", color=C[0],
            label=f"simulated: mean of {REPLICATIONS} replications")
    ax.plot(x, [r[5] for r in rows], "--", color=C[1], label="Erlang C (analytic)")
    style.label(ax, 0, "utilisation ρ = λ / (c μ)", "mean wait in queue (s)")
    ax.legend(loc="upper left")
    style.save(fig, os.path.join(out, "mmc_sweep.svg"))
    para = prose.mmc_sweep(doc, rows, REPLICATIONS, SET)
    cols = ["rho", "arrival_rate_per_s", "replications", "mean_wait_s", "ci95_half_width_s",
            "erlang_c_wait_s"]
    return [Section("mmc_sweep", "Sweep: M/M/c wait against utilisation", cols, rows, para,
                    ["perflab " + " ".join(args)])]
