#!/usr/bin/env python3
"""The registry at platform scale (issue 31, item 5): bulk-loads players and tournaments into
the service's database with SQL (generate_series and COPY, not the API: a million POSTs would
take hours), then runs wrk against each list, search, late page and profile read, and against
/healthz in the same run as the reference. Prints one line per read with its ratio to /healthz,
and the service's resident memory (VmRSS of SERVICE_PID) before and after the reads.

Two kinds of runs: "repeated" reads one URL over and over (what a popular page, a home page's
list or a shared search link costs: after the first read each instance answers from its kept
body), and "distinct" reads a different URL on every request (thousands of profiles, typed
names, pages by cursor), so nearly every request is a miss that reaches PostgreSQL.

Usage: scripts/registry_load.py DATABASE_URL BASE_URL SERVICE_PID ADMIN_USER ADMIN_PASSWORD
       [PLAYERS] [TOURNAMENTS] [CONNECTIONS] [SECONDS]
NAMES=varied (environment) loads players with a realistic spread of names instead of 20 first
names x 20 surnames (issue 42): a first name of two and a surname of three syllables, each
drawn from 16 (some with marks), and a number; and adds a distinct run of names as people type
them (every keystroke from the third letter on, each read once), counted as a list page counts
and not counted (`count=false`) as a search box asks.
A distinct run reads each URL of its list once, the list split between wrk's two threads; a
run that answers more requests than its list holds says so in its line ("list ran out"), as
its later reads were of pages kept by then.
Each line also gives the service's CPU time a request (from /proc/SERVICE_PID/stat), which the
other tenants of a shared machine disturb less than requests/s.
Defaults: 1,000,000 players, 100,000 tournaments, 64 connections, 10 s per read; PLAYERS 0
reads a database an earlier run loaded.
(psql and wrk from Debian's packages must be on PATH: `apt-get install -y wrk`.)

Targets (issue 31): every p99 under 20 ms at 64 connections; lists and profiles at least 1/4
of /healthz, searches at least 1/10; the service's resident memory under 300 MB.
"""

import gc
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request

# Names with the letters players leave out when they type: search must find them folded.
FIRST = ["Øystein", "Åse", "Kari", "Ola", "Łukasz", "Zoë", "Jürgen", "Sørina", "Ærling", "Ingrid",
         "Piotr", "Małgorzata", "Björn", "Håkon", "Anne", "José", "Siri", "Tomasz", "Émile", "Nils"]
LAST = ["Ødegård", "Nordmann", "Żółć", "Stadheim", "Brødrene", "Müller", "Kowalski", "Hansen",
        "Ås", "Wiśniewska", "Berg", "Dąbrowski", "Lindqvist", "Strand", "Fjeld", "Østby", "Haugen",
        "Ñuñez", "Bakke", "Løvås"]
# Syllables of the varied names (NAMES=varied): 16^5 first name and surname pairs.
SYLLABLES = ["kar", "ø", "sten", "ma", "lu", "kasz", "ber", "gå", "ni", "sø", "ri", "ta", "je",
             "ló", "vik", "ha"]
CITIES = ["Ålesund", "Tromsø", "Łódź", "Kraków", "Bergen", "Göteborg", "Århus", "Gdańsk",
          "Trondheim", "Malmö"]


def psql(url, sql):
    out = subprocess.run(["psql", url, "-X", "-q", "-At", "-v", "ON_ERROR_STOP=1", "-c", sql],
                         capture_output=True, text=True, check=True)
    return out.stdout.strip()


def sql_array(values):
    return "ARRAY[" + ",".join("'" + v.replace("'", "''") + "'" for v in values) + "]"


def load(url, api, token, players, tournaments):
    """Adds `players` players and `tournaments` published tournaments (half of them in
    Norway, every tenth in a pool made through the API); returns (first player id, last
    player id, the pool)."""
    _, _, me = call(f"{api}/me", token=token)
    user = json.loads(me)["id"]
    _, _, pool = call(f"{api}/rating-pools", {"name": f"Registry load {time.time():.0f}",
                                              "preset": "agricola_norway",
                                              "time_zone": "Europe/Oslo"}, token)
    pool = json.loads(pool)["id"]
    started = time.time()
    name = (f"({sql_array(FIRST)})[1 + g % {len(FIRST)}] || ' ' || "
            f"({sql_array(LAST)})[1 + (g / {len(FIRST)}) % {len(LAST)}] || ' ' || g")
    if os.environ.get("NAMES") == "varied":
        syl = [f"({sql_array(SYLLABLES)})[1 + (hashint4(g * 5 + {k}) & 15)]" for k in range(5)]
        name = (f"initcap({syl[0]} || {syl[1]}) || ' ' || "
                f"initcap({syl[2]} || {syl[3]} || {syl[4]}) || ' ' || g")
    first, last = psql(url, f"""
        WITH ins AS (
          INSERT INTO players (name, club, country, created_by)
          SELECT {name},
                 'Club ' || (g % 500), (ARRAY['NO','PL','SE','DK','DE'])[1 + g % 5], {user}
          FROM generate_series(1, {players}) g
          RETURNING id)
        SELECT min(id) || '|' || max(id) FROM ins""").split("|")
    print(f"players: {players} in {time.time() - started:.0f} s")
    started = time.time()
    psql(url, f"""
        INSERT INTO tournaments (name, game, ruleset, table_size, planned_rounds, starts_on,
                                 ends_on, time_zone, status, created_by, country,
                                 rating_pool_id, rating_status)
        SELECT ({sql_array(CITIES)})[1 + g % {len(CITIES)}] || ' Open ' || g,
               CASE WHEN g % 3 = 0 THEN 'Tantrix' ELSE 'Agricola' END,
               CASE WHEN g % 3 = 0 THEN 'tantrix' ELSE 'agricola_norway' END,
               CASE WHEN g % 3 = 0 THEN 2 ELSE 4 END, 5,
               date '2000-01-01' + (g % 9000), date '2000-01-01' + (g % 9000),
               'Europe/Oslo', (ARRAY['registration_open','running','finished'])[1 + g % 3],
               {user}, CASE WHEN g % 2 = 0 THEN 'NO' ELSE 'PL' END,
               CASE WHEN g % 10 = 0 THEN {pool} END, CASE WHEN g % 10 = 0 THEN 'accepted' END
        FROM generate_series(1, {tournaments}) g""")
    print(f"tournaments: {tournaments} in {time.time() - started:.0f} s")
    for table in ("players", "tournaments"):
        psql(url, f"VACUUM ANALYZE {table}")
    return int(first), int(last), int(pool)


def call(url, body=None, token=None):
    req = urllib.request.Request(url, data=None if body is None else json.dumps(body).encode(),
                                 method="GET" if body is None else "POST")
    req.add_header("content-type", "application/json")
    if token:
        req.add_header("authorization", "Bearer " + token)
    with urllib.request.urlopen(req) as r:
        return r.status, dict(r.headers), r.read()


def late_cursor(first, depth, every=None):
    """The cursor `depth` items into a list, reached by following its cursors; the cursors met
    on the way are appended to `every` when given."""
    page = json.loads(call(first)[2])
    seen = len(page["items"])
    while seen < depth and page.get("next_cursor"):
        if every is not None:
            every.append(page["next_cursor"])
        page = json.loads(call(f"{first}&cursor={page['next_cursor']}")[2])
        seen += len(page["items"])
    return page["next_cursor"]


# wrk reads PATHS (one path per line) and sends each connection's requests through it in turn,
# each thread from its own place, so that no URL repeats until the list is used up.
# Each of wrk's two threads reads every other URL of the list, in turn: no URL is read twice
# until the list runs out (then it starts over, and the run says so: `distinct` below).
ROTATE = """
local paths = {}
for line in io.lines(os.getenv("PATHS")) do paths[#paths + 1] = line end
local threads = 0
function setup(thread)
  threads = threads + 1
  thread:set("first", threads)
end
function init(args) i = first - 3 end
function request()
  i = (i + 2) % #paths
  return wrk.format("GET", paths[i + 1])
end
"""


def ratio(reference, rps):
    """The rate as a fraction of the reference's ("none" when nothing was answered)."""
    return f"1/{reference / rps:.1f}" if rps > 0 else "none answered"


def cpu_seconds(pid):
    """The service's user and system CPU time so far (/proc/PID/stat), in seconds."""
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def wrk(url, connections, seconds, paths=None, pid=None):
    """Requests/s, p99 ms, failures, requests, and the service's CPU microseconds a request
    (`pid` given: steadier than requests/s on a shared machine)."""
    cmd = ["wrk", "-t2", f"-c{connections}", f"-d{seconds}s", "--latency"]
    env = dict(os.environ)
    if paths:
        script = tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False)
        script.write(ROTATE)
        script.close()
        listing = tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False)
        listing.write("\n".join(paths) + "\n")
        listing.close()
        cmd += ["-s", script.name]
        env["PATHS"] = listing.name
    cpu = cpu_seconds(pid) if pid else 0.0
    try:
        out = subprocess.run(cmd + [url], capture_output=True, text=True, env=env).stdout
    finally:
        # The listing of a distinct run is tens of megabytes: not left behind run after run.
        if paths:
            os.unlink(script.name)
            os.unlink(listing.name)
    cpu = cpu_seconds(pid) - cpu if pid else 0.0
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
    p99 = re.search(r"99%\s+([\d.]+)(\w+)", out)
    p99_ms = float(p99.group(1)) * {"us": 0.001, "ms": 1.0, "s": 1000.0}[p99.group(2)]
    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    timeouts = re.search(r"timeout (\d+)", out)
    total = re.search(r"(\d+) requests in", out)
    # Requests, and those that failed or timed out (wrk's timeout is 2 s; its p99 then counts
    # only the answered ones).
    failed = (int(errors.group(1)) if errors else 0) + (int(timeouts.group(1)) if timeouts else 0)
    requests = int(total.group(1)) if total else 0
    cpu_us = 1e6 * cpu / requests if requests else 0.0
    return rps, p99_ms, f"{failed} of {requests or '?'}", requests, cpu_us


def settle(base):
    """Waits until the service answers /healthz within 5 ms again (queued work done)."""
    for _ in range(100):
        started = time.time()
        call(base + "/healthz")
        if time.time() - started < 0.005:
            return
        time.sleep(0.5)


def burst(url, clients=32):
    """Reads `url` from `clients` threads released at once; each read's milliseconds, sorted."""
    import concurrent.futures
    import threading
    barrier = threading.Barrier(clients)

    def one(_):
        barrier.wait()
        started = time.time()
        call(url)
        return (time.time() - started) * 1000

    # Python's collector stopped while the clients read: this script holds a million strings
    # (the URL lists), and a collection during a burst (20 ms, a generation-1 pass, met during
    # `ber`'s cold burst in every run) was timed as the service's answer.
    gc.collect()
    gc.disable()
    try:
        with concurrent.futures.ThreadPoolExecutor(clients) as pool:
            return sorted(pool.map(one, range(clients)))
    finally:
        gc.enable()


def cold_and_warm(base, api):
    """A popular search nobody asked before, read by 32 clients at once (cold), then by 32
    again (warm, kept): the slowest and the median read of each (issue 42, item 2)."""
    print("| popular search, 32 clients at once | cold max ms | cold median ms | warm max ms "
          "| warm median ms |")
    print("| --- | --- | --- | --- | --- |")
    for q in ["kar", "ber", "sten ma", "lu"]:
        settle(base)
        url = f"{api}/players?q={urllib.parse.quote(q)}&limit=50"
        cold, warm = burst(url), burst(url)
        print(f"| q={q} | {cold[-1]:.1f} | {cold[len(cold) // 2]:.1f} | {warm[-1]:.1f} "
              f"| {warm[len(warm) // 2]:.1f} |")


def rss_mb(pid):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def main():
    db, base, pid, user, password = sys.argv[1:6]
    players = int(sys.argv[6]) if len(sys.argv) > 6 else 1_000_000
    tournaments = int(sys.argv[7]) if len(sys.argv) > 7 else 100_000
    connections = int(sys.argv[8]) if len(sys.argv) > 8 else 64
    seconds = int(sys.argv[9]) if len(sys.argv) > 9 else 10
    api = base + "/api/v1"
    _, _, t = call(api + "/auth/token", {"username": user, "password": password})
    token = json.loads(t)["access_token"]
    if players > 0:
        first, last, pool = load(db, api, token, players, tournaments)
    else:
        # PLAYERS 0: the database is loaded already (an earlier run); read what it holds.
        first, last, players = map(int, psql(
            db, "SELECT min(id) || '|' || max(id) || '|' || count(*) FROM players").split("|"))
        tournaments = int(psql(db, "SELECT count(*) FROM tournaments"))
        pool = int(psql(db, "SELECT max(rating_pool_id) FROM tournaments"))
        print(f"loaded already: {players} players, {tournaments} tournaments")
    # A late page by cursor: follow the next links 90% into the list (the walk a client
    # makes), then read that page over and over.
    cursors = []
    late_players = late_cursor(f"{api}/players?limit=200", players * 9 // 10, cursors)
    late_tournaments = late_cursor(f"{api}/tournaments?limit=200&sort=name",
                                   tournaments * 9 // 10)
    reads = [
        ("list", "players", f"{api}/players?limit=50"),
        ("list", "players in a country", f"{api}/players?country=SE&limit=50"),
        ("list", "players, a page 90% into the list (cursor, 50 a page)",
         f"{api}/players?limit=50&cursor={late_players}"),
        ("list", "players at offset 10,000 (the bound)", f"{api}/players?limit=50&offset=10000"),
        ("search", "players q=stad", f"{api}/players?q=stad&limit=50"),
        ("search", "players q=oystein odegard", f"{api}/players?q=oystein%20odegard&limit=50"),
        ("search", "players q=wisniewska (rare word)", f"{api}/players?q=lukasz%20wisniewska&limit=20"),
        ("list", "tournaments", f"{api}/tournaments?limit=50"),
        ("list", "tournaments by name, 90% into the list (cursor)",
         f"{api}/tournaments?limit=50&sort=name&cursor={late_tournaments}"),
        ("list", "tournaments filtered (NO, finished, Agricola, 2010s)",
         f"{api}/tournaments?country=NO&status=finished&game=agricola"
         f"&starts_from=2010-01-01&starts_until=2019-12-31&limit=50"),
        ("list", "tournaments in a pool", f"{api}/tournaments?rating_pool_id={pool}&limit=50"),
        ("search", "tournaments q=alesund", f"{api}/tournaments?q=alesund&limit=50"),
        ("profile", "player profile", f"{api}/players/{(first + last) // 2}"),
        ("profile", "tournament", None),
    ]
    _, _, page = call(f"{api}/tournaments?limit=1")
    reads[-1] = ("profile", "tournament", f"{api}/tournaments/{json.loads(page)['items'][0]['id']}")
    # Distinct URLs: profiles of random players, full names as a user types them (folded, no
    # marks: "kari hansen 12345"), pages by cursor met on the walk above.
    rng = random.Random(31)
    prefix = urllib.parse.urlparse(base).path + "/api/v1"
    ids = [rng.randint(first, last) for _ in range(20000)]
    # Enough names that no run reads one twice (the run says if it did): at 15,000 full names
    # a second, 60,000 ran out within 5 s on a quiet day.
    named = json.loads(psql(db, "SELECT json_agg(name_folded) FROM (SELECT name_folded FROM players"
                                f" WHERE id BETWEEN {first} AND {last}"
                                " ORDER BY hashint8(id) LIMIT 200000) n"))
    rng.shuffle(named)
    # The costliest last: a run's requests still queued when wrk stops are answered before the
    # next run starts (`settle`).
    # As people type: every keystroke of a name from its third letter (first name, space,
    # surname; not the number), each read once.
    typed = []
    for n in named:
        words = n.split()
        typed += [n[:k] for k in range(3, len(" ".join(words[:2])) + 1)]
    typed = list(dict.fromkeys(typed))
    rng.shuffle(typed)
    distinct = [
        ("profile", "player profiles, a different player each time",
         [f"{prefix}/players/{i}" for i in ids]),
        ("list", "players, a different page by cursor each time",
         [f"{prefix}/players?limit=50&cursor={c}" for c in cursors]),
        ("search", "players by full name typed without marks, a different name each time",
         [f"{prefix}/players?limit=20&q={urllib.parse.quote(n)}" for n in named]),
        # A search box as someone types asks for the first names, not how many match
        # (`count=false`, 1.4.0); other keystrokes than the counted run's below.
        ("search", "players by a name as it is typed, not counted (count=false)",
         [f"{prefix}/players?limit=20&count=false&q={urllib.parse.quote(t)}"
          for t in typed[len(typed) // 2:]]),
        ("search", "players by a name as it is typed (prefixes), a different one each time",
         [f"{prefix}/players?limit=20&q={urllib.parse.quote(t)}" for t in typed]),
    ]
    print(f"service RSS before the reads: {rss_mb(pid):.0f} MB")
    ref_rps, ref_p99, _, _, ref_cpu = wrk(base + "/healthz", connections, seconds, pid=pid)
    print(f"/healthz: {ref_rps:.0f} req/s, p99 {ref_p99:.1f} ms, the service's CPU "
          f"{ref_cpu:.1f} µs a request")
    print("| read | kind | req/s | p99 ms | ratio to /healthz | target | failed or timed out "
          "| first read ms | service CPU µs a request |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    peak = rss_mb(pid)
    for kind, name, url in reads:
        settle(base)
        # The first read of a URL rebuilds its body (the cost of a miss, timed here); the run
        # then measures the reads that follow.
        started = time.time()
        call(url)
        first_ms = (time.time() - started) * 1000
        rps, p99, errors, _, cpu_us = wrk(url, connections, seconds, pid=pid)
        peak = max(peak, rss_mb(pid))
        target = 10 if kind == "search" else 4
        ok = "met" if rps * target >= ref_rps and p99 < 20 else "missed"
        print(f"| {name} | {kind}, repeated | {rps:.0f} | {p99:.1f} | {ratio(ref_rps, rps)} | "
              f"1/{target}, p99 < 20 ms: {ok} | {errors} | {first_ms:.1f} | {cpu_us:.1f} |")
    cold_and_warm(base, api)
    for kind, name, paths in distinct:
        settle(base)
        rps, p99, errors, requests, cpu_us = wrk(base, connections, seconds, paths, pid)
        peak = max(peak, rss_mb(pid))
        target = 10 if kind == "search" else 4
        ok = "met" if rps * target >= ref_rps and p99 < 20 else "missed"
        # More requests than URLs: the list ran out and some reads were of URLs read before
        # (kept by then), so the run is no longer "each read once".
        once = "each read once" if requests <= len(paths) else \
            f"list ran out: {requests - len(paths)} reads again"
        print(f"| {name} ({len(paths)} URLs, {once}) | {kind}, distinct | {rps:.0f} | "
              f"{p99:.1f} | {ratio(ref_rps, rps)} | 1/{target}, p99 < 20 ms: {ok} | {errors} | "
              f"| {cpu_us:.1f} |")
    print(f"service RSS after the reads: {rss_mb(pid):.0f} MB (peak seen {peak:.0f} MB)")
    metrics = call(base + "/metrics")[2].decode()
    for line in metrics.splitlines():
        if 'cache="search"' in line and not line.startswith("#"):
            print(line)


if __name__ == "__main__":
    main()
