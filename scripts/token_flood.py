#!/usr/bin/env python3
"""Issue 43's flood: one address sends `GET /api/v1/players/1` with wrk, a different made-up
bearer token on every request (scripts/token_flood.lua), while this script times reads of
`/api/v1/tournaments?limit=5` from another loopback address (127.0.0.2, one keep-alive
connection, one read at a time). The same reads are timed idle and under the control flood
(one fixed made-up token: the cores as busy, one counter). Prints the median and p90 of each
run, their ratios to the control, and wrk's rate of answers (every one 401 or 429).

Usage: scripts/token_flood.py BASE_URL [SECONDS] [CONNECTIONS] [SERVICE_PID]
Defaults: 30 s per flood, 64 connections. The service should run with its default rate limits
(the flood is meant to be refused) and listen on 127.0.0.1 (or 0.0.0.0). The reads start after
a third of each flood, so that the old limiter's map is past its 100,000 counters. With
SERVICE_PID, the service's resident memory is printed after each run.
(wrk from Debian's package must be on PATH: `apt-get install -y wrk`.)
"""

import http.client
import os
import re
import statistics
import subprocess
import sys
import threading
import time
import urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))


def rss(pid):
    if not pid:
        return ""
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS"):
                return line.split(":")[1].strip()
    return ""


def time_reads(base, start_after, seconds, source="127.0.0.2"):
    """Reads the list one at a time from `source` for `seconds` after `start_after`; returns
    the latencies in milliseconds."""
    u = urllib.parse.urlparse(base)
    time.sleep(start_after)
    conn = http.client.HTTPConnection(u.hostname, u.port, source_address=(source, 0), timeout=10)
    times = []
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        t = time.perf_counter()
        conn.request("GET", "/api/v1/tournaments?limit=5")
        r = conn.getresponse()
        r.read()
        times.append((time.perf_counter() - t) * 1000)
        if r.status != 200:
            raise SystemExit(f"the read from {source} answered {r.status}")
        time.sleep(0.02)
    conn.close()
    return times


def flood(base, seconds, connections, fixed):
    env = dict(os.environ)
    if fixed:
        env["FIXED"] = fixed
    else:
        env.pop("FIXED", None)
    out = subprocess.run(["wrk", "-t2", f"-c{connections}", f"-d{seconds}s",
                          "-s", os.path.join(HERE, "token_flood.lua"), base],
                         capture_output=True, text=True, env=env, check=True).stdout
    rate = re.search(r"Requests/sec:\s+([\d.]+)", out)
    return float(rate.group(1)) if rate else 0.0


def run(name, base, seconds, connections, fixed, pid, flooding=True):
    result = {}
    if flooding:
        t = threading.Thread(target=lambda: result.update(
            rate=flood(base, seconds, connections, fixed)))
        t.start()
        times = time_reads(base, seconds / 3, seconds * 2 / 3 - 1)
        t.join()
    else:
        times = time_reads(base, 0, seconds * 2 / 3 - 1)
    times.sort()
    median = statistics.median(times)
    p90 = times[int(len(times) * 0.9)]
    print(f"{name:<22} reads {len(times):>5}  median {median:7.2f} ms  p90 {p90:7.2f} ms  "
          f"flood {result.get('rate', 0):>9,.0f} answers/s  rss {rss(pid)}", flush=True)
    return median, p90


def main():
    if len(sys.argv) < 2:
        raise SystemExit(__doc__)
    base = sys.argv[1].rstrip("/")
    seconds = int(sys.argv[2]) if len(sys.argv) > 2 else 30
    connections = int(sys.argv[3]) if len(sys.argv) > 3 else 64
    pid = sys.argv[4] if len(sys.argv) > 4 else None
    idle = run("idle", base, seconds, connections, None, pid, flooding=False)
    control = run("one fixed token", base, seconds, connections, "the-one-made-up-token", pid)
    # Let the control's windows end, so the random flood starts from the same state.
    time.sleep(61)
    attack = run("a new token each", base, seconds, connections, None, pid)
    print(f"median: random-token flood / one-token flood = {attack[0] / control[0]:.2f}x, "
          f"one-token flood / idle = {control[0] / idle[0]:.2f}x; "
          f"p90: {attack[1] / control[1]:.2f}x, {control[1] / idle[1]:.2f}x")


if __name__ == "__main__":
    main()
