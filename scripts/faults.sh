#!/usr/bin/env bash
# Fault runs (issue 15): stops and restarts the embedded PostgreSQL under write load and
# SIGKILLs the service mid-write, keeping a ledger of acknowledged writes; prints a JSON
# summary (time to 503, /readyz during the outage, time to recover, writes lost). The figures
# are in docs/reliability.md. Exits 1 if an acknowledged write was lost.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet
exec python3 scripts/faults.py target/release/tourney
