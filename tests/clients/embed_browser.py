#!/usr/bin/env python3
"""The embeddable pages in a real browser (issue 17): plays a small rated event over HTTP,
renders the standings, the round's seating and the pool's leaderboard in headless chromium
(screenshots into OUTDIR), and checks the standings DOM as chromium built it (rows, places,
names) against the JSON standings, then keeps the live standings page (`live=true`) open in
chromium, corrects the result over HTTP and waits for the page to show the new order (through
the DevTools protocol, with a small WebSocket client of its own). Standard library only.

Usage: embed_browser.py BASE_URL ADMIN_TOKEN OUTDIR
"""

import base64
import html.parser
import json
import os
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request


def call(base, method, path, token, body=None, headers=None):
    req = urllib.request.Request(base + path, method=method,
                                 data=None if body is None else json.dumps(body).encode())
    req.add_header("content-type", "application/json")
    req.add_header("authorization", "Bearer " + token)
    for k, v in (headers or {}).items():
        req.add_header(k, v)
    with urllib.request.urlopen(req) as r:
        raw = r.read()
        return json.loads(raw) if raw else None


class Rows(html.parser.HTMLParser):
    """The text of each cell of each body row."""

    def __init__(self):
        super().__init__()
        self.rows, self.in_body, self.cell = [], False, None

    def handle_starttag(self, tag, attrs):
        if tag == "tbody":
            self.in_body = True
        elif tag == "tr" and self.in_body:
            self.rows.append([])
        elif tag == "td" and self.in_body:
            self.cell = ""

    def handle_endtag(self, tag):
        if tag == "tbody":
            self.in_body = False
        elif tag == "td" and self.cell is not None:
            self.rows[-1].append(self.cell.strip())
            self.cell = None

    def handle_data(self, data):
        if self.cell is not None:
            self.cell += data


def browser():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        if shutil.which(name):
            return name
    sys.exit("no chromium on PATH")


def chromium(args):
    cmd = [browser(), "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
           "--disable-dev-shm-usage", *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120).stdout


class DevTools:
    """One page of a headless chromium driven over the DevTools protocol (a WebSocket)."""

    def __init__(self):
        self.profile = tempfile.mkdtemp(prefix="tourney-chromium-")
        self.proc = subprocess.Popen(
            [browser(), "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
             "--remote-debugging-port=0", f"--user-data-dir={self.profile}", "about:blank"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        port_file = os.path.join(self.profile, "DevToolsActivePort")
        for _ in range(300):
            if os.path.exists(port_file) and open(port_file).read().count("\n") >= 1:
                break
            time.sleep(0.1)
        port = int(open(port_file).read().split("\n")[0])
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list") as r:
            page = next(t for t in json.load(r) if t["type"] == "page")
        url = urllib.parse.urlparse(page["webSocketDebuggerUrl"])
        self.sock = socket.create_connection((url.hostname, url.port), timeout=30)
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall((f"GET {url.path} HTTP/1.1\r\nHost: {url.hostname}:{url.port}\r\n"
                           "Upgrade: websocket\r\nConnection: Upgrade\r\n"
                           f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n")
                          .encode())
        head = b""
        while b"\r\n\r\n" not in head:
            head += self.sock.recv(1)
        if b" 101 " not in head.split(b"\r\n")[0]:
            sys.exit(f"DevTools refused the WebSocket: {head!r}")
        self.next_id = 0

    def _read(self, n):
        data = b""
        while len(data) < n:
            chunk = self.sock.recv(n - len(data))
            if not chunk:
                sys.exit("DevTools closed the WebSocket")
            data += chunk
        return data

    def _message(self):
        payload = b""
        while True:
            b0, b1 = self._read(2)
            n = b1 & 0x7F
            if n == 126:
                n = struct.unpack(">H", self._read(2))[0]
            elif n == 127:
                n = struct.unpack(">Q", self._read(8))[0]
            payload += self._read(n)
            if b0 & 0x80:
                return json.loads(payload)

    def call(self, method, **params):
        self.next_id += 1
        data = json.dumps({"id": self.next_id, "method": method, "params": params}).encode()
        mask = os.urandom(4)
        n = len(data)
        head = bytes([0x81]) + (bytes([0x80 | n]) if n < 126 else
                                bytes([0x80 | 126]) + struct.pack(">H", n))
        self.sock.sendall(head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(data)))
        while True:
            m = self._message()
            if m.get("id") == self.next_id:
                if "error" in m:
                    sys.exit(f"DevTools {method}: {m['error']}")
                return m["result"]

    def evaluate(self, expression):
        return self.call("Runtime.evaluate", expression=expression,
                         returnByValue=True)["result"].get("value")

    def close(self):
        self.proc.terminate()
        self.proc.wait(timeout=30)
        shutil.rmtree(self.profile, ignore_errors=True)


def first_rows(dev):
    """The (place, player) of each body row of the page chromium shows."""
    rows = dev.evaluate("Array.from(document.querySelectorAll('tbody tr')).map("
                        "r => Array.from(r.cells).map(c => c.textContent.trim()))") or []
    return [(int(r[0]), r[1]) for r in rows]


def live_correction(base, token, tid, table, seats):
    """The live standings page follows a correction of the only result without a reload by
    the reader: the feed names the change and the page's script reloads it."""
    api = "/api/v1"
    dev = DevTools()
    try:
        dev.call("Page.enable")
        dev.call("Page.navigate", url=f"{base}/embed/tournaments/{tid}/standings?live=true")
        for _ in range(100):
            if dev.evaluate("document.readyState") == "complete" and first_rows(dev):
                break
            time.sleep(0.1)
        before = first_rows(dev)
        # The page's EventSource connects after the load; give it time to be listening.
        time.sleep(2)
        fixed = [{"player_id": s["player_id"], "score": 10 + 7 * i} for i, s in enumerate(seats)]
        call(base, "PUT", f"{api}/tournaments/{tid}/rounds/1/tables/{table}/result", token,
             {"seats": fixed, "reason": "scores were entered the wrong way round"},
             {"if-match": '"1"'})
        expected = [(r["place"], r["player_name"]) for r in
                    call(base, "GET", f"{api}/tournaments/{tid}/standings", token)["rows"]]
        if expected == before:
            sys.exit("the correction did not change the standings: nothing to watch")
        shown = before
        for _ in range(150):
            time.sleep(0.1)
            try:
                shown = first_rows(dev)
            except (ValueError, IndexError):
                continue  # the page is between two loads
            if shown == expected:
                break
        print("live page before:", before, "after:", shown)
        if shown != expected:
            sys.exit(f"the live page did not follow the correction: {shown} != {expected}")
        print("the live standings page followed the correction")
    finally:
        dev.close()


def main():
    base, token, out = sys.argv[1:4]
    os.makedirs(out, exist_ok=True)
    api = "/api/v1"
    stamp = int(time.time())
    pool = call(base, "POST", f"{api}/rating-pools", token,
                {"name": f"Browser list {stamp}", "time_zone": "Europe/Oslo"})["id"]
    t = call(base, "POST", f"{api}/tournaments", token, {
        "name": "Browser Open", "game": "Agricola", "ruleset": "agricola_norway",
        "planned_rounds": 3, "starts_on": "2026-06-12", "time_zone": "Europe/Oslo",
        "rating_pool_id": pool})
    tid = t["id"]
    call(base, "PATCH", f"{api}/tournaments/{tid}", token, {"status": "registration_open"},
         {"if-match": '"1"'})
    names = ["Åse Ødegård", "Łukasz Żak", "Kari <b>Nordmann</b>", "Ola & Co"]
    for name in names:
        p = call(base, "POST", f"{api}/players", token, {"name": name})
        call(base, "POST", f"{api}/tournaments/{tid}/registrations", token, {"player_id": p["id"]})
    call(base, "POST", f"{api}/tournaments/{tid}/rounds", token, {"method": "random"})
    r = call(base, "POST", f"{api}/tournaments/{tid}/rounds/1/publish", token, {})
    table = r["draw"]["tables"][0]
    seats = [{"player_id": p, "score": 50 - 7 * i} for i, p in enumerate(table["seats"])]
    call(base, "PUT", f"{api}/tournaments/{tid}/rounds/1/tables/{table['number']}/result",
         token, {"seats": seats})
    standings = call(base, "GET", f"{api}/tournaments/{tid}/standings", token)

    pages = {
        "standings": f"{base}/embed/tournaments/{tid}/standings?lang=nb",
        "round": f"{base}/embed/tournaments/{tid}/rounds/1?theme=dark",
        "leaderboard": f"{base}/embed/rating-pools/{pool}/leaderboard?lang=pl",
    }
    for name, url in pages.items():
        shot = os.path.join(out, f"{name}.png")
        chromium([f"--screenshot={shot}", "--window-size=1000,800", url])
        size = os.path.getsize(shot) if os.path.exists(shot) else 0
        print(f"{name}: {shot} ({size} bytes)")
        if size < 2000:
            sys.exit(f"no screenshot of {url}")

    dom = chromium(["--dump-dom", pages["standings"]])
    parser = Rows()
    parser.feed(dom)
    shown = [(int(r[0]), r[1]) for r in parser.rows]
    expected = [(r["place"], r["player_name"]) for r in standings["rows"]]
    print("rendered rows:", shown)
    if shown != expected:
        sys.exit(f"the rendered standings differ from the JSON: {shown} != {expected}")
    if 'lang="nb"' not in dom or "Resultatliste" not in dom:
        sys.exit("the Norwegian labels are missing")
    print("the standings rendered by chromium match the JSON standings")
    live_correction(base, token, tid, table["number"], seats)


if __name__ == "__main__":
    main()
