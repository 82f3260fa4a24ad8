"""Plots of the capstone: RPS, p99, $/1M, CPU attribution, the caps in series
and what to fix next, per step, perflab's figures beside the case study's;
and the caps predicted by MVA over the number of clients.

The capstone with --sensitivity is by far the slowest thing the report runs
(20 costs x 2 signs x 10 steps x 3 repeats x 2 loops), so it runs once per
report and the first six plots read that one run. Its CSV (every table of the
run, the calibration's hash included) is kept as OUT/capstone_run.csv;
report.py --capstone-run DIR renders from such a file instead of running the
capstone again, after checking that it was made with the same calibration.

The MVA plot sets simulated points over the number of clients beside the
curve; `perflab sim order-service` runs only the seed-h2 calibration (the
model's defaults), so that plot takes its demands from a capstone run with
fixtures/calibration/seed-h2.json (no --sensitivity: seconds), whatever
calibration the other six use.
"""

import collections
import csv
import hashlib
import io
import os
import tempfile

import prose
import style
from data import ReportError, load_json, parse_json, run, table
from section import Section

C = style.COLORS
RUN_CSV = "capstone_run.csv"
CPU_PARTS = [("database_pct", "database"), ("http_pct", "HTTP + stub"),
             ("serialisation_pct", "serialisation"), ("gc_pct", "GC"), ("other_pct", "framework")]
# The run's framework_cpu field when other_cpu_us is copied from seed-h2, not measured
# (and, after it, ", beside this machine's measured costs" when others are measured).
JVM_FRAMEWORK = "the case study's JVM"
MEASURED_HERE = ("database_pct", "http_pct", "serialisation_pct")  # C++ benchmarks here


def _thresholds():
    """The capstone's thresholds, as tools/capstone/thresholds.h defines them, from the file
    its ThresholdsJson() writes (tests/capstone/thresholds_test.cc keeps the two the same)."""
    t = load_json(os.path.join(os.path.dirname(os.path.abspath(__file__)),
                               "capstone_thresholds.json"))
    return t["generator_ceiling_pct"], t["cap_full_pct"]


# A load generator this busy (%): the step's RPS is the rig's ceiling. A cap this busy (%)
# is full: it, not the caps around it, sets the pace.
RIG_BOUND_PCT, FULL_PCT = _thresholds()
CASE_STUDY = "#9a9a9a"  # the case study's bars: grey, so perflab's stand out

# The rig every step ran on, as the run's fields table states it: closed-loop
# clients, open-loop rate (req/s) and the repeats (one seed each) per step.
Rig = collections.namedtuple("Rig", "clients open_rate_per_s repeats")


def number(text):
    try:
        return float(text)
    except ValueError:
        return text


def parse_run(text, what):
    """The capstone's CSV: sections '# name', a header, rows, a blank line."""
    tables, name, lines = {}, None, []
    for line in text.splitlines() + [""]:
        if line.startswith("# "):
            name, lines = line[2:].strip(), []
        elif line == "" and name is not None:
            rows = list(csv.DictReader(io.StringIO("\n".join(lines))))
            tables[name] = [{k: number(v) for k, v in r.items()} for r in rows]
            name = None
        elif name is not None:
            lines.append(line)
    for need in ("fields", "steps", "cpu_share", "caps", "case_study", "what_to_fix_next",
                 "sensitivity"):
        if not tables.get(need):
            raise ReportError(f"{what} has no '{need}' table; run the capstone with --sensitivity "
                              "(tools/lab report does)")
    return tables


def rig_of(fields, what):
    """The Rig from the run's fields table (key -> value)."""
    try:
        clients, rate = fields["closed_loop_clients"], fields["open_loop_rate_per_s"]
        seeds = fields["seeds"]
    except KeyError as e:
        raise ReportError(f"{what} has no field {e}; rerun the capstone (tools/lab report)")
    return Rig(int(clients), rate, len(str(seeds).split(",")))


def display_path(path, root):
    """The calibration as the commands show it: relative to the repository."""
    rel = os.path.relpath(os.path.abspath(path), root)
    return path if rel.startswith("..") else rel


def load_run(perflab, calibration, root, reuse_dir):
    """Runs the capstone (or reads an earlier run) and returns (text, tables)."""
    cal = display_path(calibration, root)
    if reuse_dir:
        path = os.path.join(reuse_dir, RUN_CSV)
        try:
            with open(path, encoding="utf-8") as f:
                text = f.read()
        except OSError as e:
            raise ReportError(f"--capstone-run: cannot read {path}: {e.strerror}")
        tables = parse_run(text, path)
        with open(calibration, "rb") as f:
            want = "sha256:" + hashlib.sha256(f.read()).hexdigest()
        got = {r["key"]: r["value"] for r in tables["fields"]}.get("calibration_hash")
        if got != want:
            raise ReportError(f"--capstone-run: {path} was made with calibration {got}, not "
                              f"{cal} ({want}); rerun tools/lab report without --capstone-run")
        return text, tables
    # --out-dir: the capstone also writes its files there; the report keeps only stdout.
    with tempfile.TemporaryDirectory(prefix="perflab-capstone.") as scratch:
        cmd = [perflab.binary, "capstone", "--calibration", cal, "--sensitivity", "--format",
               "csv", "--out-dir", scratch]
        out = run(cmd, cwd=root)
    if out.returncode != 0:
        first = (out.stderr.strip().splitlines() or ["(no message)"])[0]
        raise ReportError(f"'perflab capstone --calibration {cal}' failed (exit {out.returncode}): "
                          f"{first}")
    return out.stdout, parse_run(out.stdout, "output of 'perflab capstone'")


def steps_axis(ax, names):
    ax.set_xticks(range(len(names)))
    ax.set_xticklabels(names, rotation=30, ha="right")
    ax.grid(axis="x", visible=False)


def finish_steps(fig, ax, names, ylabel, out, slug, **legend):
    """Steps on x, the legend (default: to the right of the axes), saved as OUT/slug.svg."""
    steps_axis(ax, names)
    style.label(ax, 0, "step (each adds one change to the previous)", ylabel)
    ax.legend(**(legend or {"loc": "upper left", "bbox_to_anchor": (1.0, 1.0)}))
    style.save(fig, os.path.join(out, slug + ".svg"))


def bars(ax, series, width=0.8):
    """Grouped bars: series is [(label, values, colour, hatch)], one bar per step each."""
    n = len(series)
    w = width / n
    for i, (label, values, color, hatch) in enumerate(series):
        xs = [k - width / 2 + w * (i + 0.5) for k in range(len(values))]
        if hatch is None:
            ax.bar(xs, values, w, label=label, color=color, edgecolor="white", linewidth=0.5)
        else:  # white with hatching in the series colour: same hue, other source
            ax.bar(xs, values, w, label=label, color="white", hatch=hatch, edgecolor=color,
                   linewidth=0.8)


def capstone(perflab, out, calibration, root, reuse_dir=None):
    text, t = load_run(perflab, calibration, root, reuse_dir)
    with open(os.path.join(out, RUN_CSV), "w", encoding="utf-8") as f:
        f.write(text)
    cal = display_path(calibration, root)
    command = f"perflab capstone --calibration {cal} --sensitivity --format csv"
    commands = [f"{command} > {RUN_CSV}   # from the repository root; one run for all six"]
    steps, cs = t["steps"], {r["name"]: r for r in t["case_study"]}
    for s in steps:
        if s["name"] not in cs:
            raise ReportError(f"the capstone's case_study table has no step '{s['name']}'")
    names = [s["name"] for s in steps]
    fields = {r["key"]: r["value"] for r in t["fields"]}
    calname, rig = fields["calibration"], rig_of(fields, RUN_CSV)
    gen = {r["name"]: r["generator_utilisation_pct"] for r in t["cpu_share"]}
    return [rps_plot(out, rig, steps, cs, names, calname, gen, scan_note(calibration, root),
                     commands),
            p99_plot(out, rig, steps, cs, names, commands),
            cost_plot(out, steps, cs, names, calname, fields, commands),
            cpu_plot(out, t["cpu_share"], names, calname, str(fields.get("framework_cpu", "")),
                     commands),
            caps_plot(out, rig, t["caps"], names, calname, commands),
            sensitivity_plot(out, t["sensitivity"], t["what_to_fix_next"], names, calname,
                             commands),
            mva_plot(perflab, out, root)]


def scan_note(calibration, root):
    """Why the baseline's height differs: this calibration's scan against the seed's."""
    seed = os.path.join(root, "fixtures", "calibration", "seed-h2.json")
    try:
        ours = load_json(calibration)["fields"]["orders_query_scan_us"]["value"]
        theirs = load_json(seed)["fields"]["orders_query_scan_us"]["value"]
    except (ReportError, KeyError, TypeError):
        return ""
    if os.path.samefile(calibration, seed) or ours == theirs:
        return ""
    return prose.capstone_scan_note(ours, theirs)


def rps_plot(out, rig, steps, cs, names, calname, gen, scan_note, commands):
    fig, (ax,) = style.figure(width=9.6, title="Capstone: throughput per step, perflab beside "
                              f"the case study ({rig.clients} closed-loop clients)")
    ours, theirs = [s["rps"] for s in steps], [cs[n]["rps"] for n in names]
    bars(ax, [(f"perflab (calibration {calname})", ours, C[0], None),
              ("case study", theirs, CASE_STUDY, None)])
    bound = [k for k, n in enumerate(names) if gen[n] >= RIG_BOUND_PCT]
    for k in bound:  # perflab's bar there measures the load generator, not the service
        ax.annotate(f"load generator\n{gen[names[k]]:.0f} % busy", (k - 0.2, ours[k]),
                    xytext=(0, 3), textcoords="offset points", ha="center", va="bottom",
                    fontsize=7)
    ax.set_ylim(0, max(ours + theirs) * 1.18)
    finish_steps(fig, ax, names, "throughput (req/s)", out, "capstone_rps", loc="upper left")
    para = prose.capstone_rps(rig, steps, cs, names, gen, bound, scan_note)
    cols = ["step", "perflab_rps", "case_study_rps", "perflab_factor", "case_study_factor",
            "generator_utilisation_pct"]
    rows = [[n, s["rps"], cs[n]["rps"], s["factor"], s["case_study_factor"], gen[n]]
            for n, s in zip(names, steps)]
    return Section("capstone_rps", "Capstone: RPS per step", cols, rows, para, commands)


def p99_plot(out, rig, steps, cs, names, commands):
    fig, (ax,) = style.figure(width=9.6, title="Capstone: p99 latency per step, closed and open "
                              "loop, perflab beside the case study")
    bars(ax, [(f"perflab, closed loop ({rig.clients} clients)", [s["p99_ms"] for s in steps],
               C[0], None),
              ("case study, closed loop", [cs[n]["p99_ms"] for n in names], C[0], "///"),
              (f"perflab, open loop ({rig.open_rate_per_s:g} req/s)",
               [s["open_p99_ms"] for s in steps], C[1], None),
              ("case study, open loop", [cs[n]["open_p99_ms"] for n in names], C[1], "///")])
    ax.set_yscale("log")
    style.plain_log(ax.yaxis)
    finish_steps(fig, ax, names, "p99 latency (ms, log scale)", out, "capstone_p99",
                 loc="upper right", ncol=2, fontsize=8)
    para = prose.capstone_p99(rig, steps, cs, names)
    cols = ["step", "perflab_p99_ms", "case_study_p99_ms", "perflab_open_p99_ms",
            "case_study_open_p99_ms"]
    rows = [[n, s["p99_ms"], cs[n]["p99_ms"], s["open_p99_ms"], cs[n]["open_p99_ms"]]
            for n, s in zip(names, steps)]
    return Section("capstone_p99", "Capstone: p99 per step", cols, rows, para, commands)


def cost_plot(out, steps, cs, names, calname, fields, commands):
    fig, (ax,) = style.figure(width=9.6, title="Capstone: cost per million requests, perflab "
                              "beside the case study (example prices)")
    ours, theirs = [s["usd_per_million"] for s in steps], [cs[n]["usd_per_million"] for n in names]
    bars(ax, [(f"perflab (calibration {calname})", ours, C[2], None),
              ("case study", theirs, CASE_STUDY, None)])
    ax.set_yscale("log")
    from matplotlib.ticker import FuncFormatter
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    finish_steps(fig, ax, names, "$ per 1M requests (USD, log scale)", out, "capstone_cost",
                 loc="upper right")
    para = prose.capstone_cost(fields, ours, theirs)
    cols = ["step", "perflab_usd_per_million", "case_study_usd_per_million"]
    rows = [[n, a, b] for n, a, b in zip(names, ours, theirs)]
    return Section("capstone_cost", "Capstone: $/1M per step", cols, rows, para, commands)


def cpu_plot(out, shares, names, calname, framework, commands):
    by = {r["name"]: r for r in shares}
    jvm_framework = framework.startswith(JVM_FRAMEWORK)
    beside = jvm_framework and framework != JVM_FRAMEWORK
    fig, (ax,) = style.figure(width=9.6, title="Capstone: where the application's CPU goes, "
                              f"per step (perflab, calibration {calname})")
    bottom = [0.0] * len(names)
    for i, (key, label) in enumerate(CPU_PARTS):
        if key == "other_pct" and jvm_framework:
            label = "framework: the case study's\nJVM (not measured here)"
        elif key in MEASURED_HERE and beside:
            label += "\n(this machine's C++)"
        vals = [by[n][key] for n in names]
        ax.bar(range(len(names)), vals, 0.7, bottom=bottom, label=label, color=C[i],
               edgecolor="white", linewidth=0.5)
        bottom = [b + v for b, v in zip(bottom, vals)]
    ax.set_ylim(0, 100)
    finish_steps(fig, ax, names, "share of application CPU (%)", out, "capstone_cpu")
    para = prose.capstone_cpu(by, names, jvm_framework, beside)
    cols = ["step"] + [k for k, _ in CPU_PARTS]
    rows = [[n] + [by[n][k] for k, _ in CPU_PARTS] for n in names]
    return Section("capstone_cpu", "Capstone: CPU attribution per step", cols, rows, para,
                   commands)


def caps_busy(row):
    """(threads, pool, cores) busy in % of each cap's size; threads None when virtual."""
    threads = None if row["threads"] == "virtual" else 100 * row["threads_busy"] / row["threads"]
    return threads, 100 * row["pool_busy"] / row["pool"], 100 * row["cores_busy"] / row["app_cores"]


def caps_plot(out, rig, caps, names, calname, commands):
    by = {r["name"]: r for r in caps}
    busy = {n: caps_busy(by[n]) for n in names}
    fig, (ax,) = style.figure(width=9.6, title="Capstone: the caps in series, how busy each is "
                              f"per step (perflab, calibration {calname})")
    bars(ax, [("request threads", [busy[n][0] or 0 for n in names], C[0], None),
              ("database connections", [busy[n][1] for n in names], C[1], None),
              ("application cores", [busy[n][2] for n in names], C[2], None)])
    for k, n in enumerate(names):
        if busy[n][0] is None:
            ax.annotate("virtual", (k - 0.27, 0), xytext=(0, 3), textcoords="offset points",
                        ha="center", va="bottom", fontsize=7, rotation=90)
    ax.axhline(100, color="black", linewidth=0.8, linestyle="--")
    ax.set_ylim(0, 118)
    finish_steps(fig, ax, names, "busy (% of the cap's size)", out, "capstone_caps")
    para = prose.capstone_caps(rig, by, busy, names, FULL_PCT)
    cols = ["step", "threads", "threads_busy_pct", "thread_wait_ms", "pool", "pool_busy_pct",
            "pool_wait_ms", "cores", "cores_busy_pct"]
    rows = [[n, by[n]["threads"], busy[n][0], by[n]["thread_wait_ms"] if busy[n][0] is not None
             else None, by[n]["pool"], busy[n][1], by[n]["pool_wait_ms"], by[n]["app_cores"],
             busy[n][2]] for n in names]
    return Section("capstone_caps", "Capstone: the caps in series", cols, rows, para, commands)


def sensitivity_plot(out, sens, top, names, calname, commands):
    import matplotlib.colors as mcolors
    from matplotlib.patches import Rectangle
    tops = {r["name"]: [r["first"], r["second"], r["third"]] for r in top}
    costs = []
    for n in names:  # the costs that are in some step's top three, in first-seen order
        for c in tops[n]:
            if isinstance(c, str) and c not in ("", "-") and c not in costs:
                costs.append(c)
    e = {(r["name"], r["field"]): r["elasticity"] for r in sens}
    grid = [[e.get((n, c), 0.0) for c in costs] for n in names]
    fig, (ax,) = style.figure(width=9.6, height=5.4, title="Capstone: what to fix next, the "
                              "elasticity of RPS to each cost (boxed: the step's top three)")
    norm = mcolors.TwoSlopeNorm(vmin=-1.0, vcenter=0.0, vmax=1.0)
    im = ax.imshow(grid, cmap="RdBu", norm=norm, aspect="auto")
    for y, n in enumerate(names):
        for x, c in enumerate(costs):
            v = grid[y][x]
            strong = abs(v) > 0.55
            text = f"{v:+.2f}" if abs(v) >= 0.005 else f"{v:+.3f}" if abs(v) >= 0.0005 else "0"
            ax.text(x, y, text, ha="center", va="center",
                    fontsize=7, color="white" if strong else "black")
            if c in tops[n]:
                ax.add_patch(Rectangle((x - 0.5, y - 0.5), 1, 1, fill=False, edgecolor="black",
                                       linewidth=1.4))
    ax.set_xticks(range(len(costs)))
    ax.set_xticklabels(costs, rotation=30, ha="right", fontsize=8)
    ax.set_yticks(range(len(names)))
    ax.set_yticklabels(names)
    ax.grid(visible=False)
    cb = fig.colorbar(im, ax=ax, fraction=0.04, pad=0.02)
    cb.set_label("elasticity: % RPS change per % cost change")
    style.label(ax, 0, "cost (calibration field, each moved ±10 %)",
                "step (after its change)")
    style.save(fig, os.path.join(out, "capstone_sensitivity.svg"))
    para = prose.capstone_sensitivity(top, names)
    cols = ["step", "cost", "elasticity", "rank"]
    rows = []
    for n in names:
        for c in costs:
            rows.append([n, c, e.get((n, c), 0.0), tops[n].index(c) + 1 if c in tops[n] else ""])
    shown = [[r["name"], r["first"], r["first_elasticity"], r["second"], r["second_elasticity"],
              r["third"], r["third_elasticity"]] for r in top]
    return Section("capstone_sensitivity", "Capstone: what to fix next (sensitivity)", cols, rows,
                   para, commands, shown=shown,
                   shown_columns=["step", "first", "elasticity", "second", "elasticity", "third",
                                  "elasticity"])


# ---- the caps predicted by MVA, over the number of clients ----

MVA_CALIBRATION = os.path.join("fixtures", "calibration", "seed-h2.json")
MVA_MAX_CLIENTS = 64
SIMULATED_CLIENTS = (1, 4, 8, 16, 32, 64)  # few: each is one `perflab sim` run


def seed_h2_capstone(perflab, root):
    """The capstone's JSON with the calibration `perflab sim order-service` runs."""
    with tempfile.TemporaryDirectory(prefix="perflab-capstone.") as scratch:
        cmd = [perflab.binary, "capstone", "--calibration", MVA_CALIBRATION, "--format", "json",
               "--out-dir", scratch]
        out = run(cmd, cwd=root)
    if out.returncode != 0:
        first = (out.stderr.strip().splitlines() or ["(no message)"])[0]
        raise ReportError(f"'perflab capstone --calibration {MVA_CALIBRATION}' failed "
                          f"(exit {out.returncode}): {first}")
    doc = parse_json(out.stdout, "output of 'perflab capstone'")
    if not isinstance(doc.get("mva"), list) or not isinstance(doc.get("steps"), list):
        raise ReportError("output of 'perflab capstone' has no 'mva' or 'steps' array")
    return doc


def sim_sets(changes):
    """A step's cumulative settings as `perflab sim order-service` --set values.

    The capstone names each change by its OrderServiceConfig field
    ("index=true", "db_pool=8", "virtual_threads=true"); the scenario's keys
    are the same but for booleans (1) and virtual threads (threads=virtual).
    """
    sets = []
    for change in changes:
        if change == "baseline":
            continue
        key, _, value = change.partition("=")
        if key == "virtual_threads" and value == "true":
            key, value = "threads", "virtual"
        elif value == "true":
            value = "1"
        elif value == "false":
            value = "0"
        sets.append(f"{key}={value}")
    return sets


def station_flags(stations):
    """`perflab models mva` --station flags for the capstone's stations."""
    flags = []
    for s in stations:
        spec = f"{s['name']}:demand_ms={s['demand_ms']!r}"
        spec += ",kind=delay" if s["kind"] == "delay" else f",servers={s['servers']}"
        flags += ["--station", spec]
    return flags


def mva_curve(perflab, doc, k):
    """The step's MVA solution for N = 1..64, and its simulated points."""
    step, mva = doc["steps"][k], doc["mva"][k]
    if mva.get("name") != step["name"] or not mva.get("stations"):
        raise ReportError(f"the capstone's mva array has no network for step '{step['name']}'")
    solved = perflab.json("models", "mva", *station_flags(mva["stations"]), "--clients",
                          f"1..{MVA_MAX_CLIENTS}")
    sets = sim_sets([s["change"] for s in doc["steps"][:k + 1]])
    simulated = {}
    for n in SIMULATED_CLIENTS:
        args = ["sim", "order-service", "--set", f"clients={n}"]
        for kv in sets:
            args += ["--set", kv]
        simulated[n] = perflab.json(*args)
    return {"name": step["name"], "mva": mva, "solved": solved, "rows": table(solved, "clients"),
            "simulated": simulated, "sets": sets}


def mva_plot(perflab, out, root):
    doc = seed_h2_capstone(perflab, root)
    chosen = sorted({0, len(doc["steps"]) - 1})
    curves = [mva_curve(perflab, doc, k) for k in chosen]
    clients = doc["closed_loop_clients"]
    fig, axes = style.figure(ncols=len(curves), width=9.6, title="Capstone: exact MVA from each "
                             "step's own demands, its bounds, and the simulation (seed-h2)")
    for i, (ax, c) in enumerate(zip(axes, curves)):
        ns = [r["clients"] for r in c["rows"]]
        ax.plot(ns, [n * 1000 / c["mva"]["total_demand_ms"] for n in ns], color="#888888",
                linestyle="--", linewidth=1, label="bound N / D")
        ax.axhline(c["mva"]["bound_rps"], color="#888888", linestyle=":", linewidth=1.2,
                   label=f"bound 1 / D_max ({c['mva']['bottleneck']})")
        ax.plot(ns, [r["throughput_per_s"] for r in c["rows"]], color=C[0], label="exact MVA")
        sim_n = list(SIMULATED_CLIENTS)
        ax.plot(sim_n, [c["simulated"][n]["rps"] for n in sim_n], "o", color=C[1], zorder=4,
                label="simulated (perflab sim order-service)")
        ax.set_xlim(0, MVA_MAX_CLIENTS + 1)
        top = c["mva"]["bound_rps"] * 1.25
        ax.set_ylim(0, top)
        ax.axvline(clients, color="black", linewidth=0.6, alpha=0.5)
        ax.annotate(f"the rig: {clients} clients", (clients, top), xytext=(3, -10),
                    textcoords="offset points", fontsize=7)
        style.label(ax, i, "clients N (closed loop, no think time)", "throughput (req/s)",
                    c["name"])
        ax.legend(loc="lower right", fontsize=7)
    style.save(fig, os.path.join(out, "capstone_mva.svg"))
    para = prose.capstone_mva(curves, clients, SIMULATED_CLIENTS)
    cols = ["step", "clients", "mva_rps", "bound_clients_over_demand_rps", "bound_max_demand_rps",
            "simulated_rps", "simulated_cache_hit_ratio"]
    rows, shown = [], []
    for c in curves:
        for r in c["rows"]:
            n = r["clients"]
            sim = c["simulated"].get(n)
            row = [c["name"], n, r["throughput_per_s"], n * 1000 / c["mva"]["total_demand_ms"],
                   c["mva"]["bound_rps"], sim["rps"] if sim else None,
                   sim["cache_hit_ratio"] if sim else None]
            rows.append(row)
            if sim:
                shown.append(row)
    commands = [f"perflab capstone --calibration {MVA_CALIBRATION} --format json   # the mva "
                "array: each step's stations and demands"]
    for c in curves:
        commands.append(" ".join(["perflab", "models", "mva", *station_flags(c["mva"]["stations"]),
                                  "--clients", f"1..{MVA_MAX_CLIENTS}"]))
        commands.append(" ".join(["perflab", "sim", "order-service", "--set", "clients=N",
                                  *[f"--set {kv}" for kv in c["sets"]]])
                        + "   # N = " + ", ".join(str(n) for n in SIMULATED_CLIENTS))
    return Section("capstone_mva", "Capstone: the caps predicted by MVA", cols, rows, para,
                   commands, shown=shown)
