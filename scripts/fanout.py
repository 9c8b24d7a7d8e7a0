#!/usr/bin/env python3
"""The live feed and kept reads across instances (issue 16).

Seeds a small event over HTTP on a running service (4 players, one Ashes round with its
results), then:
1. opens SUBSCRIBERS live-feed streams (GET /tournaments/{id}/events) on the instance named by
   --other (or the first one), one after the other, each once it has its first chunk;
2. with --psql, counts the database's transactions over 10 idle seconds before and after the
   streams are open (pg_stat_database; the jobs of each instance poll a few times a second);
3. corrects a result through the first instance WRITES times, 2 s apart, and reports how long
   each event took to reach every stream: from the moment the write was sent (an upper bound of
   the time after its commit) and from its answer (a lower bound);
4. with --other, renames the tournament through the first instance 50 times and polls the
   other instance's anonymous tournament read (a kept body) until it shows the new name.

The streams are read by one epoll loop in one Python process (a batch of ready sockets shares
one clock reading), so the client's own time to read 10,000 sockets counts against the
service: the figures are upper bounds.

Usage: scripts/fanout.py BASE_URL ADMIN_USER ADMIN_PASSWORD [--subscribers N] [--writes N]
       [--other BASE_URL] [--psql "psql -h SOCKET_DIR -U tourney -d tourney"]
"""

import argparse
import resource
import selectors
import shlex
import socket
import subprocess
import threading
import time
import urllib.parse

from write_costs import Client


def setup(c):
    t = c.call("POST", "/tournaments", {
        "name": "Fan-out", "game": "Ashes", "ruleset": "ashes_league", "planned_rounds": 3,
        "starts_on": "2026-06-12", "time_zone": "Europe/Oslo"})[0]
    tid = t["id"]
    c.call("PATCH", f"/tournaments/{tid}", {"status": "registration_open"}, {"if-match": '"1"'})
    for i in range(4):
        pid = c.call("POST", "/players", {"name": f"Fan-out player {i}"})[0]["id"]
        c.call("POST", f"/tournaments/{tid}/registrations", {"player_id": pid})
    r = c.call("POST", f"/tournaments/{tid}/rounds", {"method": "swiss_2p"})[0]
    c.call("POST", f"/tournaments/{tid}/rounds/1/publish", {})
    for table in r["draw"]["tables"]:
        a, b = table["seats"]
        c.call("PUT", f"/tournaments/{tid}/rounds/1/tables/{table['number']}/result",
               {"seats": [{"player_id": a, "score": 10, "outcome": "win"},
                          {"player_id": b, "score": 4, "outcome": "loss"}]})
    return tid, r["draw"]["tables"][0]


def transactions(psql):
    out = subprocess.run(shlex.split(psql) + ["-Atc", (
        "SELECT sum(xact_commit + xact_rollback) FROM pg_stat_database "
        "WHERE datname = current_database()")], capture_output=True, text=True, check=True)
    return int(out.stdout.strip())


def rate(psql, seconds=10):
    # PostgreSQL 15 counts an idle session's transactions up to 10 s late (its statistics are
    # flushed when it has been idle that long): what came before the window must settle first.
    time.sleep(12)
    before = transactions(psql)
    time.sleep(seconds)
    return (transactions(psql) - before) / seconds


def open_stream(host, port, path):
    """A subscriber's socket, once the service has sent the stream's first chunk."""
    sock = socket.create_connection((host, port))
    sock.sendall(f"GET {path} HTTP/1.1\r\nHost: {host}\r\nAccept: text/event-stream\r\n\r\n"
                 .encode())
    head = b""
    while b": keep-alive" not in head:
        chunk = sock.recv(4096)
        if not chunk:
            raise SystemExit(f"stream closed: {head!r}")
        head += chunk
    if b" 200 " not in head.split(b"\r\n", 1)[0]:
        raise SystemExit(f"stream answered {head[:200]!r}")
    sock.setblocking(False)
    return sock


class Receiver(threading.Thread):
    """Reads every stream through one epoll loop and notes when each event frame arrived
    (an epoll batch shares one clock reading, taken when the batch is returned)."""

    def __init__(self, socks):
        super().__init__(daemon=True)
        self.sel = selectors.DefaultSelector()
        self.arrivals = [[] for _ in socks]
        self.tails = [b"" for _ in socks]
        for i, sock in enumerate(socks):
            self.sel.register(sock, selectors.EVENT_READ, i)

    def run(self):
        while True:
            ready = self.sel.select(1.0)
            at = time.perf_counter()
            for key, _ in ready:
                i = key.data
                data = self.tails[i] + key.fileobj.recv(65536)
                # A frame's "\nid: " may be split between two reads: keep 4 bytes.
                self.arrivals[i].extend([at] * data.count(b"\nid: "))
                self.tails[i] = data[-4:]


def percentiles(xs):
    xs = sorted(xs)
    pick = lambda q: xs[min(len(xs) - 1, int(len(xs) * q))]
    return f"p50 {pick(0.5) * 1000:.1f} ms, p99 {pick(0.99) * 1000:.1f} ms, max {xs[-1] * 1000:.1f} ms"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("base")
    ap.add_argument("user")
    ap.add_argument("password")
    ap.add_argument("--subscribers", type=int, default=10000)
    ap.add_argument("--writes", type=int, default=10)
    ap.add_argument("--other")
    ap.add_argument("--psql")
    args = ap.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))

    c = Client(args.base)
    c.token = c.call("POST", "/auth/token", {"username": args.user,
                                             "password": args.password})[0]["access_token"]
    tid, table = setup(c)
    if args.psql:
        print(f"database transactions/s, no stream open: {rate(args.psql):.1f}")

    feed = urllib.parse.urlparse(args.other or args.base)
    path = f"/api/v1/tournaments/{tid}/events"
    started = time.perf_counter()
    socks = [open_stream(feed.hostname, feed.port, path) for _ in range(args.subscribers)]
    print(f"{len(socks)} streams open on {feed.netloc} in {time.perf_counter() - started:.1f} s")
    receiver = Receiver(socks)
    receiver.start()
    if args.psql:
        print(f"database transactions/s, {len(socks)} idle streams: {rate(args.psql):.1f}")

    c.conn.close()  # idle longer than the service's keep-alive: connect again
    a, b = table["seats"]
    url = f"/tournaments/{tid}/rounds/1/tables/{table['number']}/result"
    from_send, from_answer, within = [], [], 0
    for k in range(args.writes):
        seen = [len(x) for x in receiver.arrivals]
        winner, loser = (a, b) if k % 2 else (b, a)
        sent = time.perf_counter()
        c.call("PUT", url, {"seats": [{"player_id": winner, "score": 10, "outcome": "win"},
                                      {"player_id": loser, "score": 4, "outcome": "loss"}],
                            "reason": "fan-out"}, {"if-match": f'"{k + 1}"'})
        answered = time.perf_counter()
        time.sleep(2)
        for arrivals, n in zip(receiver.arrivals, seen):
            if len(arrivals) > n:
                at = arrivals[n]
                from_send.append(at - sent)
                from_answer.append(at - answered)
                within += at - sent <= 1.0
    total = args.writes * len(socks)
    print(f"{args.writes} writes x {len(socks)} streams: {len(from_send)} of {total} arrived; "
          f"{100 * within / total:.2f}% within 1 s of the write being sent")
    if from_send:
        print(f"  after the write was sent: {percentiles(from_send)}")
        print(f"  after its answer:         {percentiles(from_answer)}")

    if args.other:
        other = Client(args.other)
        c.conn.close()
        version = c.call("GET", f"/tournaments/{tid}")[0]["version"]
        lags_send, lags_answer = [], []
        for k in range(50):
            name = f"Fan-out {k}"
            sent = time.perf_counter()
            version = c.call("PATCH", f"/tournaments/{tid}", {"name": name},
                             {"if-match": f'"{version}"'})[0]["version"]
            answered = time.perf_counter()
            while other.call("GET", f"/tournaments/{tid}")[0]["name"] != name:
                pass
            seen = time.perf_counter()
            lags_send.append(seen - sent)
            lags_answer.append(seen - answered)
            time.sleep(0.1)
        print(f"a rename through {args.base} read anonymously on {args.other}, 50 times:")
        print(f"  after the write was sent: {percentiles(lags_send)}")
        print(f"  after its answer:         {percentiles(lags_answer)}")


if __name__ == "__main__":
    main()
