"""A tiny Chrome DevTools Protocol client over ``--remote-debugging-pipe`` (stdlib only).

Chromium reads commands on its fd 3 and writes answers and events on its fd 4, each a
JSON message ending in a NUL byte; no websocket, no driver binary, no extra package.
Enough for the replay page test: open a file, evaluate JavaScript, click with the
mouse, press keys, take screenshots, and see every network request and script error.
"""
from __future__ import annotations

import base64
import fcntl
import json
import os
import select
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--remote-debugging-pipe")


def find_chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


class CDPError(RuntimeError):
    pass


class Chromium:
    """One headless Chromium with one page; ``close()`` ends it."""

    def __init__(self, binary: str, profile: Path, width: int = 1100, height: int = 900, timeout: float = 30.0):
        self.timeout = timeout
        to_child, self._send_fd = os.pipe()
        self._recv_fd, from_child = os.pipe()
        # park the child's ends above 2 so that dup2 onto 3 and 4 cannot clobber one another
        high_in = fcntl.fcntl(to_child, fcntl.F_DUPFD, 10)
        high_out = fcntl.fcntl(from_child, fcntl.F_DUPFD, 10)

        def wire() -> None:  # in the child, before exec: fd 3 = commands, fd 4 = answers
            os.dup2(high_in, 3)
            os.dup2(high_out, 4)

        self.proc = subprocess.Popen(
            [binary, *FLAGS, f"--user-data-dir={profile}", f"--window-size={width},{height}", "about:blank"],
            preexec_fn=wire, close_fds=False, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        for fd in (to_child, from_child, high_in, high_out):
            os.close(fd)
        self._buffer = b""
        self._next_id = 0
        self.events: list[dict[str, Any]] = []
        target = self.call("Target.createTarget", url="about:blank")["targetId"]
        self.session = self.call("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
        for domain in ("Page", "Runtime", "Network"):
            self.call(f"{domain}.enable", session=True)
        self.call("Emulation.setDeviceMetricsOverride", session=True, width=width, height=height,
                  deviceScaleFactor=1, mobile=False)

    # ------------------------------------------------------------ wire
    def _read_message(self, deadline: float) -> dict[str, Any]:
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self._recv_fd], [], [], left)[0]:
                raise CDPError("chromium did not answer in time")
            chunk = os.read(self._recv_fd, 1 << 16)
            if not chunk:
                raise CDPError(f"chromium closed the pipe (exit code {self.proc.poll()})")
            self._buffer += chunk
        message, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(message)

    def call(self, method: str, session: bool = False, **params: Any) -> dict[str, Any]:
        """Send one command and wait for its answer; events met meanwhile are kept."""
        self._next_id += 1
        message: dict[str, Any] = {"id": self._next_id, "method": method, "params": params}
        if session:
            message["sessionId"] = self.session
        os.write(self._send_fd, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + self.timeout
        while True:
            answer = self._read_message(deadline)
            if answer.get("id") == self._next_id:
                if "error" in answer:
                    raise CDPError(f"{method}: {answer['error']}")
                return answer.get("result", {})
            self.events.append(answer)

    def wait_event(self, method: str) -> dict[str, Any]:
        deadline = time.monotonic() + self.timeout
        for i, event in enumerate(self.events):
            if event.get("method") == method:
                return self.events.pop(i)
        while True:
            event = self._read_message(deadline)
            if event.get("method") == method:
                return event
            self.events.append(event)

    # ------------------------------------------------------------ page
    def open(self, path: Path, fragment: str = "") -> None:
        """Load ``path`` (``fragment``: e.g. ``#frame=3``, part of the address)."""
        if fragment:  # the same page with another fragment would not load again: leave it first
            self.call("Page.navigate", session=True, url="about:blank")
            self.wait_event("Page.loadEventFired")
        self.events.clear()
        self.call("Page.navigate", session=True, url=path.resolve().as_uri() + fragment)
        self.wait_event("Page.loadEventFired")

    def evaluate(self, expression: str) -> Any:
        result = self.call("Runtime.evaluate", session=True, expression=expression, returnByValue=True)
        if "exceptionDetails" in result:
            raise CDPError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def click(self, selector: str, fraction_x: float = 0.5) -> None:
        """A real mouse click (press and release) inside the element ``selector``."""
        box = self.evaluate(f"(() => {{ const r = document.querySelector({json.dumps(selector)})"
                            f".getBoundingClientRect(); return [r.x, r.y, r.width, r.height]; }})()")
        x, y = box[0] + box[2] * fraction_x, box[1] + box[3] / 2
        for kind in ("mousePressed", "mouseReleased"):
            self.call("Input.dispatchMouseEvent", session=True, type=kind, x=x, y=y, button="left", clickCount=1)

    def press(self, key: str, code: int) -> None:
        for kind in ("keyDown", "keyUp"):
            self.call("Input.dispatchKeyEvent", session=True, type=kind, key=key, code=key,
                      windowsVirtualKeyCode=code)

    def screenshot(self, path: Path, full_page: bool = False) -> bytes:
        """The window as PNG; ``full_page``: the whole page, what lies below the window too."""
        extra: dict[str, Any] = {}
        if full_page:
            width, height = self.evaluate("[Math.max(innerWidth, document.documentElement.scrollWidth), "
                                          "document.documentElement.scrollHeight]")
            extra = {"captureBeyondViewport": True, "clip": {"x": 0, "y": 0, "width": width, "height": height, "scale": 1}}
        png = base64.b64decode(self.call("Page.captureScreenshot", session=True, format="png", **extra)["data"])
        path.write_bytes(png)
        return png

    def requests(self) -> list[str]:
        """URLs the page asked for since it was opened."""
        return [e["params"]["request"]["url"] for e in self.events if e.get("method") == "Network.requestWillBeSent"]

    def script_errors(self) -> list[Any]:
        return [e["params"] for e in self.events if e.get("method") == "Runtime.exceptionThrown"]

    def close(self) -> None:
        try:
            self.call("Browser.close")
        except CDPError:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        os.close(self._send_fd)
        os.close(self._recv_fd)
