"""Running perflab and reading what it prints: the only way numbers enter the
report. Every failure is a ReportError with one line naming the input."""

import ctypes
import json
import os
import signal
import subprocess

_LIBC = ctypes.CDLL(None, use_errno=True)
PR_SET_PDEATHSIG = 1


def _die_with(parent):
    """In the child before exec: SIGKILL when the report dies, even by SIGKILL."""
    def setup():
        _LIBC.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
        if os.getppid() != parent:
            os._exit(127)
    return setup


def run(cmd, cwd=None):
    """subprocess.run(cmd, capture_output=True, text=True), but the child leads
    its own process group (a Ctrl-C reaches only the report, which forwards it)
    and dies with the report; on an interrupt its group gets SIGTERM (so a
    perflab removes its own temporary files), then SIGKILL after 10 s, and is
    reaped before the exception goes on."""
    p = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True, process_group=0, preexec_fn=_die_with(os.getpid()))
    try:
        out, err = p.communicate()
    except BaseException:
        os.killpg(p.pid, signal.SIGTERM)
        try:
            p.wait(timeout=10)
        except subprocess.TimeoutExpired:
            pass
        try:
            os.killpg(p.pid, signal.SIGKILL)  # what outlived it in its group
        except ProcessLookupError:
            pass
        p.wait()
        raise
    return subprocess.CompletedProcess(cmd, p.returncode, out, err)


class ReportError(Exception):
    """Bad or missing input: report.py prints it as one line and exits 2."""


class Perflab:
    def __init__(self, binary):
        self.binary = binary
        self.commands = []  # every command run, in order (for the index page)

    def json(self, *args):
        cmd = [self.binary, *args, "--format", "json"]
        self.commands.append(" ".join(["perflab", *args]))
        try:
            out = run(cmd)
        except OSError as e:
            raise ReportError(f"cannot run perflab '{self.binary}': {e.strerror}; "
                              "build it with tools/lab build or pass --perflab PATH")
        if out.returncode != 0:
            first = (out.stderr.strip().splitlines() or ["(no message)"])[0]
            raise ReportError(f"'{' '.join(cmd[1:])}' failed (exit {out.returncode}): {first}")
        return parse_json(out.stdout, f"output of 'perflab {' '.join(args)}'")

    def has_command(self, name):
        """Whether `perflab --help` lists `name` among its subcommands."""
        out = run([self.binary, "--help"])
        listed = out.stdout.split("Subcommands:", 1)[-1].splitlines()
        return any(line.split()[:1] == [name] for line in listed)


def parse_json(text, what):
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as e:
        raise ReportError(f"{what} is not valid JSON ({e.msg} at line {e.lineno})")
    if not isinstance(doc, dict):
        raise ReportError(f"{what} is not a JSON object")
    return doc


def load_json(path):
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError as e:
        raise ReportError(f"cannot read {path}: {e.strerror}")
    return parse_json(text, path)


def field(doc, key):
    if key not in doc:
        raise ReportError(f"perflab output '{doc.get('title', '?')}' has no field '{key}'")
    return doc[key]


def table(doc, key):
    rows = doc.get(key)
    if not isinstance(rows, list) or not rows:
        raise ReportError(f"perflab output '{doc.get('title', '?')}' has no table '{key}'")
    return rows


def param(doc, key):
    """A scenario's parameter (its `parameters` table) as a number."""
    for p in table(doc, "parameters"):
        if p.get("key") == key:
            try:
                return float(p["value"])
            except (KeyError, TypeError, ValueError):
                break
    raise ReportError(f"perflab output '{doc.get('title', '?')}' has no numeric parameter '{key}'")


def column(rows, key):
    try:
        return [r[key] for r in rows]
    except (KeyError, TypeError):
        raise ReportError(f"a perflab table has no column '{key}'")
