#!/usr/bin/env python3
"""The embeddable pages in a real browser (issue 17): plays a small rated event over HTTP,
renders the standings, the round's seating and the pool's leaderboard in headless chromium
(screenshots into OUTDIR), and checks the standings DOM as chromium built it (rows, places,
names) against the JSON standings. Standard library only.

Usage: embed_browser.py BASE_URL ADMIN_TOKEN OUTDIR
"""

import html.parser
import json
import os
import shutil
import subprocess
import sys
import time
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


if __name__ == "__main__":
    main()
