#!/usr/bin/env python3
"""Many events at once (issue 33): anonymous standings reads spread at random over thousands of
small tournaments, against /healthz in the same run.

Seeds one small event over HTTP (8 players registered, round 1 drawn, published and played),
then copies it in SQL until the service holds EVENTS events (each copy: the tournament, its
staff, registrations, rounds and results, every table that names a tournament or a round; the
copies' notifications reach the service like any write). Then, for each count of events read
(default: every event), wrk (2 threads, 32 connections, 15 s after a 10 s warm-up) reads
`/api/v1/tournaments/{id}/standings` for an id drawn at random per request, and /healthz in the
same run; prints req/s, p99, the ratio to /healthz, the service's resident memory and the kept
bodies' metrics (bytes, entries, hits, misses, evictions).

Usage: scripts/many_events_load.py BASE_URL DATABASE_URL ADMIN_USER ADMIN_PASSWORD PID EVENTS
       [READ_COUNTS...]
PID is the service's process id (for its resident memory). psql and wrk must be on PATH.
"""

import json
import os
import re
import subprocess
import sys
import tempfile
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


def seed_one(api, token):
    """One played 8-player event over HTTP; its id."""
    _, _, t = call("POST", api + "/tournaments", {
        "name": "Club night", "game": "Agricola", "ruleset": "agricola_norway",
        "planned_rounds": 3, "starts_on": "2026-06-12", "time_zone": "Europe/Oslo"}, token)
    tid = json.loads(t)["id"]
    call("PATCH", f"{api}/tournaments/{tid}", {"status": "registration_open"}, token,
         {"if-match": '"1"'})
    for i in range(8):
        _, _, p = call("POST", api + "/players", {"name": f"Club player {tid}-{i}"}, token)
        call("POST", f"{api}/tournaments/{tid}/registrations",
             {"player_id": json.loads(p)["id"]}, token)
    _, _, r = call("POST", f"{api}/tournaments/{tid}/rounds", {"method": "random"}, token)
    call("POST", f"{api}/tournaments/{tid}/rounds/1/publish", {}, token)
    for table in json.loads(r)["draw"]["tables"]:
        seats = [{"player_id": p, "score": 20 + (p * 7) % 40} for p in table["seats"]]
        call("PUT", f"{api}/tournaments/{tid}/rounds/1/tables/{table['number']}/result",
             {"seats": seats}, token)
    return tid


# Copies the template tournament N times: every table with a tournament_id column (rounds first, their
# ids mapped), then every table with a round_id column. Ids come from their defaults.
CLONE = r"""
CREATE OR REPLACE FUNCTION pg_temp.cols(tab text, skip text[]) RETURNS text AS $f$
  SELECT string_agg(quote_ident(column_name), ',' ORDER BY ordinal_position)
  FROM information_schema.columns
  WHERE table_schema = 'public' AND table_name = tab AND column_name <> ALL(skip)
    AND is_generated = 'NEVER'
$f$ LANGUAGE sql;
DO $$
DECLARE
  tmpl bigint := __TMPL__;
  t_tabs text[];
  r_tabs text[];
  tab text;
  c text;
  new_t bigint;
  i int;
BEGIN
  SELECT array_agg(table_name::text) INTO t_tabs FROM information_schema.columns
   WHERE table_schema = 'public' AND column_name = 'tournament_id' AND table_name <> 'rounds'
     AND table_name NOT IN (SELECT table_name FROM information_schema.columns
                            WHERE table_schema = 'public' AND column_name = 'round_id');
  SELECT array_agg(table_name::text) INTO r_tabs FROM information_schema.columns
   WHERE table_schema = 'public' AND column_name = 'round_id'
     AND table_name IN (SELECT table_name FROM information_schema.tables
                        WHERE table_schema = 'public' AND table_type = 'BASE TABLE');
  CREATE TEMP TABLE round_map (old_id bigint, new_id bigint);
  FOR i IN 1..__N__ LOOP
    c := pg_temp.cols('tournaments', ARRAY['id']);
    EXECUTE format('INSERT INTO tournaments (%s) SELECT %s FROM tournaments WHERE id = $1 '
                   'RETURNING id', c, c) INTO new_t USING tmpl;
    UPDATE tournaments SET name = 'Club night ' || new_t WHERE id = new_t;
    FOREACH tab IN ARRAY coalesce(t_tabs, '{}') LOOP
      c := pg_temp.cols(tab, ARRAY['id', 'tournament_id']);
      EXECUTE format('INSERT INTO %I (tournament_id, %s) SELECT $2, %s FROM %I '
                     'WHERE tournament_id = $1', tab, c, c, tab) USING tmpl, new_t;
    END LOOP;
    TRUNCATE round_map;
    c := pg_temp.cols('rounds', ARRAY['id', 'tournament_id']);
    EXECUTE format('WITH old AS (SELECT id, %s FROM rounds WHERE tournament_id = $1),
                    ins AS (INSERT INTO rounds (tournament_id, %s) SELECT $2, %s FROM old
                            RETURNING id, number)
                    INSERT INTO round_map SELECT o.id, i.id FROM old o JOIN ins i USING (number)',
                   c, c, c) USING tmpl, new_t;
    FOREACH tab IN ARRAY coalesce(r_tabs, '{}') LOOP
      IF tab = 'rounds' THEN CONTINUE; END IF;
      c := pg_temp.cols(tab, ARRAY['id', 'round_id', 'tournament_id']);
      IF EXISTS (SELECT 1 FROM information_schema.columns WHERE table_schema = 'public'
                 AND table_name = tab AND column_name = 'tournament_id') THEN
        EXECUTE format('INSERT INTO %I (round_id, tournament_id, %s) SELECT m.new_id, $2, %s
                        FROM %I x JOIN round_map m ON m.old_id = x.round_id', tab, c, c, tab)
          USING tmpl, new_t;
      ELSE
        EXECUTE format('INSERT INTO %I (round_id, %s) SELECT m.new_id, %s
                        FROM %I x JOIN round_map m ON m.old_id = x.round_id', tab, c, c, tab);
      END IF;
    END LOOP;
  END LOOP;
END $$;
"""


def psql(database_url, sql, **params):
    for k, v in params.items():
        sql = sql.replace(f"__{k.upper()}__", str(int(v)))
    subprocess.run(["psql", "-q", "-v", "ON_ERROR_STOP=1", database_url], input=sql, text=True,
                   check=True, capture_output=True)


def psql_value(database_url, sql):
    out = subprocess.run(["psql", "-qtA", database_url, "-c", sql], text=True, check=True,
                         capture_output=True).stdout
    return out.strip()


LUA = """
local first, count = %d, %d
local n = 0
setup = function(thread) n = n + 1; thread:set("seed", n) end
init = function(args) math.randomseed(os.time() * 7919 + seed) end
request = function()
  local id = first + math.random(0, count - 1)
  return wrk.format("GET", "/api/v1/tournaments/" .. id .. "/standings")
end
"""


def wrk(url, seconds, script=None):
    cmd = ["wrk", "-t2", "-c32", f"-d{seconds}s", "--latency", url]
    if script:
        cmd[1:1] = ["-s", script]
    out = subprocess.run(cmd, capture_output=True, text=True).stdout
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
    p99 = re.search(r"99%\s+([\d.]+\w+)", out).group(1)
    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    return rps, p99, int(errors.group(1)) if errors else 0


def rss_mb(pid):
    with open(f"/proc/{pid}/status") as f:
        kb = int(re.search(r"VmRSS:\s+(\d+) kB", f.read()).group(1))
    return kb / 1024


def kept_metrics(base):
    _, _, text = call("GET", base + "/metrics")
    out = {}
    for key, series in [("bytes", 'tourney_cache_bytes{cache="public"}'),
                        ("entries", 'tourney_cache_entries{cache="public"}'),
                        ("hits", 'tourney_cache_reads_total{cache="public",outcome="hit"}'),
                        ("misses", 'tourney_cache_reads_total{cache="public",outcome="miss"}'),
                        ("evictions", 'tourney_cache_evictions_total{cache="public"}')]:
        m = re.search(re.escape(series) + r" (\S+)", text.decode())
        out[key] = float(m.group(1)) if m else 0.0
    return out


def main():
    base, database_url, user, password, pid, events = sys.argv[1:7]
    pid, events = int(pid), int(events)
    counts = [int(c) for c in sys.argv[7:]] or [events]
    api = base + "/api/v1"
    _, _, t = call("POST", api + "/auth/token", {"username": user, "password": password})
    token = json.loads(t)["access_token"]
    have = int(psql_value(database_url, "SELECT count(*) FROM tournaments"))
    if have < events:
        started = time.time()
        tmpl = seed_one(api, token)
        have += 1
        while have < events:
            batch = min(500, events - have)
            psql(database_url, CLONE, tmpl=tmpl, n=batch)
            have += batch
        print(f"seeded {events} events in {time.time() - started:.0f} s")
    first = int(psql_value(database_url, "SELECT min(id) FROM tournaments"))
    _, _, body = call("GET", f"{api}/tournaments/{first}/standings")
    print(f"standings of one event: {len(body)} bytes; service RSS {rss_mb(pid):.0f} MB")
    time.sleep(2)
    for count in counts:
        with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False) as f:
            f.write(LUA % (first, count))
            script = f.name
        health, health_p99, _ = wrk(base + "/healthz", 15)
        wrk(base + "/", 10, script)  # warm-up: the first read of each event is a miss
        before = kept_metrics(base)
        rps, p99, errors = wrk(base + "/", 15, script)
        after = kept_metrics(base)
        os.unlink(script)
        hits = after["hits"] - before["hits"]
        misses = after["misses"] - before["misses"]
        print(f"{count} events read: {rps:.0f} req/s, p99 {p99}, non-2xx/3xx {errors}; "
              f"/healthz {health:.0f} req/s, p99 {health_p99}; ratio {rps / health:.2f}; "
              f"RSS {rss_mb(pid):.0f} MB; kept {after['bytes'] / 1e6:.1f} MB in "
              f"{after['entries']:.0f} bodies, hit ratio {hits / max(hits + misses, 1):.3f}, "
              f"evictions {after['evictions'] - before['evictions']:.0f}")


if __name__ == "__main__":
    main()
