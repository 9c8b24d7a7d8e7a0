#!/usr/bin/env python3
"""Fault runs against the release build on its embedded PostgreSQL (issue 15).

Writers create players (each POST with its own Idempotency-Key) and keep a ledger of every
write the service acknowledged (201). Meanwhile:

1. outage: the embedded PostgreSQL is stopped for OUTAGE_SECONDS and started again; the run
   measures how long the first 503 took, how long /readyz answers take during the outage, what
   statuses the writers saw, and how long until writes succeed again;
2. kill: the service is SIGKILLed mid-write (its watchdog stops the cluster) and started again.

At the end every acknowledged write must be in the database: the ledger is compared with the
player list. Prints a JSON summary (for docs/reliability.md). Standard library only.

Usage: scripts/faults.sh (builds the release binary first), or
       python3 scripts/faults.py path/to/tourney
"""

import collections
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
import uuid

WRITERS = 8
OUTAGE_SECONDS = 5.0
PASSWORD = "faults-admin-password-" + uuid.uuid4().hex[:8]


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def call(method, url, body=None, token=None, timeout=10.0, headers=None):
    """(status, body as text, seconds); status 0 when no HTTP answer came."""
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, method=method)
    req.add_header("content-type", "application/json")
    if token:
        req.add_header("authorization", "Bearer " + token)
    for k, v in (headers or {}).items():
        req.add_header(k, v)
    started = time.monotonic()
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return r.status, r.read().decode(), time.monotonic() - started
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode(), time.monotonic() - started
    except Exception:  # refused, reset, timed out
        return 0, "", time.monotonic() - started


class Service:
    def __init__(self, binary, data, port):
        self.binary, self.data, self.port = binary, data, port
        self.base = f"http://127.0.0.1:{port}"
        self.env = dict(os.environ, TOURNEY_DATA_DIR=data, BIND_ADDR=f"127.0.0.1:{port}",
                        TOURNEY_ADMIN_PASSWORD=PASSWORD, LOG_FORMAT="text")
        self.env.pop("DATABASE_URL", None)
        self.env.pop("JWT_SECRET", None)
        self.proc = None

    def start(self):
        log = open(os.path.join(self.data, "service.log"), "a")
        self.proc = subprocess.Popen([self.binary], env=self.env, stdout=log, stderr=log)
        started = time.monotonic()
        while time.monotonic() - started < 60:
            if call("GET", self.base + "/readyz", timeout=2)[0] == 200:
                return time.monotonic() - started
            time.sleep(0.1)
        raise SystemExit("the service did not become ready")

    def kill(self):
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            self.proc.wait(timeout=30)


def pg_ctl(data, *args):
    bin_dir = next(
        (os.path.join(d, v, "bin") for d in ["/usr/lib/postgresql"]
         for v in sorted(os.listdir(d), reverse=True)),
        None,
    )
    cmd = [os.path.join(bin_dir, "pg_ctl"), "-D", os.path.join(data, "postgres"), *args]
    if os.geteuid() == 0:
        cmd = ["runuser", "-u", "postgres", "--", *cmd]
    return subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode


class Writers:
    """WRITERS threads creating players; a ledger of acknowledged names and every answer."""

    def __init__(self, service, token):
        self.service, self.token = service, token
        self.acked = []
        self.events = []  # (monotonic time, status, seconds)
        self.lock = threading.Lock()
        self.running = True
        self.threads = [threading.Thread(target=self.run, args=(i,)) for i in range(WRITERS)]

    def run(self, i):
        n = 0
        while self.running:
            n += 1
            name = f"ledger-{i}-{n}-{uuid.uuid4().hex[:6]}"
            status, _, took = call(
                "POST", self.service.base + "/api/v1/players", {"name": name}, self.token,
                timeout=15, headers={"idempotency-key": uuid.uuid4().hex},
            )
            with self.lock:
                self.events.append((time.monotonic(), status, took))
                if status == 201:
                    self.acked.append(name)
            if status != 201:
                time.sleep(0.05)

    def __enter__(self):
        for t in self.threads:
            t.start()
        return self

    def __exit__(self, *exc):
        self.running = False
        for t in self.threads:
            t.join()

    def since(self, t0):
        with self.lock:
            return [e for e in self.events if e[0] >= t0]


def token_for(base):
    status, body, _ = call("POST", base + "/api/v1/auth/token",
                           {"username": "faults", "password": PASSWORD})
    assert status == 200, body
    return json.loads(body)["access_token"]


def outage(service, token):
    with Writers(service, token) as w:
        time.sleep(2)
        before = len(w.acked)
        socket_dir = open(os.path.join(service.data, "postgres", "postmaster.pid")).read().split("\n")[4]
        t_stop = time.monotonic()
        pg_ctl(service.data, "-m", "fast", "-w", "stop")
        stopped_after = time.monotonic() - t_stop
        ready = []
        while time.monotonic() - t_stop < OUTAGE_SECONDS:
            status, _, took = call("GET", service.base + "/readyz", timeout=5)
            ready.append((status, took))
            time.sleep(0.25)
        t_start = time.monotonic()
        pg_ctl(service.data, "-w", "-o", f"-c listen_addresses='' -k {socket_dir} -p 5432", "start")
        started_after = time.monotonic() - t_start
        recovered = None
        while time.monotonic() - t_start < 60:
            ok = [e for e in w.since(t_start) if e[1] == 201]
            if ok:
                recovered = ok[0][0] - t_start
                break
            time.sleep(0.05)
        time.sleep(1)
        during = w.since(t_stop)
    statuses = collections.Counter(
        e[1] for e in during if e[0] < t_start + (recovered or 0))
    first_503 = next((e[0] - t_stop for e in during if e[1] == 503), None)
    answers_503 = [e[2] for e in during if e[1] == 503]
    return {
        "writes_acknowledged_before": before,
        "pg_stop_took_s": round(stopped_after, 2),
        "first_503_after_stop_s": None if first_503 is None else round(first_503, 2),
        "writer_statuses_during_outage": dict(statuses),
        "slowest_503_s": round(max(answers_503), 3) if answers_503 else None,
        "median_503_s": round(sorted(answers_503)[len(answers_503) // 2], 3) if answers_503 else None,
        "readyz_during_outage": {
            "statuses": dict(collections.Counter(s for s, _ in ready)),
            "slowest_s": round(max(t for _, t in ready), 3),
        },
        "pg_start_took_s": round(started_after, 2),
        "first_201_after_pg_start_s": None if recovered is None else round(recovered, 2),
        "acknowledged_total": len(w.acked),
    }, w.acked


def kill_mid_write(service, token):
    with Writers(service, token) as w:
        time.sleep(2)
        t_kill = time.monotonic()
        service.kill()
        killed_at = len(w.acked)
        time.sleep(1)
        restart = service.start()
        new_token = token_for(service.base)
        w.token = new_token
        time.sleep(2)
        after = w.since(t_kill)
    return {
        "acknowledged_before_kill": killed_at,
        "restart_to_ready_s": round(restart, 2),
        "writer_statuses_after_kill": dict(collections.Counter(e[1] for e in after)),
        "acknowledged_total": len(w.acked),
    }, w.acked, new_token


def present(service, token):
    names, offset = set(), 0
    while True:
        status, body, _ = call("GET", f"{service.base}/api/v1/players?limit=200&offset={offset}", token=token)
        assert status == 200, body
        page = json.loads(body)
        names.update(p["name"] for p in page["items"])
        offset += len(page["items"])
        if offset >= page["total"] or not page["items"]:
            return names


def main():
    binary = sys.argv[1] if len(sys.argv) > 1 else "target/release/tourney"
    work = tempfile.mkdtemp(prefix="tourney-faults-")
    os.chmod(work, 0o755)
    data = os.path.join(work, "data")
    os.makedirs(data)
    os.chmod(data, 0o755)
    service = Service(binary, data, free_port())
    try:
        subprocess.run([binary, "create-admin", "--username", "faults"], env=service.env,
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        service.start()
        token = token_for(service.base)
        # A reference measured in the same run: a plain write's latency with the database up.
        ref = sorted(call("POST", service.base + "/api/v1/players", {"name": f"ref-{i}"}, token)[2]
                     for i in range(50))
        out, acked1 = outage(service, token)
        kill, acked2, token = kill_mid_write(service, token)
        stored = present(service, token)
        acked = acked1 + acked2
        lost = [n for n in acked if n not in stored]
        summary = {
            "writers": WRITERS,
            "outage_seconds": OUTAGE_SECONDS,
            "reference_write_median_s": round(ref[len(ref) // 2], 4),
            "outage": out,
            "kill": kill,
            "acknowledged_writes": len(acked),
            "lost_writes": len(lost),
            "lost_examples": lost[:5],
        }
        print(json.dumps(summary, indent=2))
        return 1 if lost else 0
    finally:
        service.stop()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
