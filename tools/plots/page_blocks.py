"""The HTML page's parts that are tables rather than plots: the capstone's
ten-step table with its factors and fidelity (read from the run the plots
drew, capstone_run.csv), the leave-one-row-out check (`perflab capstone
--validate`) and, when a run's JSON is given, `perflab capstone --real`
beside the composed model. Each reads perflab's own output; none computes a
figure of its own."""

import os
import tempfile

import capstone
from data import ReportError, load_json, run
from html_page import Block

STEP_COLUMNS = [("name", "step"), ("change", "change"), ("mark", "row is"),
                ("rps", "perflab RPS"), ("factor", "perflab factor (x)"),
                ("p99_ms", "p99 (ms)"), ("open_p99_ms", "open p99 (ms)"),
                ("cpu_cores", "CPU (cores)"), ("usd_per_million", "$/1M")]


def capstone_block(out):
    """The capstone table from OUT/capstone_run.csv, the case study beside it."""
    path = os.path.join(out, capstone.RUN_CSV)
    with open(path, encoding="utf-8") as f:
        t = capstone.parse_run(f.read(), path)
    case = {r["name"]: r for r in t["case_study"]}
    cols = [h for _, h in STEP_COLUMNS[:5]] + ["case study RPS", "case study factor (x)"]
    cols += [h for _, h in STEP_COLUMNS[5:]] + ["case study p99 (ms)"]
    rows = []
    for s in t["steps"]:
        c = case[s["name"]]
        row = [s[k] for k, _ in STEP_COLUMNS[:5]] + [c["rps"], s["case_study_factor"]]
        rows.append(row + [s[k] for k, _ in STEP_COLUMNS[5:]] + [c["p99_ms"]])
    fields = {r["key"]: r["value"] for r in t["fields"]}
    fidelity = t.get("fidelity") or []
    tables = [("The ten steps: perflab beside the case study", cols, rows)]
    if fidelity:
        tables.append(("Fidelity: agreement with the case study, held-out rows apart",
                       list(fidelity[0].keys()), [list(r.values()) for r in fidelity]))
    if t.get("outcomes"):
        tables.append(("Outcomes: first step to last", list(t["outcomes"][0].keys()),
                       [list(r.values()) for r in t["outcomes"]]))
    para = (f"`perflab capstone --calibration {fields.get('calibration_path', '?')}`: each "
            "step adds one change to the previous. A factor is a step's RPS over the previous "
            "step's. A row marked input fed the calibration, so agreeing with it proves "
            "nothing; held-out rows are predictions: "
            f"{fields.get('held_out_within_30_pct', '?')} held-out steps within 30 % of the "
            f"case study's RPS, {fields.get('held_out_same_way', '?')} moving its way.")
    return Block("capstone-table", "Capstone: the ten-step table", [para], tables)


def doc_tables(doc):
    """Every table of a perflab JSON document, in its order, headed by its key."""
    out = []
    for key, value in doc.items():
        if isinstance(value, list) and value and all(isinstance(r, dict) for r in value):
            # A key that does not apply to a row is absent from it: the
            # columns are every key any row holds, in first-seen order.
            cols = list(dict.fromkeys(k for r in value for k in r))
            out.append((key.replace("_", " "), cols, [[r.get(c) for c in cols] for r in value]))
    return out


def doc_fields(doc):
    return [(k, v) for k, v in doc.items()
            if k not in ("title", "notes") and not isinstance(v, (list, dict))]


def validate_block(perflab, root):
    """`perflab capstone --validate` (seconds): each row predicted without it."""
    with tempfile.TemporaryDirectory(prefix="perflab-validate.") as scratch:
        cmd = [perflab.binary, "capstone", "--validate", "--format", "json", "--out-dir", scratch]
        out = run(cmd, cwd=root)
    if out.returncode != 0:
        first = (out.stderr.strip().splitlines() or ["(no message)"])[0]
        raise ReportError(f"'perflab capstone --validate' failed (exit {out.returncode}): {first}")
    from data import parse_json
    doc = parse_json(out.stdout, "output of 'perflab capstone --validate'")
    tables = doc_tables(doc)
    fields = doc_fields(doc)
    if fields:
        tables.insert(0, ("summary", ["field", "value"], fields))
    paragraphs = [f"`perflab capstone --validate`: {doc.get('title', '')}."]
    paragraphs += [str(n) for n in doc.get("notes", [])]
    return Block("leave-one-row-out", "Capstone: leave-one-row-out", paragraphs, tables)


def real_block(path):
    """A saved `perflab capstone --real --format json` beside the composed model."""
    doc = load_json(path)
    if "real" not in doc or "composed" not in doc:
        raise ReportError(f"--real-run {path} has no 'real' and 'composed' tables; accepted: "
                          "the output of perflab capstone --real --format json")
    tables = doc_tables(doc)
    fields = doc_fields(doc)
    if fields:
        tables.insert(0, ("summary", ["field", "value"], fields))
    paragraphs = [f"`perflab capstone --real --format json > {os.path.basename(path)}`: "
                  f"{doc.get('title', '')}."]
    paragraphs += [str(n) for n in doc.get("notes", [])]
    return Block("capstone-real", "Capstone: the real service beside the composed model",
                 paragraphs, tables)
