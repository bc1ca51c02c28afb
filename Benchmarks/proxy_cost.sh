#!/usr/bin/env bash
# What `pushtop proxy` costs (issue 32, point 6), in one run on this machine. Release builds only.
#   latency: events through serve's HTTP API at --rate (1,000/s), subscribers connected directly to serve, then through
#            the proxy in front of it, alternated for --rounds (`pushtop-benchmarks sustain`: request written -> frame
#            read, p50/p99/max); the proxy's added latency is the difference of the two. CPU: serve's per delivery
#            (direct rounds) and the proxy's per relayed frame (proxied rounds: its CPU / events x subscribers).
#   load:    --idle (10,000) idle connections through the proxy (`pushtop-benchmarks idle`) and, while they are held,
#            --load-rate (5,000) events/s to --subscribers through the proxy: lost, out of order, latency, the
#            proxy's CPU and memory.
#     Benchmarks/proxy_cost.sh [--bin .build/release] [--rounds 2] [--rate 1000] [--seconds 10] [--subscribers 10] \
#         [--idle 10000] [--load-rate 5000] [--load-seconds 10]
set -euo pipefail
cd "$(dirname "$0")/.."
bin=.build/release
rounds=2; rate=1000; seconds=10; subscribers=10; idle=10000; load_rate=5000; load_seconds=10
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
        *) echo "usage: $0 [--bin DIR] [--rounds N] [--rate N] [--seconds S] [--subscribers N] [--idle N] [--load-rate N] [--load-seconds S]" >&2; exit 64 ;;
    esac
done
# 10,000 connections through the proxy are 20,000 sockets in the proxy (client and upstream ends), 10,000 in serve
# and 10,000 in the load tool: raise the limit on open files (root may raise the hard limit too).
ulimit -Hn 131072 2>/dev/null || true
ulimit -n "$(ulimit -Hn)"
pids=()
cleanup() { for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done; }
trap cleanup EXIT
# A free port below the ephemeral range (where the subscribers' own ends live).
free_port() { local p; while p=$((20000 + RANDOM % 12000)); (echo >"/dev/tcp/127.0.0.1/$p") 2>/dev/null; do :; done; echo "$p"; }
wait_port() { for _ in $(seq 100); do (echo >"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return; sleep 0.1; done; }
# "NAME CPU: 1.23 s = 12% of a core; 45.67 µs per event published" -> 45.67 / subscribers, µs per delivered frame.
per_frame() { awk -v who="$1" -v n="$2" '$1 == who && /per event published/ { for (i = 1; i <= NF; i++) if ($i == "µs") printf "%.2f", $(i-1) / n }'; }
latency() { grep -o 'p50 [0-9.]* ms  p99 [0-9.]* ms  max [0-9.]* ms' || true; }
losses() { grep -o 'delivered [0-9]*/[0-9]*  lost [0-9]*  out of order [0-9]*' || true; }

serve_port="$(free_port)"; proxy_port="$(free_port)"
"$bin/pushtop" serve --port "$serve_port" --log-level warning >/dev/null 2>&1 &
serve_pid=$!; pids+=("$serve_pid")
wait_port "$serve_port"
"$bin/pushtop" proxy --listen "127.0.0.1:$proxy_port" --upstream "ws://127.0.0.1:$serve_port" \
    --app-id 1 --key pushtop-key --secret pushtop-secret --log-level warning >/dev/null 2>&1 &
proxy_pid=$!; pids+=("$proxy_pid")
wait_port "$proxy_port"; sleep 0.5

echo "== latency and CPU: $rate events/s for $seconds s to $subscribers subscribers, direct / through the proxy, $rounds rounds"
for round in $(seq "$rounds"); do
    direct="$("$bin/pushtop-benchmarks" sustain --port "$serve_port" --server-pid "$serve_pid" --rate "$rate" \
        --seconds "$seconds" --subscribers "$subscribers" --connections 4 2>/dev/null)"
    proxied="$("$bin/pushtop-benchmarks" sustain --port "$serve_port" --subscribe-ports "$proxy_port" \
        --server-pid "$serve_pid" --pids "proxy=$proxy_pid" --rate "$rate" --seconds "$seconds" \
        --subscribers "$subscribers" --connections 4 2>/dev/null)"
    echo "-- round $round"
    echo "   direct:  $(echo "$direct" | latency);  $(echo "$direct" | losses);  serve CPU per delivery $(echo "$direct" | per_frame server "$subscribers") µs"
    echo "   proxied: $(echo "$proxied" | latency);  $(echo "$proxied" | losses);  serve CPU per delivery $(echo "$proxied" | per_frame server "$subscribers") µs;  proxy CPU per relayed frame $(echo "$proxied" | per_frame proxy "$subscribers") µs"
done

echo "== load: $idle idle connections through the proxy, and $load_rate events/s for $load_seconds s to $subscribers subscribers through it"
idle_out="$(mktemp)"
"$bin/pushtop-benchmarks" idle --n "$idle" --port "$proxy_port" --hold $((load_seconds + 30)) >"$idle_out" 2>&1 &
idle_pid=$!; pids+=("$idle_pid")
for _ in $(seq 600); do grep -q "idle connections:" "$idle_out" && break; sleep 0.5; done
echo "   $(grep 'idle connections:' "$idle_out" || echo 'the idle connections did not all connect')"
echo "   proxy: $(grep -E 'VmRSS|Threads' /proc/$proxy_pid/status | tr -s ' \t' ' ' | tr '\n' ' ')"
load="$("$bin/pushtop-benchmarks" sustain --port "$serve_port" --subscribe-ports "$proxy_port" \
    --server-pid "$serve_pid" --pids "proxy=$proxy_pid" --rate "$load_rate" --seconds "$load_seconds" \
    --subscribers "$subscribers" 2>/dev/null)"
echo "$load" | sed 's/^/   /'
echo "   proxy CPU per relayed frame $(echo "$load" | per_frame proxy "$subscribers") µs;  serve CPU per delivery (incl. the idle sockets' upstream ends) $(echo "$load" | per_frame server "$subscribers") µs"
echo "   proxy: $(grep -E 'VmRSS|VmHWM' /proc/$proxy_pid/status | tr -s ' \t' ' ' | tr '\n' ' ')"
kill "$idle_pid" 2>/dev/null || true; wait "$idle_pid" 2>/dev/null || true
