#!/usr/bin/env python3
"""The hall's printed pages on paper (issue 41, item 1): seats a round of a four-player event
over HTTP (names long, non-Latin and with markup among them), prints its result slips (through
the link the organiser takes) and its pairings from headless chromium to PDF, reads the PDFs
back with pdftotext (poppler-utils) and checks: one slip per table, each on its own page with
its table, its code and every seated player's name whole; the pairings with every name by table
and again by name on a page of its own; nothing cut (each slip's last line on its page, every
name found whole). Standard library only.

Usage: hall_print.py BASE_URL ADMIN_TOKEN OUTDIR
"""

import json
import os
import re
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


def browser():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        if shutil.which(name):
            return name
    sys.exit("no chromium on PATH")


def to_pdf(url, pdf):
    cmd = [browser(), "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
           "--no-pdf-header-footer", f"--print-to-pdf={pdf}", url]
    subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    if not os.path.exists(pdf) or os.path.getsize(pdf) < 1000:
        sys.exit(f"chromium printed no PDF of {url}")


def pages_of(pdf):
    """The text of each page, one string per page: pdftotext in the order chromium drew the
    text (`-raw`), which is cell by cell. Its default reading order joins a line broken after a
    hyphen by dropping the hyphen (Hohenberg-/Schwarzenfels read back as HohenbergSchwarzenfels),
    so a name printed whole would read as cut."""
    if not shutil.which("pdftotext"):
        sys.exit("no pdftotext on PATH (apt-get install -y poppler-utils)")
    out = subprocess.run(["pdftotext", "-raw", "-enc", "UTF-8", pdf, "-"], capture_output=True,
                         text=True, check=True).stdout
    pages = out.split("\f")
    if pages and not pages[-1].strip():
        pages.pop()
    return pages


def squash(text):
    """Text with its whitespace (line breaks inside a cell included) made single spaces, and a
    line broken after a hyphen (Hohenberg-/Schwarzenfels) joined again: names break only where
    a reader expects them to (spaces, hyphens), never inside a word."""
    return re.sub(r"-\s+", "-", re.sub(r"\s+", " ", text))


def main():
    base, token, out = sys.argv[1:4]
    os.makedirs(out, exist_ok=True)
    api = "/api/v1"
    t = call(base, "POST", f"{api}/tournaments", token, {
        "name": f"Hall Print Open {int(time.time())}", "game": "Agricola",
        "ruleset": "agricola_norway", "planned_rounds": 3, "starts_on": "2026-06-12",
        "time_zone": "Europe/Oslo"})
    tid = t["id"]
    call(base, "PATCH", f"{api}/tournaments/{tid}", token, {"status": "registration_open"},
         {"if-match": '"1"'})
    names = ["Åse Ødegård", "Łukasz Żak", "Kari <b>Nordmann</b>", "Ola & Co", "陳美玲",
             "Maximiliane Wilhelmine von Hohenberg-Schwarzenfels", "Jürgen Groß", "Ida Berg",
             "Zofia Wójcik", "Tomasz Kowalczyk", "林志明", "Eva Lund"]
    by_id = {}
    for name in names:
        p = call(base, "POST", f"{api}/players", token, {"name": name})
        by_id[p["id"]] = name
        call(base, "POST", f"{api}/tournaments/{tid}/registrations", token, {"player_id": p["id"]})
    call(base, "POST", f"{api}/tournaments/{tid}/rounds", token, {"method": "random"})
    r = call(base, "POST", f"{api}/tournaments/{tid}/rounds/1/publish", token, {})
    tables = r["draw"]["tables"]
    print(f"round 1: {len(tables)} tables of {[len(t['seats']) for t in tables]}")

    link = call(base, "GET", f"{api}/tournaments/{tid}/rounds/1/slips-link", token)
    slips_pdf = os.path.join(out, "slips.pdf")
    to_pdf(base + link["path"] + "&lang=en", slips_pdf)
    pages = pages_of(slips_pdf)
    print(f"slips: {slips_pdf}, {len(pages)} pages")
    if len(pages) != len(tables):
        sys.exit(f"{len(pages)} pages for {len(tables)} tables: one slip per table wanted")
    codes = set()
    for page, table in zip(pages, tables):
        text = squash(page)
        if f"Table {table['number']}" not in text:
            sys.exit(f"page of table {table['number']} does not name it: {text[:200]}")
        for p in table["seats"]:
            if squash(by_id[p]) not in text:
                sys.exit(f"{by_id[p]!r} is not whole on the slip of table {table['number']}")
        code = re.search(r"Table code: ([0-9A-Z]{5}-[0-9A-Z]{5})", text)
        if not code:
            sys.exit(f"no table code on the slip of table {table['number']}: {text}")
        codes.add(code.group(1))
        # The slip's last line (the report page's address) is on its page: nothing cut.
        if f"/hall/tournaments/{tid}/rounds/1/tables/{table['number']}" not in text.replace(" ", ""):
            sys.exit(f"the slip of table {table['number']} is cut: no address at its foot")
        for word in ("Signature", "Bonus", "Points"):
            if word not in text:
                sys.exit(f"{word!r} missing on the slip of table {table['number']}")
    if len(codes) != len(tables):
        sys.exit(f"codes are not one per table: {codes}")
    print("one slip per table, each on its page with its code, its players and its foot")

    pairings_pdf = os.path.join(out, "pairings.pdf")
    to_pdf(f"{base}/print/tournaments/{tid}/rounds/1/pairings?lang=en", pairings_pdf)
    pages = pages_of(pairings_pdf)
    print(f"pairings: {pairings_pdf}, {len(pages)} pages")
    start = next((i for i, p in enumerate(pages) if "By name" in p), None)
    if start is None or start == 0:
        sys.exit("the pairings by name do not start on a page of their own")
    by_table, by_name = squash(" ".join(pages[:start])), squash(" ".join(pages[start:]))
    for name in names:
        if squash(name) not in by_table or squash(name) not in by_name:
            sys.exit(f"{name!r} is not whole in the pairings by table and by name")
    print("every name whole in the pairings by table and, on its own page, by name")


if __name__ == "__main__":
    main()
