#!/usr/bin/env python3
"""What a write costs as an event grows (issue 16): seeds a 1,000-player Ashes league event
over HTTP on a running service (swiss_2p rounds, rated in a pool) and times, round by round,
POST round (the draw), every PUT result (the first entry of each table; the last one completes
the round and feeds the ratings) and a correction of a table of the completed round.
One keep-alive connection, requests one at a time, so each figure is the service's own latency
plus one local round trip. Prints one line per round; the figures go to docs/performance.md
next to the seating engine's criterion figure (`cargo bench --bench seating -- swiss2p`).

Usage: scripts/write_costs.py BASE_URL ADMIN_USER ADMIN_PASSWORD [PLAYERS] [ROUNDS]
"""

import http.client
import json
import statistics
import sys
import time
import urllib.parse


class Client:
    def __init__(self, base):
        url = urllib.parse.urlparse(base)
        self.conn = http.client.HTTPConnection(url.hostname, url.port)
        self.token = None

    def call(self, method, path, body=None, headers=None):
        """Status, body and the time the request took in ms."""
        h = {"content-type": "application/json"}
        if self.token:
            h["authorization"] = "Bearer " + self.token
        h.update(headers or {})
        data = None if body is None else json.dumps(body)
        start = time.perf_counter()
        self.conn.request(method, "/api/v1" + path, body=data, headers=h)
        r = self.conn.getresponse()
        raw = r.read()
        took = (time.perf_counter() - start) * 1000
        if r.status >= 400:
            raise SystemExit(f"{method} {path}: {r.status} {raw[:300]!r}")
        return json.loads(raw) if raw else None, took


def main():
    base, user, password = sys.argv[1:4]
    players = int(sys.argv[4]) if len(sys.argv) > 4 else 1000
    rounds = int(sys.argv[5]) if len(sys.argv) > 5 else 7
    c = Client(base)
    c.token = c.call("POST", "/auth/token", {"username": user, "password": password})[0][
        "access_token"]
    pool = c.call("POST", "/rating-pools",
                  {"name": f"Write costs {time.time():.0f}", "time_zone": "Europe/Oslo"})[0]["id"]
    t = c.call("POST", "/tournaments", {
        "name": "Write costs", "game": "Ashes", "ruleset": "ashes_league",
        "planned_rounds": rounds, "starts_on": "2026-06-12", "time_zone": "Europe/Oslo",
        "rating_pool_id": pool})[0]
    tid = t["id"]
    c.call("PATCH", f"/tournaments/{tid}", {"status": "registration_open"},
           {"if-match": '"1"'})
    started = time.time()
    for i in range(players):
        pid = c.call("POST", "/players", {"name": f"Ashes player {i:04d}"})[0]["id"]
        c.call("POST", f"/tournaments/{tid}/registrations", {"player_id": pid})
    print(f"{players} players registered in {time.time() - started:.0f} s")
    print("round | POST round ms | publish ms | PUT result median ms (p90) | completing PUT ms "
          "| correction ms")
    for n in range(1, rounds + 1):
        r, post = c.call("POST", f"/tournaments/{tid}/rounds", {"method": "swiss_2p"})
        _, publish = c.call("POST", f"/tournaments/{tid}/rounds/{n}/publish", {})
        tables = r["draw"]["tables"]
        took = []
        for table in tables:
            a, b = table["seats"]
            a_wins = (a * 7 + b * 3 + n) % 2 == 0
            seats = [
                {"player_id": a, "score": 10 if a_wins else 4,
                 "outcome": "win" if a_wins else "loss"},
                {"player_id": b, "score": 4 if a_wins else 10,
                 "outcome": "loss" if a_wins else "win"}]
            _, ms = c.call("PUT", f"/tournaments/{tid}/rounds/{n}/tables/{table['number']}/result",
                           {"seats": seats})
            took.append(ms)
        first = tables[0]
        a, b = first["seats"]
        _, corr = c.call(
            "PUT", f"/tournaments/{tid}/rounds/{n}/tables/{first['number']}/result",
            {"seats": [{"player_id": a, "score": 7, "outcome": "draw"},
                       {"player_id": b, "score": 7, "outcome": "draw"}],
             "reason": "write costs"}, {"if-match": '"1"'})
        entries = sorted(took[:-1])
        p90 = entries[int(len(entries) * 0.9)]
        print(f"{n} | {post:.1f} | {publish:.1f} | {statistics.median(entries):.2f} ({p90:.2f}) "
              f"| {took[-1]:.1f} | {corr:.1f}", flush=True)


if __name__ == "__main__":
    main()
