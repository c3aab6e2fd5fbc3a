#!/usr/bin/env python3
"""Drives headless Chromium through the DevTools protocol on a pipe (--remote-debugging-pipe, so no
websocket library is needed): opens URL, then takes each step in turn — --click SELECTOR or --run SCRIPT
(a script that navigates), waiting for the page it leads to, or --wait CONDITION (a script expression,
until true) — and prints one JSON line per page: {"url": ..., "html": <the rendered DOM>} (after --wait,
the same page again). --screenshot PNG saves the first page as Chromium renders it. --header "Name: value"
adds a header to every request the browser sends (as a browser holding an operator's credentials would);
--resolve "MAP name address" makes Chromium resolve a name to an address (e.g. a rebound DNS name)."""
import argparse, base64, fcntl, json, os, select, shutil, subprocess, sys, tempfile, time


class Browser:
    def __init__(self, chromium, resolve=()):
        self.profile = tempfile.mkdtemp(prefix="registrar-chromium-")
        commands_r, self.commands = os.pipe()
        self.answers, answers_w = os.pipe()
        # Chromium reads commands on fd 3 and writes answers on fd 4.
        commands_r, answers_w = (fcntl.fcntl(fd, fcntl.F_DUPFD, 10) for fd in (commands_r, answers_w))

        def wire():
            os.dup2(commands_r, 3)
            os.dup2(answers_w, 4)

        self.process = subprocess.Popen(
            [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--remote-debugging-pipe",
             "--user-data-dir=" + self.profile]
            + (["--host-resolver-rules=" + ", ".join(resolve)] if resolve else []) + ["about:blank"],
            preexec_fn=wire, close_fds=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(commands_r)
        os.close(answers_w)
        self.buffer = b""
        self.next_id = 0
        self.session = None

    def call(self, method, params=None, session=True, timeout=60):
        """The result of `method`; fails when Chromium does not answer within `timeout` seconds (a page that
        reloads faster than a loaded machine renders it may never yield a screenshot), instead of waiting forever."""
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params or {}}
        if session and self.session:
            message["sessionId"] = self.session
        os.write(self.commands, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while True:
            while b"\0" not in self.buffer:
                if not select.select([self.answers], [], [], max(0, deadline - time.monotonic()))[0]:
                    raise RuntimeError(f"{method}: chromium did not answer within {timeout} s")
                chunk = os.read(self.answers, 1 << 16)
                if not chunk:
                    raise RuntimeError("chromium closed the pipe")
                self.buffer += chunk
            raw, self.buffer = self.buffer.split(b"\0", 1)
            answer = json.loads(raw)
            if answer.get("id") == self.next_id:
                if "error" in answer:
                    raise RuntimeError(f"{method}: {answer['error']}")
                return answer["result"]

    # What Chromium answers to an evaluation whose document navigates away meanwhile.
    NAVIGATING = ("Inspected target navigated or closed", "Execution context was destroyed", "Cannot find context")

    def evaluate(self, expression):
        return self.call("Runtime.evaluate", {"expression": expression, "returnByValue": True})["result"].get("value")

    def open(self, url, headers=None):
        target = self.call("Target.createTarget", {"url": "about:blank"}, session=False)["targetId"]
        self.session = self.call("Target.attachToTarget", {"targetId": target, "flatten": True}, session=False)["sessionId"]
        self.call("Emulation.setDeviceMetricsOverride", {"width": 1400, "height": 1000, "deviceScaleFactor": 1, "mobile": False})
        if headers:
            self.call("Network.enable")
            self.call("Network.setExtraHTTPHeaders", {"headers": headers})
        self.call("Page.navigate", {"url": url})
        self.wait_for_page(lambda: self.evaluate("document.URL") != "about:blank")

    def wait_for_page(self, arrived, timeout=20):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                if arrived() and self.evaluate("document.readyState") == "complete":
                    return
            except RuntimeError as error:
                # Asked while the page navigates: the document asked about is gone; ask the next one.
                if not any(sign in str(error) for sign in self.NAVIGATING):
                    raise
            time.sleep(0.1)
        raise RuntimeError("no page loaded in time")

    def click(self, selector):
        """Clicks the element `selector` finds and waits for the document the click navigates to."""
        self.run(f"(() => {{ const e = document.querySelector({json.dumps(selector)}); if (e) e.click(); return !!e; }})()",
                 f"nothing matches {selector}")

    def run(self, script, failure="the script returned false"):
        """Runs `script`, which navigates, and waits for the document it leads to."""
        self.evaluate("window.__before = true")
        if self.evaluate(script) is False:
            raise RuntimeError(failure)
        self.wait_for_page(lambda: self.evaluate("window.__before === undefined"))

    def wait(self, condition, timeout=20):
        """Waits until the expression `condition` is true on the page."""
        deadline = time.monotonic() + timeout
        while not self.evaluate(condition):
            if time.monotonic() > deadline:
                raise RuntimeError(f"never true: {condition}")
            time.sleep(0.1)

    def page(self):
        return {"url": self.evaluate("document.URL"), "html": self.evaluate("document.documentElement.outerHTML")}

    def screenshot(self, path):
        """Saves the page as rendered. Its reloads (the console's overview refreshes every second in the tests) are
        stopped first: one that came before the capture on a loaded machine would start it over, perhaps for good.
        The capture then waits for rendering alone, which on a loaded machine may take minutes: it measures nothing."""
        self.call("Page.stopLoading")
        height = self.evaluate("document.documentElement.scrollHeight")
        self.call("Emulation.setDeviceMetricsOverride", {"width": 1400, "height": min(max(height, 600), 4000), "deviceScaleFactor": 1, "mobile": False})
        with open(path, "wb") as file:
            file.write(base64.b64decode(self.call("Page.captureScreenshot", {"format": "png"}, timeout=180)["data"]))

    def close(self):
        try:
            self.call("Browser.close", session=False)
            self.process.wait(timeout=10)
        except Exception:
            self.process.kill()
        shutil.rmtree(self.profile, ignore_errors=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("url")
    for step in ("click", "run", "wait"):
        parser.add_argument("--" + step, dest="steps", action="append", type=lambda value, step=step: (step, value))
    parser.add_argument("--header", action="append", default=[])
    parser.add_argument("--resolve", action="append", default=[])
    parser.add_argument("--screenshot")
    parser.add_argument("--chromium", default="/usr/bin/chromium")
    arguments = parser.parse_args()
    browser = Browser(arguments.chromium, arguments.resolve)
    try:
        browser.open(arguments.url, dict(header.split(": ", 1) for header in arguments.header))
        if arguments.screenshot:
            browser.screenshot(arguments.screenshot)
        print(json.dumps(browser.page()), flush=True)
        for step, value in arguments.steps or []:
            getattr(browser, step)(value)
            print(json.dumps(browser.page()), flush=True)
    finally:
        browser.close()


if __name__ == "__main__":
    sys.exit(main())
