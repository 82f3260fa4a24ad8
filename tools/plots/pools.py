"""Plots of the pools chapter: the request-thread cap, pool starvation and the
keep-alive race. Each function runs perflab, draws one figure into `out` and
returns its Section, its paragraph from prose.py."""

import os

import prose
import style
from data import column, field, param, table
from section import Section, fmt

C = style.COLORS

KEEPALIVE_SERVER_MS = "500,1000,1500,2000,2500,3000,3500,4000"
THREADS = [10, 20, 50, 100, 200, 300, 400]  # the case study's 10 / 50 / 200, and between


def thread_pool(perflab, out):
    runs, commands = [], []
    for t in THREADS + ["virtual"]:
        args = ("sim", "thread-pool", "--set", f"threads={t}")
        commands.append("perflab " + " ".join(args))
        runs.append((t, perflab.json(*args)))
    clients = int(param(runs[0][1], "clients"))
    counted = [(t, d) for t, d in runs if t != "virtual"]
    virtual = runs[-1][1]
    handler_ms = param(runs[0][1], "handler_ms")
    fig, (a1, a2) = style.figure(ncols=2, width=9.6, title=f"Thread pool: {clients} closed-loop "
                                 f"clients, {handler_ms:g} ms handler")
    xs = [t for t, _ in counted]
    ceil = [field(d, "ceiling_per_s") for _, d in counted]
    a1.plot(xs, ceil, color=C[0], label="formula: perflab's ceiling (the binding limit)")
    a1.plot(xs, [field(d, "throughput_per_s") for _, d in counted], "o", color=C[1],
            label="simulated, request threads", zorder=4)
    a1.plot([clients], [field(virtual, "throughput_per_s")], "*", markersize=12, color=C[2],
            label=f"simulated, virtual threads (one per client, {clients})")
    a1.axhline(field(virtual, "ceiling_per_s"), color="#888888", linestyle=":", linewidth=1,
               label="CPU ceiling: cores / CPU per request")
    style.label(a1, 0, "request threads", "throughput (req/s)", "throughput")
    a1.legend(loc="lower right", fontsize=8)
    a2.plot(xs, [clients / c * 1000 for c in ceil], color=C[0],
            label=f"formula: {clients} clients / ceiling")
    a2.plot(xs, [field(d, "mean_ms") for _, d in counted], "o", color=C[1],
            label="simulated, request threads", zorder=4)
    a2.plot([clients], [field(virtual, "mean_ms")], "*", markersize=12, color=C[2],
            label="simulated, virtual threads")
    a2.set_yscale("log")
    style.plain_log(a2.yaxis)
    style.label(a2, 1, "request threads", "mean latency (ms, log scale)", "latency")
    a2.legend(loc="upper right", fontsize=8)
    style.save(fig, os.path.join(out, "thread_pool.svg"))
    by = dict(runs)
    para = prose.thread_pool(by, virtual, clients)
    cols = ["threads", "throughput_per_s", "ceiling_per_s", "mean_ms", "p99_ms", "cpu_cores"]
    rows = [[t, *[field(d, c) for c in cols[1:]]] for t, d in runs]
    return [Section("thread_pool", "Thread pool", cols, rows, para, commands)]


def pool_starvation(perflab, out):
    args = ("sim", "pool-starvation", "--set", "timeline_s=5")
    doc = perflab.json(*args)
    tl = table(doc, "timeline")
    summary = table(doc, "rows")
    fig, (a1, a2) = style.figure(ncols=2, width=9.6, title=(
        f"Pool starvation: {param(doc, 'pool'):g} connections held {param(doc, 'hold_ms'):g} ms, "
        f"{param(doc, 'timeout_ms') / 1000:g} s timeout"))
    for i, r in enumerate(summary):
        pts = [x for x in tl if x["offered_per_s"] == r["offered_per_s"]]
        name = f"{fmt(r['offered_per_s'], 0)} req/s ({r['state']})"
        a1.plot(column(pts, "t_s"), column(pts, "pending"), color=C[i], label=name)
        a2.plot(column(pts, "t_s"), column(pts, "timeouts"), color=C[i], label=name)
    style.label(a1, 0, "time (s)", "pending acquires (requests)", "waiting for a connection")
    style.label(a2, 1, "time (s)", "timeouts so far (requests)",
                f"timed out after {param(doc, 'timeout_ms') / 1000:g} s")
    a1.legend(loc="lower right", fontsize=8)
    a2.legend(loc="upper left", fontsize=8)
    style.save(fig, os.path.join(out, "pool_starvation.svg"))
    para = prose.pool_starvation(doc, summary, tl)
    cols = ["offered_per_s", "t_s", "pending", "timeouts"]
    shown = [[r[c] for c in cols] for r in tl if r["t_s"] % 30 == 0]
    return [Section("pool_starvation", "Pool starvation", cols, [[r[c] for c in cols] for r in tl],
                    para, ["perflab " + " ".join(args)], shown=shown)]


def keepalive_race(perflab, out):
    clients = [3000, 1500]
    docs, commands = [], []
    for c in clients:
        args = ("sim", "keepalive-race", "--set", f"client_idle_timeout_ms={c}",
                "--set", f"server_keepalive_ms={KEEPALIVE_SERVER_MS}")
        commands.append("perflab " + " ".join(args))
        docs.append(perflab.json(*args))
    fig, axes = style.figure(ncols=2, width=9.6,
                             title="Keep-alive race: 502s until the server outwaits the client")
    axes[1].sharey(axes[0])
    rows = []
    for i, (ax, doc) in enumerate(zip(axes, docs)):
        data = table(doc, "rows")
        cl = field(doc, "client_idle_timeout_ms")
        for j, rate in enumerate(sorted({r["rate_per_s"] for r in data})):
            pts = [r for r in data if r["rate_per_s"] == rate]
            ax.plot(column(pts, "server_keepalive_ms"), column(pts, "stale_pct"), marker="o",
                    color=C[j], label=f"{rate:g} req/s")
        ax.axvline(cl, color="#888888", linestyle="--", label=f"client idle timeout {cl:,} ms")
        style.label(ax, i, "server keep-alive timeout (ms)", "502s: sent into a closed connection (%)",
                    f"client (load balancer) idle timeout {cl:,} ms")
        ax.legend(loc="upper right", fontsize=8)
        rows += [[cl, r["rate_per_s"], r["server_keepalive_ms"], r["requests"], r["stale_sends"],
                  r["stale_pct"]] for r in data]
    style.save(fig, os.path.join(out, "keepalive_race.svg"))
    para = prose.keepalive_race(table(docs[0], "rows"), clients)
    cols = ["client_idle_timeout_ms", "rate_per_s", "server_keepalive_ms", "requests",
            "stale_sends", "stale_pct"]
    return [Section("keepalive_race", "Keep-alive race", cols, rows, para, commands,
                    shown=[r for r in rows if r[0] == clients[0]])]
