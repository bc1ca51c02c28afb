#!/usr/bin/env bash
# The debug feed's cost (issue 23): the same fan-out and cross-node benches with the feed off (nobody listening)
# and with one listener (Benchmarks/console_listener.py reading GET /apps/{id}/console as fast as it can),
# interleaved in one run. Release builds only.
#   fanout: one event to N subscribers of one `pushtop serve` (`pushtop-benchmarks fanout`): p50/p99/max and the
#           server's CPU per delivery; with the feed on, every api_message row is built and written to the listener.
#   cross:  events through node A's HTTP API, subscribers on node B across Redis (`pushtop-benchmarks sustain`); the
#           listener is on node B, so node A forwards its rows to B over Redis (the costlier side of the feed).
#     Benchmarks/console_feed_bench.sh [--bin .build/release] [--rounds 2] [--subscribers 1000] [--events 200] \
#         [--rate 1000] [--seconds 10] [--cross-subscribers 10]
set -euo pipefail
cd "$(dirname "$0")/.."
bin=.build/release
rounds=2; subscribers=1000; events=200; rate=1000; seconds=10; cross_subscribers=10
while [ $# -gt 0 ]; do
    case "$1" in
        --bin) bin="$2"; shift 2 ;;
        --rounds) rounds="$2"; shift 2 ;;
        --subscribers) subscribers="$2"; shift 2 ;;
        --events) events="$2"; shift 2 ;;
        --rate) rate="$2"; shift 2 ;;
        --seconds) seconds="$2"; shift 2 ;;
        --cross-subscribers) cross_subscribers="$2"; shift 2 ;;
        *) echo "usage: $0 [--bin DIR] [--rounds N] [--subscribers N] [--events N] [--rate N] [--seconds S]" >&2; exit 64 ;;
    esac
done
pids=()
cleanup() { for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done; }
trap cleanup EXIT
# A free port below the ephemeral range (where the subscribers' own ends live).
free_port() { local p; while p=$((20000 + RANDOM % 12000)); (echo >"/dev/tcp/127.0.0.1/$p") 2>/dev/null; do :; done; echo "$p"; }
wait_port() { for _ in $(seq 100); do (echo >"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return; sleep 0.1; done; }
listener_pid=""
listen_on() {
    python3 Benchmarks/console_listener.py --port "$1" > "$listen_out" &
    listener_pid=$!; pids+=("$listener_pid")
    sleep 1.5   # connected, and in a cluster the other nodes heard the announcement (every second)
}
stop_listener() {
    kill "$listener_pid" 2>/dev/null || true; wait "$listener_pid" 2>/dev/null || true
    echo "   listener: $(cat "$listen_out")"
}
listen_out="$(mktemp)"

echo "== fanout: one event to $subscribers subscribers, $events events, feed off / on, $rounds rounds"
port="$(free_port)"
"$bin/pushtop" serve --port "$port" --log-level warning >/dev/null 2>&1 &
serve_pid=$!; pids+=("$serve_pid")
wait_port "$port"; sleep 0.5
for round in $(seq "$rounds"); do
    echo "-- round $round, feed off"
    "$bin/pushtop-benchmarks" fanout --port "$port" --server-pid "$serve_pid" --subscribers "$subscribers" \
        --events "$events" 2>/dev/null
    echo "-- round $round, feed on (one listener)"
    listen_on "$port"
    "$bin/pushtop-benchmarks" fanout --port "$port" --server-pid "$serve_pid" --subscribers "$subscribers" \
        --events "$events" 2>/dev/null
    stop_listener
done
kill "$serve_pid"; wait "$serve_pid" 2>/dev/null || true

echo "== cross-node: $rate events/s through A for ${seconds}s, $cross_subscribers subscribers on B, feed off / on"
redis_port="$(free_port)"
redis-server --port "$redis_port" --bind 127.0.0.1 --save '' --appendonly no >/dev/null &
redis_pid=$!; pids+=("$redis_pid")
wait_port "$redis_port"
pa="$(free_port)"; pb="$(free_port)"
"$bin/pushtop" serve --port "$pa" --log-level warning --redis "redis://127.0.0.1:$redis_port" --node-id a >/dev/null 2>&1 &
a_pid=$!; pids+=("$a_pid")
"$bin/pushtop" serve --port "$pb" --log-level warning --redis "redis://127.0.0.1:$redis_port" --node-id b >/dev/null 2>&1 &
b_pid=$!; pids+=("$b_pid")
wait_port "$pa"; wait_port "$pb"; sleep 1
sustain() {
    "$bin/pushtop-benchmarks" sustain --rate "$rate" --seconds "$seconds" --connections 1 --batch 1 --port "$pa" \
        --subscribe-ports "$pb" --subscribers "$cross_subscribers" --server-pid "$a_pid" \
        --pids "node B=$b_pid,redis-server=$redis_pid" 2>/dev/null
}
for round in $(seq "$rounds"); do
    echo "-- round $round, feed off"
    sustain
    echo "-- round $round, feed on (one listener on B: A forwards its rows over Redis)"
    listen_on "$pb"
    sustain
    stop_listener
    sleep 11   # A stops forwarding 10 s after B's last announcement
done
