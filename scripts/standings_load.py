#!/usr/bin/env python3
"""Standings reads under load (issue 16): seeds an Agricola event over HTTP on a running
service, then runs wrk against /healthz (the reference), the standings (kept body), a 304
revalidation of them, and /openapi.json (a static body the same server keeps in memory).
Prints one line per run; the figures go to docs/performance.md.

Usage: scripts/standings_load.py BASE_URL ADMIN_USER ADMIN_PASSWORD [PLAYERS] [ROUNDS]
(wrk from Debian's package must be on PATH.)
"""

import json
import re
import subprocess
import sys
import urllib.request


def call(method, url, body=None, token=None, headers=None):
    req = urllib.request.Request(url, data=None if body is None else json.dumps(body).encode(),
                                 method=method)
    req.add_header("content-type", "application/json")
    if token:
        req.add_header("authorization", "Bearer " + token)
    for k, v in (headers or {}).items():
        req.add_header(k, v)
    with urllib.request.urlopen(req) as r:
        return r.status, dict(r.headers), r.read()


def seed(base, token, players, rounds):
    api = base + "/api/v1"
    _, _, t = call("POST", api + "/tournaments", {
        "name": "Load event", "game": "Agricola", "ruleset": "agricola_norway",
        "planned_rounds": rounds, "starts_on": "2026-06-12", "time_zone": "Europe/Oslo"}, token)
    tid = json.loads(t)["id"]
    call("PATCH", f"{api}/tournaments/{tid}", {"status": "registration_open"}, token,
         {"if-match": '"1"'})
    for i in range(players):
        _, _, p = call("POST", api + "/players", {"name": f"Player {i:04d}"}, token)
        call("POST", f"{api}/tournaments/{tid}/registrations",
             {"player_id": json.loads(p)["id"]}, token)
    for n in range(1, rounds + 1):
        _, _, r = call("POST", f"{api}/tournaments/{tid}/rounds", {"method": "random"}, token)
        call("POST", f"{api}/tournaments/{tid}/rounds/{n}/publish", {}, token)
        for table in json.loads(r)["draw"]["tables"]:
            seats = [{"player_id": p, "score": 20 + (p * 7 + n * 13) % 40} for p in table["seats"]]
            call("PUT", f"{api}/tournaments/{tid}/rounds/{n}/tables/{table['number']}/result",
                 {"seats": seats}, token)
    return tid


def wrk(url, header=None):
    cmd = ["wrk", "-t2", "-c64", "-d15s", "--latency", url]
    if header:
        cmd[1:1] = ["-H", header]
    out = subprocess.run(cmd, capture_output=True, text=True).stdout
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
    p99 = re.search(r"99%\s+([\d.]+\w+)", out).group(1)
    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    return rps, p99, int(errors.group(1)) if errors else 0


def main():
    base, user, password = sys.argv[1:4]
    players = int(sys.argv[4]) if len(sys.argv) > 4 else 200
    rounds = int(sys.argv[5]) if len(sys.argv) > 5 else 5
    _, _, t = call("POST", base + "/api/v1/auth/token", {"username": user, "password": password})
    token = json.loads(t)["access_token"]
    tid = seed(base, token, players, rounds)
    standings = f"{base}/api/v1/tournaments/{tid}/standings"
    _, headers, body = call("GET", standings)
    etag = headers.get("ETag") or headers.get("etag")
    _, _, doc = call("GET", base + "/openapi.json")
    print(f"event: {players} players, {rounds} rounds; standings body {len(body)} bytes, "
          f"openapi.json {len(doc)} bytes")
    runs = [
        ("/healthz", base + "/healthz", None),
        ("/openapi.json (static body)", base + "/openapi.json", None),
        ("standings (kept body)", standings, None),
        ("standings 304 (If-None-Match)", standings, f"If-None-Match: {etag}"),
    ]
    reference = None
    for name, url, header in runs:
        rps, p99, errors = wrk(url, header)
        reference = reference or rps
        print(f"{name}: {rps:.0f} req/s, p99 {p99}, non-2xx/3xx {errors}, "
              f"ratio to /healthz 1/{reference / rps:.1f}")


if __name__ == "__main__":
    main()
