#!/usr/bin/env python3
"""Public reads under load (issue 16): seeds an Agricola event over HTTP on a running
service (rated in a pool whose list is topped up to 2,000 players by an imported list), then
runs wrk against /healthz (the reference), the kept anonymous reads (standings, a 304 of them,
the tournament, a round's draw, a leaderboard page) and, for each, a static body of the same size
served by the same server (`/bench/static`, start the service with TOURNEY_BENCH_ROUTES=1).
Finally a result correction's latency, idle and during a 64-connection standings load.
Prints one line per run; the figures go to docs/performance.md.

Usage: scripts/standings_load.py BASE_URL ADMIN_USER ADMIN_PASSWORD [PLAYERS] [ROUNDS]
(wrk from Debian's package must be on PATH.)
"""

import json
import re
import statistics
import subprocess
import sys
import time
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
    """The event's id, its pool's id, and the first table of its last round."""
    api = base + "/api/v1"
    _, _, pool = call("POST", api + "/rating-pools",
                      {"name": f"Load pool {time.time():.0f}", "time_zone": "Europe/Oslo"}, token)
    pool = json.loads(pool)["id"]
    _, _, t = call("POST", api + "/tournaments", {
        "name": "Load event", "game": "Agricola", "ruleset": "agricola_norway",
        "planned_rounds": rounds, "starts_on": "2026-06-12", "time_zone": "Europe/Oslo",
        "rating_pool_id": pool}, token)
    tid = json.loads(t)["id"]
    call("PATCH", f"{api}/tournaments/{tid}", {"status": "registration_open"}, token,
         {"if-match": '"1"'})
    listed = []
    for i in range(max(players, 2000)):
        _, _, p = call("POST", api + "/players", {"name": f"Player {i:04d}"}, token)
        pid = json.loads(p)["id"]
        listed.append(pid)
        if i < players:
            call("POST", f"{api}/tournaments/{tid}/registrations", {"player_id": pid}, token)
    rows = "".join(f"{pid},{1400 + (pid * 37) % 400},{10 + pid % 30}\n" for pid in listed)
    call("POST", f"{api}/rating-pools/{pool}/imports", {
        "applies_from": "2026-01-01", "source": "load test",
        "csv": "player_id,rating,games\n" + rows}, token)
    last = None
    for n in range(1, rounds + 1):
        _, _, r = call("POST", f"{api}/tournaments/{tid}/rounds", {"method": "random"}, token)
        call("POST", f"{api}/tournaments/{tid}/rounds/{n}/publish", {}, token)
        for table in json.loads(r)["draw"]["tables"]:
            seats = [{"player_id": p, "score": 20 + (p * 7 + n * 13) % 40} for p in table["seats"]]
            call("PUT", f"{api}/tournaments/{tid}/rounds/{n}/tables/{table['number']}/result",
                 {"seats": seats}, token)
        last = (n, json.loads(r)["draw"]["tables"][0])
    return tid, pool, last


def correction_latency(base, token, tid, last, count, version):
    """Median and p99 (ms) of `count` result corrections of one table, and the next version."""
    n, table = last
    url = f"{base}/api/v1/tournaments/{tid}/rounds/{n}/tables/{table['number']}/result"
    took = []
    for i in range(count):
        seats = [{"player_id": p, "score": 20 + (p + i + k) % 40}
                 for k, p in enumerate(table["seats"])]
        start = time.perf_counter()
        call("PUT", url, {"seats": seats, "reason": "load test"}, token,
             {"if-match": f'"{version}"'})
        took.append((time.perf_counter() - start) * 1000)
        version += 1
    took.sort()
    return statistics.median(took), took[int(len(took) * 0.99) - 1], version


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
    players = int(sys.argv[4]) if len(sys.argv) > 4 else 1000
    rounds = int(sys.argv[5]) if len(sys.argv) > 5 else 5
    _, _, t = call("POST", base + "/api/v1/auth/token", {"username": user, "password": password})
    token = json.loads(t)["access_token"]
    started = time.time()
    tid, pool, last = seed(base, token, players, rounds)
    print(f"seeded in {time.time() - started:.0f} s")
    api = base + "/api/v1"
    reads = [
        ("standings", f"{api}/tournaments/{tid}/standings"),
        ("tournament", f"{api}/tournaments/{tid}"),
        ("round draw", f"{api}/tournaments/{tid}/rounds/{rounds}"),
        ("leaderboard page", f"{api}/rating-pools/{pool}/leaderboard?limit=50"),
    ]
    runs = [("/healthz", base + "/healthz", None)]
    for name, url in reads:
        _, headers, body = call("GET", url)
        print(f"{name}: {len(body)} bytes")
        runs.append((f"{name} (kept)", url, None))
        runs.append((f"static body of {len(body)} bytes", f"{base}/bench/static?bytes={len(body)}",
                     None))
        if name == "standings":
            etag = headers.get("ETag") or headers.get("etag")
            runs.append(("standings 304 (If-None-Match)", url, f"If-None-Match: {etag}"))
    reference = None
    for name, url, header in runs:
        rps, p99, errors = wrk(url, header)
        reference = reference or rps
        print(f"{name}: {rps:.0f} req/s, p99 {p99}, non-2xx/3xx {errors}, "
              f"ratio to /healthz 1/{reference / rps:.1f}")

    # A referee's correction, idle and during a standings rush (64 connections).
    version = 1
    idle_med, idle_p99, version = correction_latency(base, token, tid, last, 100, version)
    print(f"correction idle: median {idle_med:.1f} ms, p99 {idle_p99:.1f} ms")
    rush = subprocess.Popen(["wrk", "-t2", "-c64", "-d20s", reads[0][1]],
                            stdout=subprocess.DEVNULL)
    time.sleep(2)
    load_med, load_p99, version = correction_latency(base, token, tid, last, 100, version)
    rush.wait()
    print(f"correction during the standings load: median {load_med:.1f} ms, "
          f"p99 {load_p99:.1f} ms ({load_p99 / idle_p99:.2f}x idle p99)")


if __name__ == "__main__":
    main()
