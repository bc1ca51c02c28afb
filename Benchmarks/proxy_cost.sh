#!/usr/bin/env bash
# What `pushtop proxy` costs (issue 32, point 6), in one run. The load comes from Benchmarks/proxy_load.py (raw
# WebSocket subscribers on one selector thread and a signed HTTP publisher in one process: no build needed).
#   latency: events through serve's HTTP API (10 a request) at --rate (1,000/s) to --subscribers, connected directly
#            to serve, then through the proxy in front of it, alternated for --rounds: request written -> frame read,
#            p50/p99/max; the proxy's added latency is the difference. CPU: serve's per delivered frame (direct
#            rounds) and the proxy's per relayed frame (proxied rounds), from /proc.
#   load:    --idle (10,000) idle connections through the proxy and, while they are held, --load-rate (5,000)
#            events/s to --load-subscribers through it: lost, out of order, latency, the proxy's CPU and memory.
#     Benchmarks/proxy_cost.sh [--bin .build/release] [--rounds 2] [--rate 1000] [--seconds 10] [--subscribers 4] \
#         [--idle 10000] [--load-rate 5000] [--load-seconds 10] [--load-subscribers 2]
set -euo pipefail
cd "$(dirname "$0")/.."
bin=.build/release
rounds=2; rate=1000; seconds=10; subscribers=4; idle=10000; load_rate=5000; load_seconds=10; load_subscribers=2
while [ $# -gt 0 ]; do
    case "$1" in
        --bin) bin="$2"; shift 2 ;;
        --rounds) rounds="$2"; shift 2 ;;
        --rate) rate="$2"; shift 2 ;;
        --seconds) seconds="$2"; shift 2 ;;
        --subscribers) subscribers="$2"; shift 2 ;;
        --idle) idle="$2"; shift 2 ;;
        --load-rate) load_rate="$2"; shift 2 ;;
        --load-seconds) load_seconds="$2"; shift 2 ;;
        --load-subscribers) load_subscribers="$2"; shift 2 ;;
        *) echo "usage: $0 [--bin DIR] [--rounds N] [--rate N] [--seconds S] [--subscribers N] [--idle N] [--load-rate N] [--load-seconds S] [--load-subscribers N]" >&2; exit 64 ;;
    esac
done
# 10,000 connections through the proxy are 20,000 sockets in the proxy (client and upstream ends), 10,000 in serve
# and 10,000 in the load tool: raise the limit on open files (root may raise the hard limit too).
ulimit -Hn 131072 2>/dev/null || true
ulimit -n "$(ulimit -Hn)"
# Where the hard limit cannot be raised (a container: 20,000 here), the proxy can hold (limit - 100) / 2 connections.
most=$(( ($(ulimit -n) - 100) / 2 ))
if [ "$idle" -gt "$most" ]; then
    echo "note: open files are limited to $(ulimit -n) (hard limit); the proxy needs two per connection: $most idle connections, not $idle"
    idle="$most"
fi
pids=()
cleanup() { for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done; }
trap cleanup EXIT
# A free port below the ephemeral range (where the clients' own ends live).
free_port() { local p; while p=$((20000 + RANDOM % 12000)); (echo >"/dev/tcp/127.0.0.1/$p") 2>/dev/null; do :; done; echo "$p"; }
wait_port() { for _ in $(seq 100); do (echo >"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return; sleep 0.1; done; }
load() { python3 Benchmarks/proxy_load.py "$@"; }
memory() { grep -E 'VmRSS|VmHWM' "/proc/$1/status" | tr -s ' \t' ' ' | tr '\n' ' '; }

serve_port="$(free_port)"; proxy_port="$(free_port)"
"$bin/pushtop" serve --port "$serve_port" --log-level warning >/dev/null 2>&1 &
serve_pid=$!; pids+=("$serve_pid")
wait_port "$serve_port"
"$bin/pushtop" proxy --listen "127.0.0.1:$proxy_port" --upstream "ws://127.0.0.1:$serve_port" \
    --app-id 1 --key pushtop-key --secret pushtop-secret --log-level warning >/dev/null 2>&1 &
proxy_pid=$!; pids+=("$proxy_pid")
wait_port "$proxy_port"; sleep 0.5
who="serve=$serve_pid,proxy=$proxy_pid"

echo "== latency and CPU: $rate events/s for $seconds s to $subscribers subscribers, direct / through the proxy, $rounds rounds"
for round in $(seq "$rounds"); do
    echo "-- round $round, direct"
    load latency --api-port "$serve_port" --sub-port "$serve_port" --rate "$rate" --seconds "$seconds" \
        --subscribers "$subscribers" --pids "$who" | sed 's/^/   /'
    echo "-- round $round, through the proxy"
    load latency --api-port "$serve_port" --sub-port "$proxy_port" --rate "$rate" --seconds "$seconds" \
        --subscribers "$subscribers" --pids "$who" | sed 's/^/   /'
done

echo "== load: $idle idle connections through the proxy, and $load_rate events/s for $load_seconds s to $load_subscribers subscribers through it"
idle_out="$(mktemp)"
python3 Benchmarks/proxy_load.py idle --port "$proxy_port" --n "$idle" --hold $((load_seconds + 60)) >"$idle_out" 2>&1 &
idle_pid=$!; pids+=("$idle_pid")
for _ in $(seq 600); do grep -q "idle connections:" "$idle_out" && break; sleep 0.5; done
echo "   $(cat "$idle_out")"
echo "   proxy: $(memory "$proxy_pid")"
load latency --api-port "$serve_port" --sub-port "$proxy_port" --rate "$load_rate" --seconds "$load_seconds" \
    --subscribers "$load_subscribers" --pids "$who" | sed 's/^/   /'
echo "   proxy: $(memory "$proxy_pid")"
kill "$idle_pid" 2>/dev/null || true; wait "$idle_pid" 2>/dev/null || true
