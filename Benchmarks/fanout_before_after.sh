#!/usr/bin/env bash
# Fan-out through the HTTP API, two builds of `pushtop serve` alternately: each run starts a fresh server, and
# `pushtop bench` (the BENCH binary, the same for both) subscribes 1,000 connections to one channel and publishes
# RATE events a second for SECONDS through the HTTP API. Prints per run the server's CPU per delivery (user + system
# of its process, from /proc), the delivery ratio and bench's latency percentiles (publish sent -> frame read).
#     Benchmarks/fanout_before_after.sh BEFORE_BIN_DIR AFTER_BIN_DIR [--runs 3] [--rate 20] [--seconds 5]
set -euo pipefail
before="$1"; after="$2"; shift 2
runs=3; rate=20; seconds=5; subscribers=1000
while [ $# -gt 0 ]; do
    case "$1" in
        --runs) runs="$2"; shift 2 ;;
        --rate) rate="$2"; shift 2 ;;
        --seconds) seconds="$2"; shift 2 ;;
        --subscribers) subscribers="$2"; shift 2 ;;
        *) echo "usage: $0 BEFORE_BIN_DIR AFTER_BIN_DIR [--runs N] [--rate N] [--seconds N]" >&2; exit 64 ;;
    esac
done
ulimit -n 8192
hz=$(getconf CLK_TCK)
free_port() {
    local port
    while port=$((20000 + RANDOM % 12000)); (echo >"/dev/tcp/127.0.0.1/$port") 2>/dev/null; do :; done
    echo "$port"
}
one() {  # one NAME BIN_DIR
    local port pid before_ticks after_ticks out
    port=$(free_port)
    "$2/pushtop" serve --port "$port" --log-level error >/dev/null 2>&1 & pid=$!
    for _ in $(seq 200); do (echo >"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break; sleep 0.05; done
    before_ticks=$(awk '{print $14 + $15}' "/proc/$pid/stat")
    out=$("$after/pushtop" bench --host 127.0.0.1 --port "$port" --no-tls --key pushtop-key --secret pushtop-secret \
        --app-id 1 --subscribers "$subscribers" --rate "$rate" --duration "$seconds" --json 2>/dev/null)
    after_ticks=$(awk '{print $14 + $15}' "/proc/$pid/stat")
    kill "$pid"; wait "$pid" 2>/dev/null || true
    python3 - "$1" "$out" "$((after_ticks - before_ticks))" "$hz" "$(cut -d' ' -f1 /proc/loadavg)" <<'PY'
import json, sys
name, out, ticks, hz, load = sys.argv[1], json.loads(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
lat = out["latency_ms"]
cpu = ticks / hz * 1e6 / max(out["received"], 1)
print(f"{name:7} load {load:>5}  {out['received']}/{out['expected']} delivered  {cpu:5.2f} µs CPU per delivery "
      f"(serve, whole run)  latency p50 {lat['p50']:.2f} / p90 {lat['p90']:.2f} / p99 {lat['p99']:.2f} ms")
PY
}
for _ in $(seq "$runs"); do
    one before "$before"
    one after "$after"
done
