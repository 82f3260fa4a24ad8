"""A headless Chromium driven over the DevTools protocol, standard library
only: --remote-debugging-pipe (commands on fd 3, replies and events on fd 4,
each a JSON text ended by NUL), so no port, no websocket, no third-party
client. Used by report_browser_test.py.

  with Chromium(binary, scratch) as c:
      page = c.open("file:///...", width=1280)
      page.screenshot(...), page.pdf(), page.problems
"""

import base64
import json
import os
import select
import shutil
import signal
import struct
import subprocess
import tempfile
import time
import zlib


class CannotStart(Exception):
    """Chromium is missing or does not answer: the test is skipped, not failed."""


def find_binary():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


def live_members(pgid):
    """Processes of group `pgid` that are not zombies (a zombie writes
    nothing, and its reaping is up to whoever adopted it)."""
    out = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", encoding="ascii", errors="replace") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == pgid and fields[0] != "Z":
            out.append(int(entry))
    return out


class Chromium:
    # A guard against a hung browser, not a speed check: on a machine whose
    # two cores run five builds a page took over 60 s to answer.
    def __init__(self, binary, scratch, timeout_s=300):
        self.binary, self.scratch, self.timeout_s = binary, scratch, timeout_s
        self.proc, self.next_id, self.buffer, self.events = None, 0, b"", []

    def __enter__(self):
        # The browser's TMPDIR, removed in __exit__: it keeps its singleton
        # socket in a directory there, which the group's SIGKILL leaves behind.
        # Not inside the scratch: a socket's path has at most 107 bytes.
        self.tmp = tempfile.mkdtemp(prefix="chromium.")
        to_chrome_r, self.to_chrome = os.pipe()
        self.from_chrome, from_chrome_w = os.pipe()

        def fds():  # in the child: the protocol's fds 3 (commands) and 4 (replies)
            a, b = os.dup(to_chrome_r), os.dup(from_chrome_w)
            os.dup2(a, 3)
            os.dup2(b, 4)

        args = [self.binary, "--headless", "--no-sandbox", "--disable-gpu",
                "--remote-debugging-pipe", "--no-first-run", "--no-default-browser-check",
                "--disable-extensions", "--disable-background-networking", "--hide-scrollbars",
                "--font-render-hinting=none", f"--user-data-dir={self.scratch}", "about:blank"]
        try:
            self.proc = subprocess.Popen(args, stdin=subprocess.DEVNULL,
                                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                         close_fds=False, preexec_fn=fds,
                                         start_new_session=True,
                                         env=dict(os.environ, TMPDIR=self.tmp))
        except OSError as e:
            shutil.rmtree(self.tmp, ignore_errors=True)
            raise CannotStart(f"cannot run {self.binary}: {e.strerror}")
        finally:
            os.close(to_chrome_r)
            os.close(from_chrome_w)
        try:
            self.call("Browser.getVersion")
        except (TimeoutError, BrokenPipeError, EOFError) as e:
            err = self.proc.stderr.read1(4000).decode(errors="replace") if self.proc.poll() \
                is not None else ""
            self.__exit__(None, None, None)
            raise CannotStart(f"{self.binary} does not answer ({e}); {err.strip()[:300]}")
        return self

    def __exit__(self, *exc):
        for fd in (self.to_chrome, self.from_chrome):
            try:
                os.close(fd)
            except OSError:
                pass
        try:
            self.end_browser()
        finally:
            shutil.rmtree(self.tmp, ignore_errors=True)

    def end_browser(self):
        if not self.proc:
            return
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        # The browser's own end is not its helpers' (renderer, zygote,
        # utility): on a loaded machine they were still writing the profile
        # when the caller removed it. They share the browser's process group,
        # so end the group and wait until no member is left.
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            return
        while live_members(self.proc.pid):
            time.sleep(0.01)  # polling for the group's end, not timing anything

    def send(self, method, params=None, session=None):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        os.write(self.to_chrome, json.dumps(msg).encode() + b"\0")
        return self.next_id

    def receive(self, deadline):
        while b"\0" not in self.buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("no reply from Chromium")
            ready, _, _ = select.select([self.from_chrome], [], [], left)
            if ready:
                chunk = os.read(self.from_chrome, 1 << 20)
                if not chunk:
                    raise EOFError("Chromium closed its pipe")
                self.buffer += chunk
        text, _, self.buffer = self.buffer.partition(b"\0")
        return json.loads(text)

    def call(self, method, params=None, session=None):
        wanted = self.send(method, params, session)
        deadline = time.monotonic() + self.timeout_s
        while True:
            msg = self.receive(deadline)
            if msg.get("id") == wanted:
                if "error" in msg:
                    raise RuntimeError(f"{method}: {msg['error']}")
                return msg.get("result", {})
            self.events.append(msg)

    def wait_event(self, method, session):
        deadline = time.monotonic() + self.timeout_s
        for k, msg in enumerate(self.events):
            if msg.get("method") == method and msg.get("sessionId") == session:
                del self.events[k]
                return msg
        while True:
            msg = self.receive(deadline)
            if msg.get("method") == method and msg.get("sessionId") == session:
                return msg
            self.events.append(msg)

    def open(self, url, width, height=900):
        target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = self.call("Target.attachToTarget",
                            {"targetId": target, "flatten": True})["sessionId"]
        page = Page(self, session, target)
        for domain in ("Page", "Runtime", "Log", "Network"):
            page.call(f"{domain}.enable")
        page.call("Emulation.setDeviceMetricsOverride",
                  {"width": width, "height": height, "deviceScaleFactor": 1,
                   "mobile": width < 600})
        page.call("Page.navigate", {"url": url})
        self.wait_event("Page.loadEventFired", session)
        return page


class Page:
    def __init__(self, chrome, session, target):
        self.chrome, self.session, self.target = chrome, session, target

    def close(self):
        self.chrome.call("Target.closeTarget", {"targetId": self.target})

    def call(self, method, params=None):
        return self.chrome.call(method, params, self.session)

    def eval(self, expression, await_promise=False):
        r = self.call("Runtime.evaluate", {"expression": expression, "returnByValue": True,
                                           "awaitPromise": await_promise})
        if "exceptionDetails" in r:
            raise RuntimeError(f"{expression}: {r['exceptionDetails']}")
        return r["result"].get("value")

    @property
    def problems(self):
        """Console errors, uncaught exceptions, log errors and failed loads
        of this page, as one line each."""
        out = []
        for m in self.chrome.events:
            if m.get("sessionId") != self.session:
                continue
            p = m.get("params", {})
            if m["method"] == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
                out.append("console: " + " ".join(str(a.get("value", a.get("description")))
                                                   for a in p.get("args", [])))
            elif m["method"] == "Runtime.exceptionThrown":
                out.append("exception: " + p["exceptionDetails"].get("text", ""))
            elif m["method"] == "Log.entryAdded" and p["entry"]["level"] == "error":
                out.append(f"log: {p['entry'].get('text')} {p['entry'].get('url', '')}")
            elif m["method"] == "Network.loadingFailed":
                out.append(f"load failed: {p.get('errorText')}")
        return out

    def next_frames(self):
        """Returns once the page has produced two more frames: what it painted
        before is then on screen, whatever the machine's load."""
        self.eval("new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))",
                  await_promise=True)

    def screenshot(self, clip=None):
        params = {"format": "png", "captureBeyondViewport": True}
        if clip:
            params["clip"] = {**clip, "scale": 1}
        return base64.b64decode(self.call("Page.captureScreenshot", params)["data"])

    def pdf(self):
        return base64.b64decode(self.call("Page.printToPDF", {"printBackground": True})["data"])


def png_colours(data, limit=2):
    """How many distinct colours a PNG holds, counting up to `limit` (8-bit
    RGB or RGBA, not interlaced: what Chromium writes)."""
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat, width = 8, b"", 0
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", body)
            if depth != 8 or colour not in (2, 6) or interlace:
                raise ValueError(f"PNG kind {depth}/{colour}/{interlace} not read here")
            bpp = 3 if colour == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw, stride = zlib.decompress(idat), width * bpp
    prev, seen = bytearray(stride), set()
    for row in range(height):
        f, line = raw[row * (stride + 1)], bytearray(raw[row * (stride + 1) + 1:(row + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        for i in range(0, stride, bpp):
            seen.add(bytes(line[i:i + bpp]))
            if len(seen) >= limit:
                return len(seen)
        prev = line
    return len(seen)
